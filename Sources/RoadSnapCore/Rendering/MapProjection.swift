#if canImport(Glibc)
import Glibc
#endif

/// Web Mercator (EPSG:3857) in "world points": at zoom z the world is 256·2^z points wide, x east from -180°,
/// y south from the northern limit (±85.0511°).
public enum WebMercator {
    /// The latitude limit of the square world.
    public static let maximumLatitude = 85.05112877980659

    /// World coordinates in 0...1 (multiply by 256·2^zoom for points).
    @inline(__always) public static func unit(_ c: GeoCoordinate) -> (x: Double, y: Double) {
        let lat = max(-maximumLatitude, min(maximumLatitude, c.latitude)) * .pi / 180
        let x = (c.longitude + 180) / 360
        let y = (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2
        return (x, y)
    }

    /// The coordinate of unit world coordinates.
    public static func coordinate(unitX x: Double, y: Double) -> GeoCoordinate {
        let lon = x * 360 - 180
        let lat = atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi
        return GeoCoordinate(uncheckedLatitude: lat, longitude: lon)
    }

    /// World width in points at a zoom.
    @inline(__always) public static func worldSize(zoom: Double) -> Double { 256 * exp2(zoom) }

    /// Metres on the ground per point at a latitude and zoom.
    public static func metresPerPoint(latitude: Double, zoom: Double) -> Double {
        2 * .pi * 6_378_137 * cos(latitude * .pi / 180) / worldSize(zoom: zoom)
    }
}

/// The camera geometry of one view: geographic coordinates to points on the picture and back.
///
/// The target lands on the centre of the padded area; the map is turned so that the bearing points up; tilt is a
/// pinhole camera pitched by `tilt` at a distance of 1.5 view heights from the target (points ahead shrink towards
/// the horizon; what lies beyond the horizon is not drawn).
public struct MapProjection: Sendable {
    public let options: MapViewOptions
    /// The pixel of the target (centre of the padded area), in points.
    public let centerX: Double, centerY: Double
    let world: Double, tx: Double, ty: Double, cosB: Double, sinB: Double
    let sinT: Double, cosT: Double, eye: Double

    public init(_ options: MapViewOptions) {
        self.options = options
        let p = options.padding
        centerX = p.left + (options.width - p.left - p.right) / 2
        centerY = p.top + (options.height - p.top - p.bottom) / 2
        world = WebMercator.worldSize(zoom: options.camera.zoom)
        let t = WebMercator.unit(options.camera.target)
        tx = t.x * world
        ty = t.y * world
        let b = options.camera.bearing * .pi / 180
        cosB = cos(b); sinB = sin(b)
        let tilt = options.camera.tilt * .pi / 180
        sinT = sin(tilt); cosT = cos(tilt)
        eye = 1.5 * options.height
    }

    /// The point on the picture of a coordinate; nil beyond the horizon of a tilted camera.
    @inline(__always) public func point(_ c: GeoCoordinate) -> (x: Double, y: Double)? {
        let u = WebMercator.unit(c)
        return point(worldX: u.x * world, worldY: u.y * world)
    }

    /// The point on the picture of world points (see `WebMercator`).
    @inline(__always) func point(worldX: Double, worldY: Double) -> (x: Double, y: Double)? {
        let dx = worldX - tx, dy = worldY - ty
        let rx = dx * cosB + dy * sinB
        let ry = -dx * sinB + dy * cosB
        if sinT == 0 { return (centerX + rx, centerY + ry) }
        // Ahead (up on the picture) is -ry.
        let depth = eye - ry * sinT
        if depth < eye * 0.05 { return nil }
        let k = eye / depth
        return (centerX + rx * k, centerY + ry * cosT * k)
    }

    /// The coordinate shown at a point of the picture; nil above the horizon of a tilted camera.
    public func coordinate(x: Double, y: Double) -> GeoCoordinate? {
        let sx = x - centerX, sy = y - centerY
        var rx = sx, ry = sy
        if sinT != 0 {
            // sy = ry·cosT·eye / (eye - ry·sinT)  =>  ry = sy·eye / (eye·cosT + sy·sinT)
            let den = eye * cosT + sy * sinT
            if den <= 0 { return nil }
            ry = sy * eye / den
            let depth = eye - ry * sinT
            if depth < eye * 0.05 { return nil }
            rx = sx * depth / eye
        }
        let dx = rx * cosB - ry * sinB
        let dy = rx * sinB + ry * cosB
        return WebMercator.coordinate(unitX: (tx + dx) / world, y: (ty + dy) / world)
    }

