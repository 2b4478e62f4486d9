// The C API driven with arbitrary call sequences: each input is a program of one-byte opcodes with their arguments
// (handles picked among those made so far, closed ones included, or arbitrary bit patterns; sizes, capacities,
// doubles). Every call must return a status, never crash; every handle the program made and left open is closed at
// its end. Every program starts with one map, the fixture's, opened once per process, and may open two more:
// opening maps was most of the target's time (84 % of it in a profile of a grown corpus, mostly PROJ making each
// network's frame), and reading maps is fuzzed by the network targets; `rs_map_open` stays an opcode. Since the
// library keeps spare frames (CShims/frame.c), a map opened again costs its parse and network build, not PROJ:
// still about half of the target's time (docs/reliability.md, eighth session).
#if canImport(Glibc)
import Glibc
#endif
import RoadSnapCAPI
import RoadSnapCHeader
import RoadSnapFormats

/// Reads arguments from the input; past its end every value is zero.
struct Program {
    var bytes: ArraySlice<UInt8>
    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }
    mutating func int(_ limit: Int) -> Int { limit <= 0 ? 0 : Int(byte()) % limit }
    mutating func u64() -> UInt64 { (0..<8).reduce(0) { acc, _ in acc << 8 | UInt64(byte()) } }
    mutating func double() -> Double {
        switch byte() % 8 {
        case 0: return .nan
        case 1: return .infinity
        case 2: return -Double(byte())
        case 3: return Double(bitPattern: u64())
        default: return Double(Int(byte()) - 64) * 0.5
        }
    }
    /// A position near the test roads, or an arbitrary pair.
    mutating func coordinate() -> (Double, Double) {
        if byte() % 4 == 0 { return (double(), double()) }
        return (48.5113 + Double(Int8(bitPattern: byte())) * 1e-4, 2.964 + Double(Int8(bitPattern: byte())) * 1e-4)
    }
    mutating func fix() -> rs_fix {
        let (la, lo) = coordinate()
        var f = rs_fix_make(la, lo)
        if byte() % 2 == 0 { f.time = Double(byte()) * 5 } else { f.time = double() }
        if byte() % 4 == 0 { f.course = double(); f.speed = double(); f.accuracy = double() }
        return f
    }
}

/// Handles made so far (closed ones are kept, to be used again).
struct Handles {
    var maps: [OpaquePointer?] = [], snappers: [OpaquePointer?] = [], matchers: [OpaquePointer?] = []
    var matches: [OpaquePointer?] = [], routers: [OpaquePointer?] = [], routes: [OpaquePointer?] = []
    var tracks: [OpaquePointer?] = []
    var opened = 0  // maps opened from the path by this program
}

nonisolated(unsafe) var roadsPath: String? = nil
/// The fixture map every program starts with. A program may close it (closing a map in use is part of what is
/// fuzzed); it is opened again before the next program.
nonisolated(unsafe) var fixtureMap: OpaquePointer? = nil

/// Runs `body` with `array`'s storage, or with nil when `null` (a NULL buffer with its capacity).
func buffer<T>(_ array: inout [T], null: Bool, _ body: (UnsafeMutablePointer<T>?) -> Void) {
    if null { body(nil) } else { array.withUnsafeMutableBufferPointer { body($0.baseAddress) } }
}

func pick(_ list: [OpaquePointer?], _ p: inout Program) -> OpaquePointer? {
    let k = p.byte()
    if k == 255 { return OpaquePointer(bitPattern: UInt(truncatingIfNeeded: p.u64())) }
    if k == 254 || list.isEmpty { return nil }
    return list[Int(k) % list.count]
}

