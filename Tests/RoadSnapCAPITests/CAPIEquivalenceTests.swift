import Foundation
import RoadSnapCAPI
import RoadSnapCHeader
import RoadSnapCore
import RoadSnapFormats
import Testing

/// The C API gives the same answers as the Swift API it wraps, on the real sample map and drive.
@Suite struct CAPIEquivalenceTests {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let map = repoRoot.appendingPathComponent("Samples/bellevue-issue147.osm.gz").path
    static let drive = repoRoot.appendingPathComponent("Samples/newson-krumm-bellevue.csv").path

    @Test func mapTrackAndBatchSnapMatchSwift() throws {
        let network = try MapLoader.load(path: Self.map)
        let track = try TrackReader.read(path: Self.drive)
        let snapper = try Snapper(network: network)
        let expected = try snapper.snap(track.fixes)

        var map: OpaquePointer?
        #expect(rs_map_open(Self.map, &map) == RS_OK)
        defer { _ = rs_map_close(map) }
        var info = rs_map_info()
        #expect(rs_map_get_info(map, &info) == RS_OK)
        #expect(info.edge_count == Int64(network.edges.count))
        #expect(info.node_count == Int64(network.nodes.count))

        var ctrack: OpaquePointer?
        #expect(rs_track_open(Self.drive, &ctrack) == RS_OK)
        defer { _ = rs_track_close(ctrack) }
        var tinfo = rs_track_info()
        #expect(rs_track_get_info(ctrack, &tinfo) == RS_OK)
        #expect(tinfo.fix_count == Int64(track.fixes.count))
        var fixes = [rs_fix](repeating: rs_fix(), count: track.fixes.count)
        var copied = 0
        #expect(rs_track_get_fixes(ctrack, 0, &fixes, fixes.count, &copied) == RS_OK)
        #expect(copied == track.fixes.count)
        for (c, f) in zip(fixes, track.fixes) {
            #expect(c.latitude == f.coordinate.latitude && c.longitude == f.coordinate.longitude && c.time == f.time)
        }

        var csnapper: OpaquePointer?
        #expect(rs_snapper_create(map, 0, &csnapper) == RS_OK)
        defer { _ = rs_snapper_destroy(csnapper) }
        var out = [rs_snap_result](repeating: rs_snap_result(), count: fixes.count)
        var snapped = 0
        #expect(rs_snapper_snap_batch(csnapper, fixes, fixes.count, &out, &snapped) == RS_OK)
        #expect(snapped == expected.compactMap { $0 }.count)
        var mismatches = 0
        for (c, s) in zip(out, expected) {
            guard let s else {
                if c.status != Int32(RS_SNAP_NO_ROAD.rawValue) { mismatches += 1 }
                continue
            }
            if c.status != Int32(RS_SNAP_SNAPPED.rawValue) || c.edge != Int64(s.edge) || c.distance != s.distance
                || c.offset != s.offset || c.bearing != s.bearing || c.latitude != s.coordinate.latitude
                || c.longitude != s.coordinate.longitude
            {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test func matchMatchesSwift() throws {
        let network = try MapLoader.load(path: Self.map)
        let track = try TrackReader.read(path: Self.drive)
        let expected = try MapMatcher(network: network).match(track)

        var map: OpaquePointer?, matcher: OpaquePointer?, match: OpaquePointer?
        #expect(rs_map_open(Self.map, &map) == RS_OK)
        defer { _ = rs_map_close(map) }
        #expect(rs_matcher_create(map, nil, &matcher) == RS_OK)
        defer { _ = rs_matcher_destroy(matcher) }
        let fixes = track.fixes.map(rs_fix.init)
        var out = [rs_matched_fix](repeating: rs_matched_fix(), count: fixes.count)
        #expect(rs_matcher_match(matcher, fixes, fixes.count, &out, &match) == RS_OK)
        defer { _ = rs_match_close(match) }

        var info = rs_match_info()
        #expect(rs_match_get_info(match, &info) == RS_OK)
        #expect(info.matched_count == Int64(expected.matchedCount))
        #expect(info.sub_match_count == Int64(expected.subMatches.count))
        var mismatches = 0
        for (c, s) in zip(out, expected.fixes) {
            if let s {
                if c.status != Int32(RS_MATCH_MATCHED.rawValue) || c.edge != Int64(s.edge) || c.offset != s.offset
                    || c.along != s.along || c.sub_match != Int64(s.subMatch) || (c.forward == 1) != s.forward
                {
                    mismatches += 1
                }
            } else if c.status != Int32(RS_MATCH_UNMATCHED.rawValue) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
        for (k, sub) in expected.subMatches.enumerated() {
            var count = 0
            #expect(rs_match_get_edges(match, k, nil, 0, &count) == RS_E_BUFFER_TOO_SMALL)
            var edges = [Int64](repeating: -1, count: count)
            #expect(rs_match_get_edges(match, k, &edges, count, &count) == RS_OK)
            #expect(edges == sub.edges.map(Int64.init))
            var si = rs_sub_match_info()
            #expect(rs_match_get_sub_match(match, k, &si) == RS_OK)
            #expect(si.length == sub.length && si.confidence == sub.confidence)
            #expect(si.first_fix == Int64(sub.firstFix) && si.last_fix == Int64(sub.lastFix))
        }
    }

    @Test func errorsCarryTheSwiftMessage() {
        var map: OpaquePointer?
        let path = "/nonexistent/dir/roads.osm.pbf"
        #expect(rs_map_open(path, &map) == RS_E_IO)
        #expect(map == nil)
        let message = String(cString: rs_last_error_message())
        #expect(message.contains(path))
        #expect(rs_map_get_info(map, nil) == RS_E_INVALID_HANDLE)
        #expect(String(cString: rs_status_name(RS_E_INVALID_HANDLE)) == "RS_E_INVALID_HANDLE")
    }
}
