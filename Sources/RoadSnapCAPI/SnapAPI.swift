import RoadSnapCHeader
import RoadSnapCore

extension rs_fix {
    /// The fix as a checked `Fix` (NaN optional fields become nil); nil when latitude/longitude are invalid or the
    /// time is beyond ±`maxFixTime`.
    var checked: Fix? {
        guard let c = try? GeoCoordinate(latitude: latitude, longitude: longitude) else { return nil }
        guard !time.isFinite || abs(time) <= maxFixTime else { return nil }
        func known(_ v: Double) -> Double? { v.isFinite ? v : nil }
        return Fix(coordinate: c, time: known(time), course: known(course), speed: known(speed),
                   altitude: known(altitude), horizontalAccuracy: known(accuracy))
    }
}

extension rs_fix {
    /// Why `checked` refused the fix: the position or the time, in the caller's values.
    var problem: String {
        if (try? GeoCoordinate(latitude: latitude, longitude: longitude)) == nil {
            return "fix (\(latitude), \(longitude)) is not a valid latitude/longitude"
        }
        return "fix time \(time) s is beyond ±1e11 s from 1970 (give seconds since the epoch, or NaN when unknown)"
    }
}

extension rs_snap_result {
    init(_ s: SnappedFix?) {
        guard let s else {
            self.init(status: Int32(RS_SNAP_NO_ROAD.rawValue), reserved: 0, edge: -1, latitude: .nan, longitude: .nan,
                      distance: .nan, offset: .nan, bearing: .nan)
            return
        }
        self.init(status: Int32(RS_SNAP_SNAPPED.rawValue), reserved: 0, edge: Int64(s.edge),
                  latitude: s.coordinate.latitude, longitude: s.coordinate.longitude, distance: s.distance,
                  offset: s.offset, bearing: s.bearing)
    }

    static let invalidFix = rs_snap_result(
        status: Int32(RS_SNAP_INVALID_FIX.rawValue), reserved: 0, edge: -1, latitude: .nan, longitude: .nan,
        distance: .nan, offset: .nan, bearing: .nan)
}

/// What an `rs_snapper` handle holds: one thread's `Snapper` plus reusable scratch for batches.
final class SnapperObject: ExclusiveObject, HandleObject, @unchecked Sendable {
    let snapper: Snapper
    let radius: Double
    private var valid: [Fix] = []
    private var slots: [Int] = []

    init(network: RoadNetwork, radius: Double) throws(APIFailure) {
        snapper = try bridging { () throws(RoadSnapError) in try Snapper(network: network) }
        self.radius = radius
    }

    /// Snaps `fixes[0..<count]` into `out`; invalid fixes are marked, the rest go through one batch call.
    func snapBatch(_ fixes: UnsafePointer<rs_fix>, _ count: Int, _ out: UnsafeMutablePointer<rs_snap_result>)
        throws(APIFailure) -> Int
    {
        valid.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        for i in 0..<count {
            if let f = fixes[i].checked {
                valid.append(f)
                slots.append(i)
            } else {
                out[i] = .invalidFix
            }
        }
        let results = try bridging { () throws(RoadSnapError) in try snapper.snap(valid, radius: radius) }
        var snapped = 0
        for (k, i) in slots.enumerated() {
            out[i] = rs_snap_result(results[k])
            if results[k] != nil { snapped += 1 }
        }
        return snapped
    }
}

/// Largest time in seconds from the epoch (either way) a fix may carry (`Fix.maxTime`).
let maxFixTime = Fix.maxTime

/// Largest search radius a snapper accepts, metres.
let maxSnapRadius = 10_000.0

@implementation @c
public func rs_fix_make(_ latitude: Double, _ longitude: Double) -> rs_fix {
    rs_fix(latitude: latitude, longitude: longitude, time: .nan, course: .nan, speed: .nan, altitude: .nan,
           accuracy: .nan)
}

@implementation @c
public func rs_snapper_create(_ map: OpaquePointer?, _ radius: Double,
                              _ outSnapper: UnsafeMutablePointer<OpaquePointer?>?) -> rs_status
{
    creatingHandle(outSnapper, named: "out_snapper", kind: .snapper) { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(map, .map, as: MapObject.self)
        let r = radius == 0 ? RS_DEFAULT_SNAP_RADIUS : radius
        guard r.isFinite, r > 0, r <= maxSnapRadius else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "radius \(radius) m: expected 0 (default) or in (0, \(maxSnapRadius)]")
        }
        return try SnapperObject(network: m.network, radius: r)
    }
}

@implementation @c
public func rs_snapper_destroy(_ snapper: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in try HandleTable.shared.remove(snapper, .snapper) }
}

@implementation @c
public func rs_snapper_snap(_ snapper: OpaquePointer?, _ fix: UnsafePointer<rs_fix>?,
                            _ out: UnsafeMutablePointer<rs_snap_result>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let s = try HandleTable.shared.lookup(snapper, .snapper, as: SnapperObject.self)
        guard let fix else { throw .null("fix") }
        guard let out else { throw .null("out") }
        guard let f = fix.pointee.checked else {
            out.pointee = .invalidFix
            throw APIFailure(RS_E_INVALID_FIX, fix.pointee.problem)
        }
        out.pointee = try s.exclusive { () throws(APIFailure) in
            try rs_snap_result(bridging { () throws(RoadSnapError) in try s.snapper.snap(f, radius: s.radius) })
        }
    }
}

@implementation @c
public func rs_snapper_snap_batch(_ snapper: OpaquePointer?, _ fixes: UnsafePointer<rs_fix>?, _ count: Int,
                                  _ out: UnsafeMutablePointer<rs_snap_result>?,
                                  _ outSnappedCount: UnsafeMutablePointer<Int>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let s = try HandleTable.shared.lookup(snapper, .snapper, as: SnapperObject.self)
        outSnappedCount?.pointee = 0
        guard count >= 0 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "count \(UInt(bitPattern: count)) too large") }
        if count == 0 { return }
        guard let fixes else { throw .null("fixes") }
        guard let out else { throw .null("out") }
        let snapped = try s.exclusive { () throws(APIFailure) in try s.snapBatch(fixes, count, out) }
        outSnappedCount?.pointee = snapped
    }
}