func capiSequence(_ bytes: [UInt8]) {
    if roadsPath == nil {
        let path = scratchPath + "-roads.geojson"
        guard (try? AtomicFile.write(roadsGeoJSON, to: path)) != nil else { return }
        roadsPath = path
    }
    if fixtureMap == nil {
        var m: OpaquePointer?
        guard rs_map_open(roadsPath, &m) == RS_OK else { return }
        fixtureMap = m
    }
    var p = Program(bytes: bytes[...])
    var h = Handles()
    h.maps.append(fixtureMap)
    var steps = 0
    while !p.bytes.isEmpty, steps < 64 {
        steps += 1
        switch p.byte() % 24 {
        case 0:
            // At most two maps opened per program (each costs parsing the file and building its network).
            guard h.opened < 2 else { continue }
            h.opened += 1
            var m: OpaquePointer?
            if rs_map_open(roadsPath, &m) == RS_OK { h.maps.append(m) }
        case 1:
            let m = pick(h.maps, &p)
            if rs_map_close(m) == RS_OK, m == fixtureMap { fixtureMap = nil }
        case 2:
            var s: OpaquePointer?
            if rs_snapper_create(pick(h.maps, &p), p.double(), &s) == RS_OK { h.snappers.append(s) }
        case 3: _ = rs_snapper_destroy(pick(h.snappers, &p))
        case 4:
            var f = p.fix()
            var out = rs_snap_result()
            _ = rs_snapper_snap(pick(h.snappers, &p), &f, &out)
        case 5:
            let fixes = (0..<p.int(40)).map { _ in p.fix() }
            var out = [rs_snap_result](repeating: rs_snap_result(), count: fixes.count)
            var n = 0
            _ = rs_snapper_snap_batch(pick(h.snappers, &p), fixes, fixes.count, &out, &n)
        case 6:
            var o = rs_match_options(sigma: p.double(), estimate_sigma: Int32(p.byte() % 3), max_candidates: Int32(p.byte()) - 8,
                                     beta: p.double(), radius: p.double(), max_gap: p.double())
            if p.byte() % 2 == 0 { o = rs_match_options() }
            var m: OpaquePointer?
            let status = p.byte() % 3 == 0 ? rs_matcher_create(pick(h.maps, &p), nil, &m)
                : rs_matcher_create(pick(h.maps, &p), &o, &m)
            if status == RS_OK { h.matchers.append(m) }
        case 7: _ = rs_matcher_destroy(pick(h.matchers, &p))
        case 8:
            let fixes = (0..<p.int(40)).map { _ in p.fix() }
            var out = [rs_matched_fix](repeating: rs_matched_fix(), count: fixes.count)
            var match: OpaquePointer?
            if rs_matcher_match(pick(h.matchers, &p), fixes, fixes.count, &out, &match) == RS_OK {
                h.matches.append(match)
            }
        case 9:
            var info = rs_match_info()
            _ = rs_match_get_info(pick(h.matches, &p), &info)
            var sub = rs_sub_match_info()
            _ = rs_match_get_sub_match(pick(h.matches, &p), p.int(4), &sub)
        case 10:
            let capacity = p.int(16)
            var edges = [Int64](repeating: 0, count: capacity), n = 0
            buffer(&edges, null: capacity == 0) { ptr in _ = rs_match_get_edges(pick(h.matches, &p), p.int(3), ptr, capacity, &n) }
            var points = [Double](repeating: 0, count: 2 * capacity)
            buffer(&points, null: capacity == 0) { ptr in _ = rs_match_get_geometry(pick(h.matches, &p), p.int(3), ptr, capacity, &n) }
        case 11:
            let capacity = p.int(200) * 8
            var text = [CChar](repeating: 0, count: max(1, capacity)), n = 0
            let format = rs_output_format(UInt32(p.byte() % 6))
            buffer(&text, null: capacity == 0) { ptr in _ = rs_match_render(pick(h.matches, &p), format, ptr, capacity, &n) }
        case 12: _ = rs_match_close(pick(h.matches, &p))
        case 13:
            var info = rs_map_info()
            _ = rs_map_get_info(pick(h.maps, &p), &info)
            var edge = rs_edge_info()
            let index = Int64(p.int(8)) - 2
            _ = rs_map_get_edge(pick(h.maps, &p), index, &edge)
            let capacity = p.int(8)
            var text = [CChar](repeating: 0, count: max(1, capacity)), n = 0
            buffer(&text, null: capacity == 0) { ptr in _ = rs_map_edge_source_id(pick(h.maps, &p), index, ptr, capacity, &n) }
            buffer(&text, null: capacity == 0) { ptr in _ = rs_map_edge_name(pick(h.maps, &p), index, ptr, capacity, &n) }
        case 14:
            var r: OpaquePointer?
            if rs_router_create(pick(h.maps, &p), &r) == RS_OK { h.routers.append(r) }
        case 15: _ = rs_router_destroy(pick(h.routers, &p))
        case 16:
            let waypoints = (0..<p.int(4)).map { _ -> rs_waypoint in
                let (la, lo) = p.coordinate()
                return rs_waypoint(latitude: la, longitude: lo, heading: p.double(),
                                   prefer_same_side_of_road: Int32(p.byte() % 3), reserved: Int32(p.byte() % 2))
            }
            var status = rs_route_status(0)
            var route: OpaquePointer?
            if rs_router_route(pick(h.routers, &p), waypoints, waypoints.count, nil, &status, &route) == RS_OK {
                h.routes.append(route)
            }
        case 17:
            var info = rs_route_info()
            _ = rs_route_get_info(pick(h.routes, &p), &info)
            var leg = rs_route_leg_info()
            _ = rs_route_get_leg(pick(h.routes, &p), p.int(3), &leg)
            var step = rs_route_step()
            _ = rs_route_get_step(pick(h.routes, &p), p.int(3), p.int(6), &step)
        case 18: _ = rs_route_close(pick(h.routes, &p))
        case 19:
            let compiled = Array(p.bytes.prefix(p.int(255)))
            var m: OpaquePointer?
            if rs_map_open_memory(compiled, compiled.count, "fuzz", &m) == RS_OK { h.maps.append(m) }
        case 20:
            var t: OpaquePointer?
            if rs_track_open(p.byte() % 2 == 0 ? roadsPath : "", &t) == RS_OK { h.tracks.append(t) }
        case 21:
            var info = rs_track_info()
            _ = rs_track_get_info(pick(h.tracks, &p), &info)
            let capacity = p.int(8)
            var fixes = [rs_fix](repeating: rs_fix(), count: capacity), n = 0
            buffer(&fixes, null: capacity == 0) { ptr in _ = rs_track_get_fixes(pick(h.tracks, &p), p.int(4), ptr, capacity, &n) }
        case 22: _ = rs_track_close(pick(h.tracks, &p))
        default:
            _ = rs_status_name(rs_status(UInt32(bitPattern: Int32(Int8(bitPattern: p.byte())))))
            _ = rs_last_error_message()
        }
    }
    for r in h.routes { _ = rs_route_close(r) }
    for m in h.matches { _ = rs_match_close(m) }
    for m in h.matchers { _ = rs_matcher_destroy(m) }
    for s in h.snappers { _ = rs_snapper_destroy(s) }
    for r in h.routers { _ = rs_router_destroy(r) }
    for t in h.tracks { _ = rs_track_close(t) }
    for m in h.maps where m != fixtureMap { _ = rs_map_close(m) }
}
