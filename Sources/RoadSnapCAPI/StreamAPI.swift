import RoadSnapCHeader
import RoadSnapCore

/// What an `rs_stream_matcher` handle holds: one thread's `StreamMatcher`.
final class StreamMatcherObject: ExclusiveObject, HandleObject, @unchecked Sendable {
    let matcher: StreamMatcher

    init(map: MapObject, options: rs_match_options, maxLag: Int32) throws(APIFailure) {
        guard options.estimate_sigma == 0 else {
            throw APIFailure(RS_E_INVALID_ARGUMENT,
                             "estimate_sigma needs a whole track: give a sigma (or 0 for the default) to a stream")
        }
        let parameters = MatchParameters(options)
        let graph = try map.matchGraph()
        matcher = try bridging { () throws(RoadSnapError) in
            try StreamMatcher(network: map.network, graph: graph, parameters: parameters, maxLag: Int(maxLag))
        }
    }

    /// The answer for the fix `lag` pushes back as an `rs_matched_fix`.
    func result(lag: Int32, invalid: Bool) -> rs_matched_fix {
        var out = rs_matched_fix(status: Int32(RS_MATCH_UNMATCHED.rawValue), forward: 0, sub_match: -1, edge: -1,
                                 latitude: .nan, longitude: .nan, distance: .nan, offset: .nan, along: .nan)
        if invalid {
            out.status = Int32(RS_MATCH_INVALID_FIX.rawValue)
            return out
        }
        guard let m = matcher.result(lag: Int(lag)) else { return out }
        let length = matcher.network.edges[m.edge].length
        out.status = Int32(RS_MATCH_MATCHED.rawValue)
        out.forward = m.isForward ? 1 : 0
        out.edge = Int64(m.edge)
        out.latitude = m.coordinate.latitude
        out.longitude = m.coordinate.longitude
        out.distance = m.distance
        out.offset = m.isForward ? m.offset : max(0, length - m.offset)
        return out
    }

    /// Whether each of the last max_lag + 1 fixes pushed was invalid (ring, newest at `pushed - 1`).
    var invalid: [Bool] = []
    var pushed = 0
}

@implementation @c
public func rs_stream_matcher_create(_ map: OpaquePointer?, _ options: UnsafePointer<rs_match_options>?,
                                     _ maxLag: Int32, _ outMatcher: UnsafeMutablePointer<OpaquePointer?>?) -> rs_status
{
    creatingHandle(outMatcher, named: "out_matcher", kind: .streamMatcher) { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(map, .map, as: MapObject.self)
        let object = try StreamMatcherObject(map: m, options: options?.pointee ?? rs_match_options(), maxLag: maxLag)
        object.invalid = [Bool](repeating: false, count: Int(maxLag) + 1)
        return object
    }
}

@implementation @c
public func rs_stream_matcher_push_fix(_ matcher: OpaquePointer?, _ fix: UnsafePointer<rs_fix>?) -> rs_status {
    apiCall { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(matcher, .streamMatcher, as: StreamMatcherObject.self)
        guard let fix else { throw .null("fix") }
        try m.exclusive { () throws(APIFailure) in
            let checked = fix.pointee.checked
            m.invalid[m.pushed % m.invalid.count] = checked == nil
            m.pushed += 1
            // an invalid fix is pushed as an unmatched one (non-finite position), so the lags stay aligned
            let f = checked ?? Fix(coordinate: GeoCoordinate(uncheckedLatitude: .nan, longitude: .nan))
            try bridging { () throws(RoadSnapError) in
                if checked == nil {
                    try m.matcher.push(f, at: LocalPoint(x: .nan, y: .nan))
                } else {
                    try m.matcher.push(f)
                }
            }
        }
    }
}

@implementation @c
public func rs_stream_matcher_result(_ matcher: OpaquePointer?, _ lag: Int32,
                                     _ out: UnsafeMutablePointer<rs_matched_fix>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(matcher, .streamMatcher, as: StreamMatcherObject.self)
        guard let out else { throw .null("out") }
        try m.exclusive { () throws(APIFailure) in
            guard lag >= 0, Int(lag) <= m.matcher.maxLag, Int(lag) < m.pushed else {
                throw APIFailure(RS_E_INVALID_ARGUMENT, "lag \(lag): expected 0...\(min(m.matcher.maxLag, m.pushed - 1))"
                                 + " (max lag \(m.matcher.maxLag), \(m.pushed) fixes pushed since the last reset)")
            }
            let invalid = m.invalid[(m.pushed - 1 - Int(lag)) % m.invalid.count]
            out.pointee = m.result(lag: lag, invalid: invalid)
        }
    }
}

@implementation @c
public func rs_stream_matcher_reset(_ matcher: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(matcher, .streamMatcher, as: StreamMatcherObject.self)
        try m.exclusive { () throws(APIFailure) in
            m.matcher.reset()
            m.pushed = 0
        }
    }
}

@implementation @c
public func rs_stream_matcher_free(_ matcher: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in try HandleTable.shared.remove(matcher, .streamMatcher) }
}