    /// Metres on the ground per point at the target.
    public var metresPerPoint: Double {
        WebMercator.metresPerPoint(latitude: options.camera.target.latitude, zoom: options.camera.zoom)
    }

    /// The ground visible in the picture, as a centre (the target) and a radius in metres covering the corners
    /// (the top corners of a tilted view clamped to a few view heights ahead).
    public func visibleRadius() -> Double {
        let target = options.camera.target
        var radius = 0.0
        for (x, y) in [(0.0, 0.0), (options.width, 0), (0, options.height), (options.width, options.height)] {
            var c = coordinate(x: x, y: y)
            var yy = y
            while c == nil, yy < options.height { yy += options.height / 16; c = coordinate(x: x, y: yy) }
            guard let c else { continue }
            radius = max(radius, target.distance(to: c))
        }
        // A tilted view may show ground beyond the top corners' clamped positions: allow a margin.
        return radius * (sinT > 0 ? 1.5 : 1.0) + 50
    }
}

extension MapCamera {
    /// The camera showing `bounds` as large as fits in the padded area of a `width` x `height` view (bearing and
    /// tilt 0), zoom at most `maximumZoom`.
    public static func fitting(_ bounds: GeoBoundingBox, width: Double, height: Double, padding: EdgeInsets = .zero,
                               maximumZoom: Double = 18) throws(RoadSnapError) -> MapCamera
    {
        let a = WebMercator.unit(GeoCoordinate(uncheckedLatitude: bounds.maxLatitude, longitude: bounds.minLongitude))
        let b = WebMercator.unit(GeoCoordinate(uncheckedLatitude: bounds.minLatitude, longitude: bounds.maxLongitude))
        let w = max(b.x - a.x, 1e-12) * 256, h = max(b.y - a.y, 1e-12) * 256
        let availW = width - padding.left - padding.right, availH = height - padding.top - padding.bottom
        guard availW > 0, availH > 0 else { throw .invalidArgument("padding leaves no room to fit the bounds") }
        let zoom = max(0, min(maximumZoom, log2(min(availW / w, availH / h))))
        let center = WebMercator.coordinate(unitX: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
        return try MapCamera(target: center, zoom: zoom)
    }

    /// The camera moved by `dx`, `dy` points on the picture (content moves the other way: scrolling right shows
    /// what was right of the view), at this zoom and bearing (tilt ignored).
    public func scrolled(byX dx: Double, y dy: Double) throws(RoadSnapError) -> MapCamera {
        guard dx.isFinite, dy.isFinite else { throw .invalidArgument("scroll by \(dx),\(dy) points must be finite") }
        let world = WebMercator.worldSize(zoom: zoom)
        let t = WebMercator.unit(target)
        let b = bearing * .pi / 180
        let wx = dx * cos(b) - dy * sin(b), wy = dx * sin(b) + dy * cos(b)
        var ux = t.x + wx / world
        ux -= ux.rounded(.down) // wraps around the antimeridian
        let uy = max(0, min(1, t.y + wy / world))
        return try MapCamera(target: WebMercator.coordinate(unitX: ux, y: uy), zoom: zoom, bearing: bearing, tilt: tilt)
    }

    /// The camera one zoom level closer (`by` levels; negative zooms out), clamped to 0...maximumZoom.
    public func zoomedIn(by levels: Double = 1) throws(RoadSnapError) -> MapCamera {
        guard levels.isFinite else { throw .invalidArgument("zoom step must be finite, got \(levels)") }
        return try MapCamera(target: target, zoom: max(0, min(Self.maximumZoom, zoom + levels)), bearing: bearing,
                             tilt: tilt)
    }

    /// The camera one zoom level farther.
    public func zoomedOut(by levels: Double = 1) throws(RoadSnapError) -> MapCamera { try zoomedIn(by: -levels) }

    /// The camera following a (road-snapped) location heading-up: the target on the location, the bearing its
    /// course (kept when the course is unknown).
    public func following(_ location: GeoCoordinate, course: Double?) throws(RoadSnapError) -> MapCamera {
        try MapCamera(target: location, zoom: zoom, bearing: course.flatMap { $0.isFinite ? $0 : nil } ?? bearing,
                      tilt: tilt)
    }
}
