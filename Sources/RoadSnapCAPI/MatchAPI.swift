import RoadSnapCHeader
import RoadSnapCore
import RoadSnapFormats

extension MatchParameters {
    /// Defaults overridden by the non-zero fields of C options.
    init(_ o: rs_match_options) {
        self.init()
        chooseSigma(given: o.sigma != 0 ? o.sigma : nil, fromTrack: o.estimate_sigma != 0)
        if o.beta != 0 { beta = o.beta }
        if o.radius != 0 { radius = o.radius }
        if o.max_candidates != 0 { maxCandidates = Int(o.max_candidates) }
        if o.max_gap < 0 { maxGap = 0 } else if o.max_gap != 0 { maxGap = o.max_gap }
    }
}

/// What an `rs_matcher` handle holds: one thread's `MapMatcher`.
final class MatcherObject: ExclusiveObject, HandleObject, @unchecked Sendable {
    let matcher: MapMatcher
    let base: MatchParameters

    init(map: MapObject, options: rs_match_options) throws(APIFailure) {
        let parameters = MatchParameters(options)
        // Checked by MapMatcher.init (MatchParameters.validate, the engine's one validation).
        let graph = try map.matchGraph()
        matcher = try bridging { () throws(RoadSnapError) in
            try MapMatcher(network: map.network, graph: graph, parameters: parameters)
        }
        base = parameters
    }

    /// Matches the valid fixes among `fixes[0..<count]`; indices in the result are the caller's.
    func match(_ fixes: UnsafePointer<rs_fix>?, _ count: Int) throws(APIFailure) -> MatchObject {
        var valid: [Fix] = [], slots: [Int] = []
        valid.reserveCapacity(count)
        slots.reserveCapacity(count)
        for i in 0..<count {
            if let f = fixes?[i].checked {
                valid.append(f)
                slots.append(i)
            }
        }
        let track = Track(name: "rs_matcher_match", fixes: valid)
        matcher.parameters = base
        let result = try bridging { () throws(RoadSnapError) in try matcher.match(track) }
        return MatchObject(result: result, track: track, network: matcher.network, slots: slots, fixCount: count)
    }
}

/// What an `rs_match` handle holds: one track's match result (immutable), with fix indices as the caller gave them,
/// and the track of valid fixes and the network it was matched on, for the result writers.
final class MatchObject: HandleObject {
    let result: MatchResult
    /// The valid fixes, as matched (`result.fixes[k]` is the match of `track.fixes[k]`).
    let track: Track
    let network: RoadNetwork
    /// Caller's index of each fix matched (`slots[k]` for the k-th valid fix).
    let slots: [Int]
    let fixCount: Int
    /// The last text rendered by `rs_match_render`, so that asking for the length and then the text renders once.
    private let rendered = Locked<(format: MatchOutput.Format, text: String)?>(nil)

    init(result: MatchResult, track: Track, network: RoadNetwork, slots: [Int], fixCount: Int) {
        self.result = result
        self.track = track
        self.network = network
        self.slots = slots
        self.fixCount = fixCount
    }

    /// The match as `roadsnap match --format` writes it; `keep` keeps the text for the next call.
    func text(_ format: MatchOutput.Format, keep: Bool) -> String {
        if let last = rendered.withLock({ $0 }), last.format == format { return last.text }
        let text = MatchOutput.render(result, track: track, network: network, format: format)
        if keep { rendered.withLock { $0 = (format, text) } }
        return text
    }

    func subMatch(_ index: Int) throws(APIFailure) -> SubMatch {
        guard index >= 0, index < result.subMatches.count else {
            throw APIFailure(RS_E_INVALID_ARGUMENT,
                             "sub-match \(UInt(bitPattern: index)) out of range 0..<\(result.subMatches.count)")
        }
        return result.subMatches[index]
    }

    /// Writes one `rs_matched_fix` per caller fix.
    func write(into out: UnsafeMutablePointer<rs_matched_fix>) {
        let none = rs_matched_fix(status: Int32(RS_MATCH_INVALID_FIX.rawValue), forward: 0, sub_match: -1, edge: -1,
                                  latitude: .nan, longitude: .nan, distance: .nan, offset: .nan, along: .nan)
        for i in 0..<fixCount { out[i] = none }
        for (k, i) in slots.enumerated() {
            guard let m = result.fixes[k] else {
                out[i].status = Int32(RS_MATCH_UNMATCHED.rawValue)
                continue
            }
            out[i] = rs_matched_fix(status: Int32(RS_MATCH_MATCHED.rawValue), forward: m.forward ? 1 : 0,
                                    sub_match: Int64(m.subMatch), edge: Int64(m.edge),
                                    latitude: m.coordinate.latitude, longitude: m.coordinate.longitude,
                                    distance: m.distance, offset: m.offset, along: m.along)
        }
    }
}

/// Copies `count` items made by `item` into `out[capacity]`, reporting the count; `RS_E_BUFFER_TOO_SMALL` (after
/// writing what fits) when it does not fit.
func copyOut<T>(count: Int, into out: UnsafeMutablePointer<T>?, capacity: Int, outCount: UnsafeMutablePointer<Int>?,
                what: String, _ item: (Int, UnsafeMutablePointer<T>) -> Void) throws(APIFailure)
{
    outCount?.pointee = count
    guard capacity >= 0 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "capacity too large") }
    let n = min(count, capacity)
    if n > 0 {
        guard let out else { throw APIFailure.null("out (with capacity > 0)") }
        for i in 0..<n { item(i, out) }
    }
    if count > capacity {
        throw APIFailure(RS_E_BUFFER_TOO_SMALL, "\(count) \(what) need a capacity of \(count), got \(capacity)")
    }
}

