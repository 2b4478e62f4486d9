import CShims

/// A point in a map's local metric frame: metres east (`x`) and north (`y`) of the frame's centre.
public struct LocalPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// Owns a PROJ transverse Mercator frame centred on a map. Not thread-safe: `clone()` one per thread.
public final class LocalFrame {
    let handle: OpaquePointer
    /// Latitude and longitude of the frame's centre, degrees.
    public let centerLatitude: Double
    public let centerLongitude: Double

    /// Creates a frame centred on the given point (degrees).
    package init(centerLatitude: Double, centerLongitude: Double) throws(NativeFailure) {
        var err = [CChar](repeating: 0, count: 256)
        guard let h = rsc_frame_create(centerLatitude, centerLongitude, &err, err.count) else {
            throw .projection(messageFrom(err))
        }
        handle = h
        self.centerLatitude = centerLatitude
        self.centerLongitude = centerLongitude
    }

    /// The reference the frame is checked against in tests: PROJ's own pipeline, degrees converted by its unitconvert
    /// step (a frame converts them itself, the same way, and skips the pipeline's extra steps per point).
    package static func reference(centerLatitude: Double, centerLongitude: Double) throws(NativeFailure) -> LocalFrame {
        var err = [CChar](repeating: 0, count: 256)
        guard let h = rsc_frame_create_reference(centerLatitude, centerLongitude, &err, err.count) else {
            throw .projection(messageFrom(err))
        }
        return LocalFrame(handle: h, centerLatitude: centerLatitude, centerLongitude: centerLongitude)
    }

    private init(handle: OpaquePointer, centerLatitude: Double, centerLongitude: Double) {
        self.handle = handle
        self.centerLatitude = centerLatitude
        self.centerLongitude = centerLongitude
    }

    deinit { rsc_frame_destroy(handle) }

    /// An independent copy with its own PROJ context, for use on another thread.
    package func clone() throws(NativeFailure) -> LocalFrame {
        guard let h = rsc_frame_clone(handle) else { throw .projection("could not clone the local frame") }
        return LocalFrame(handle: h, centerLatitude: centerLatitude, centerLongitude: centerLongitude)
    }

    /// Projects one point (degrees) to metres, failing with `.projection` (which point, and PROJ's reason) when
    /// PROJ refuses it, for example a point outside the projection's domain (about a quarter of the globe from the
    /// centre). The one single-point projection: no NaN stands in for a refused point.
    package func project(latitude: Double, longitude: Double) throws(NativeFailure) -> LocalPoint {
        var lat = latitude, lon = longitude, x = 0.0, y = 0.0
        let rc = rsc_frame_forward(handle, &lat, &lon, &x, &y, 1)
        if rc != RSC_OK {
            throw nativeFailure(rc, nativeMessage(rsc_frame_failure(handle)), doing: "projecting into the map's frame")
        }
        return LocalPoint(x: x, y: y)
    }

    /// Projects arrays of points (degrees) into `x` and `y` (metres), resized to match. Throws `.projection` naming
    /// the first point PROJ refused (0-based) and PROJ's reason.
    package func forward(latitudes: [Double], longitudes: [Double], x: inout [Double], y: inout [Double])
        throws(NativeFailure)
    {
        let n = min(latitudes.count, longitudes.count)
        x = [Double](repeating: 0, count: n)
        y = [Double](repeating: 0, count: n)
        let rc = latitudes.withUnsafeBufferPointer { la in
            longitudes.withUnsafeBufferPointer { lo in
                x.withUnsafeMutableBufferPointer { xb in
                    y.withUnsafeMutableBufferPointer { yb in
                        rsc_frame_forward(handle, la.baseAddress, lo.baseAddress, xb.baseAddress, yb.baseAddress, n)
                    }
                }
            }
        }
        if rc != RSC_OK {
            throw nativeFailure(rc, nativeMessage(rsc_frame_failure(handle)), doing: "projecting into the map's frame")
        }
    }

    /// Projects a point in metres back to (latitude, longitude) in degrees.
    public func inverse(_ p: LocalPoint) -> (latitude: Double, longitude: Double) {
        var x = p.x, y = p.y, lat = 0.0, lon = 0.0
        if rsc_frame_inverse(handle, &x, &y, &lat, &lon, 1) != RSC_OK { return (.nan, .nan) }
        return (lat, lon)
    }
}

/// Geodesic distance and bearings on the WGS84 ellipsoid, through PROJ's geodesic routines. Thread-safe.
public enum Geodesic {
    /// Distance in metres and initial and final azimuths (degrees clockwise from north) from point 1 to point 2.
    public static func inverse(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double)
        -> (distance: Double, initialAzimuth: Double, finalAzimuth: Double)
    {
        var s = 0.0, a1 = 0.0, a2 = 0.0
        rsc_geod_inverse(latitude1, longitude1, latitude2, longitude2, &s, &a1, &a2)
        return (s, a1, a2)
    }

    /// The point reached from (latitude, longitude) after `distance` metres on `azimuth` degrees.
    public static func direct(latitude: Double, longitude: Double, azimuth: Double, distance: Double)
        -> (latitude: Double, longitude: Double)
    {
        var la = 0.0, lo = 0.0
        rsc_geod_direct(latitude, longitude, azimuth, distance, &la, &lo)
        return (la, lo)
    }
}
