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

    /// `rs_match_render` and `rs_match_write_file` against what `roadsnap match --format F` does (read the track,
    /// match with the default parameters, `MatchOutput.render` / `MatchOutput.write`), byte for byte, in every format;
    /// invalid fixes among the caller's leave the outputs as those of the valid fixes alone.
    @Test func resultWritersMatchTheCLIOutputs() throws {
        let network = try MapLoader.load(path: Self.map)
        let track = try TrackReader.read(path: Self.drive)
        let expected = try MapMatcher(network: network).match(track)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rs-writers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }

        var map: OpaquePointer?, matcher: OpaquePointer?
        #expect(rs_map_open(Self.map, &map) == RS_OK)
        defer { _ = rs_map_close(map) }
        #expect(rs_matcher_create(map, nil, &matcher) == RS_OK)
        defer { _ = rs_matcher_destroy(matcher) }
        let fixes = track.fixes.map(rs_fix.init)
        let invalid = rs_fix(latitude: .nan, longitude: 7, time: .nan, course: .nan, speed: .nan, altitude: .nan,
                             accuracy: .nan)
        let withInvalid = [invalid] + fixes[..<500] + [invalid, invalid] + fixes[500...]
        let pairs: [(MatchOutput.Format, rs_output_format)] = [(.geojson, RS_OUTPUT_GEOJSON), (.csv, RS_OUTPUT_CSV),
                                                               (.gpx, RS_OUTPUT_GPX), (.osrm, RS_OUTPUT_OSRM)]
        for (run, given) in [fixes, withInvalid].enumerated() {
            var match: OpaquePointer?
            #expect(rs_matcher_match(matcher, given, given.count, nil, &match) == RS_OK)
            defer { _ = rs_match_close(match) }
            for (format, cFormat) in pairs {
                var text = MatchOutput.render(expected, track: track, network: network, format: format)
                if format == .gpx {  // the one documented difference: the CLI names the GPX track after its file
                    let cliName = "<name>\(Self.drive) (matched)</name>"
                    #expect(text.contains(cliName))
                    text = text.replacingOccurrences(of: cliName, with: "<name>rs_matcher_match (matched)</name>")
                }
                let want = Array(text.utf8)
                var length = 0
                #expect(rs_match_render(match, cFormat, nil, 0, &length) == RS_E_BUFFER_TOO_SMALL)
                #expect(length == want.count)
                var buffer = [CChar](repeating: 1, count: length + 1)
                #expect(rs_match_render(match, cFormat, &buffer, buffer.count, &length) == RS_OK)
                #expect(buffer[length] == 0)
                // Compared as a Bool: a failed #expect on two large arrays spends minutes on their difference.
                let sameText = buffer[..<length].map { UInt8(bitPattern: $0) } == want
                #expect(sameText, "\(format) text, run \(run)")

                let written = dir.appendingPathComponent("c-\(run).\(format.fileExtension)").path
                let reference = dir.appendingPathComponent("swift-\(run).\(format.fileExtension)").path
                #expect(rs_match_write_file(match, cFormat, written) == RS_OK)
                try MatchOutput.write(expected, track: Track(name: "rs_matcher_match", fixes: track.fixes),
                                      network: network, format: format, to: reference)
                let file = try #require(FileManager.default.contents(atPath: written))
                let sameFile = Array(file) == want, sameAsSwift = FileManager.default.contents(atPath: reference) == file
                #expect(sameFile, "\(format) file, run \(run)")
                #expect(sameAsSwift, "\(format) file, run \(run), against MatchOutput.write")
            }
        }
        // Nothing else in the directory: no temporary file left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(names.count == 2 * 2 * pairs.count)
        #expect(!names.contains { $0.hasSuffix(".tmp") })
    }

    @Test func routeMatchesSwift() throws {
        let fixtures = Self.repoRoot.appendingPathComponent("Tests/RoadSnapCoreTests/Fixtures")
        let mapPath = fixtures.appendingPathComponent("osm/issue-70.osm.gz").path
        let track = try TrackReader.read(path: fixtures.appendingPathComponent("graphhopper/issue-70.gpx").path)
        let ends = [track.fixes[0], track.fixes[track.fixes.count - 1]]
        let expected = try #require(Router(network: MapLoader.load(path: mapPath))
            .route(RouteRequest(waypoints: ends.map { Waypoint(coordinate: $0.coordinate) })).route)

        var map: OpaquePointer?, router: OpaquePointer?, route: OpaquePointer?
        #expect(rs_map_open(mapPath, &map) == RS_OK)
        defer { _ = rs_map_close(map) }
        #expect(rs_router_create(map, &router) == RS_OK)
        defer { _ = rs_router_destroy(router) }
        let waypoints = ends.map {
            rs_waypoint(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude, heading: .nan,
                        prefer_same_side_of_road: 0, reserved: 0)
        }
        var status = RS_ROUTE_INTERNAL_ERROR
        #expect(rs_router_route(router, waypoints, 2, nil, &status, &route) == RS_OK)
        defer { _ = rs_route_close(route) }
        #expect(status == RS_ROUTE_OK)
        var info = rs_route_info()
        #expect(rs_route_get_info(route, &info) == RS_OK)
        #expect(info.distance == expected.distance && info.duration == expected.duration)
        let leg = expected.legs[0]
        var legInfo = rs_route_leg_info()
        #expect(rs_route_get_leg(route, 0, &legInfo) == RS_OK)
        #expect(legInfo.step_count == Int64(leg.steps.count))
        for (k, step) in leg.steps.enumerated() {
            var c = rs_route_step()
            #expect(rs_route_get_step(route, 0, k, &c) == RS_OK)
            #expect(String(cString: c.maneuver) == step.maneuver.rawValue)
            #expect(c.distance_from_previous == step.distanceFromPreviousStep)
            var text = [CChar](repeating: 0, count: 512)
            #expect(rs_route_step_text(route, 0, k, RS_STEP_INSTRUCTION, &text, text.count, nil) == RS_OK)
            #expect(String(cString: text) == step.instruction)
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