/// Copies points as latitude/longitude pairs into `out[2 * capacity]`, with `copyOut`'s rules.
func copyPoints(_ points: [GeoCoordinate], into out: UnsafeMutablePointer<Double>?, capacity: Int,
                outCount: UnsafeMutablePointer<Int>?) throws(APIFailure)
{
    guard capacity <= Int.max / 2 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "capacity too large") }
    try copyOut(count: points.count, into: out, capacity: capacity, outCount: outCount, what: "points") {
        $1[2 * $0] = points[$0].latitude
        $1[2 * $0 + 1] = points[$0].longitude
    }
}

@implementation @c
public func rs_matcher_create(_ map: OpaquePointer?, _ options: UnsafePointer<rs_match_options>?,
                              _ outMatcher: UnsafeMutablePointer<OpaquePointer?>?) -> rs_status
{
    creatingHandle(outMatcher, named: "out_matcher", kind: .matcher) { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(map, .map, as: MapObject.self)
        return try MatcherObject(map: m, options: options?.pointee ?? rs_match_options())
    }
}

@implementation @c
public func rs_matcher_destroy(_ matcher: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in try HandleTable.shared.remove(matcher, .matcher) }
}

@implementation @c
public func rs_matcher_match(_ matcher: OpaquePointer?, _ fixes: UnsafePointer<rs_fix>?, _ count: Int,
                             _ outFixes: UnsafeMutablePointer<rs_matched_fix>?,
                             _ outMatch: UnsafeMutablePointer<OpaquePointer?>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        outMatch?.pointee = nil
        let m = try HandleTable.shared.lookup(matcher, .matcher, as: MatcherObject.self)
        guard count >= 0 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "count \(UInt(bitPattern: count)) too large") }
        guard count == 0 || fixes != nil else { throw .null("fixes") }
        let result = try m.exclusive { () throws(APIFailure) in try m.match(fixes, count) }
        if let outFixes { result.write(into: outFixes) }
        if let outMatch { outMatch.pointee = try HandleTable.shared.insert(result, kind: .matchResult) }
    }
}

@implementation @c
public func rs_match_close(_ match: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in try HandleTable.shared.remove(match, .matchResult) }
}

@implementation @c
public func rs_match_get_info(_ match: OpaquePointer?, _ outInfo: UnsafeMutablePointer<rs_match_info>?) -> rs_status {
    reading(match, .matchResult, as: MatchObject.self, into: outInfo, named: "out_info") { m in
        rs_match_info(fix_count: Int64(m.fixCount), matched_count: Int64(m.result.matchedCount),
                      sub_match_count: Int64(m.result.subMatches.count), sigma: m.result.parameters.sigma)
    }
}

@implementation @c
public func rs_match_get_sub_match(_ match: OpaquePointer?, _ index: Int,
                                   _ outInfo: UnsafeMutablePointer<rs_sub_match_info>?) -> rs_status
{
    reading(match, .matchResult, as: MatchObject.self, into: outInfo, named: "out_info") { m throws(APIFailure) in
        let s = try m.subMatch(index)
        return rs_sub_match_info(
            first_fix: Int64(m.slots[s.firstFix]), last_fix: Int64(m.slots[s.lastFix]),
            matched_fix_count: Int64(s.matchedFixCount), edge_count: Int64(s.edges.count),
            point_count: Int64(s.geometry.count), length: s.length, duration: s.duration ?? .nan,
            confidence: s.confidence)
    }
}

@implementation @c
public func rs_match_get_edges(_ match: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<Int64>?,
                               _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(match, .matchResult, as: MatchObject.self)
        let edges = try m.subMatch(index).edges
        try copyOut(count: edges.count, into: out, capacity: capacity, outCount: outCount, what: "edges") {
            $1[$0] = Int64(edges[$0])
        }
    }
}

@implementation @c
public func rs_match_get_geometry(_ match: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<Double>?,
                                  _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(match, .matchResult, as: MatchObject.self)
        try copyPoints(m.subMatch(index).geometry, into: out, capacity: capacity, outCount: outCount)
    }
}

extension MatchOutput.Format {
    /// The output format a C `rs_output_format` names.
    init(_ format: rs_output_format) throws(APIFailure) {
        switch format {
        case RS_OUTPUT_GEOJSON: self = .geojson
        case RS_OUTPUT_CSV: self = .csv
        case RS_OUTPUT_GPX: self = .gpx
        case RS_OUTPUT_OSRM: self = .osrm
        default: throw APIFailure(RS_E_INVALID_ARGUMENT, "unknown output format \(format.rawValue)")
        }
    }
}

@implementation @c
public func rs_match_render(_ match: OpaquePointer?, _ format: rs_output_format, _ out: UnsafeMutablePointer<CChar>?,
                            _ capacity: Int, _ outLength: UnsafeMutablePointer<Int>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(match, .matchResult, as: MatchObject.self)
        let text = try m.text(MatchOutput.Format(format), keep: true)
        try write(text, into: out, capacity: capacity, length: outLength, named: "out")
    }
}

@implementation @c
public func rs_match_write_file(_ match: OpaquePointer?, _ format: rs_output_format, _ path: UnsafePointer<CChar>?)
    -> rs_status
{
    apiCall { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(match, .matchResult, as: MatchObject.self)
        let format = try MatchOutput.Format(format)
        guard let path else { throw .null("path") }
        let file = String(cString: path)
        guard !file.isEmpty else { throw APIFailure(RS_E_INVALID_ARGUMENT, "path is empty") }
        guard !file.hasSuffix("/") else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "\(file): ends in '/', give the output file's name")
        }
        do throws(RoadSnapError) {
            try AtomicFile.write(m.text(format, keep: false), to: file)
        } catch {
            throw APIFailure(error)
        }
    }
}
