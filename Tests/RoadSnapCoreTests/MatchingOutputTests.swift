import Foundation
import Testing
import RoadSnapCore
import RoadSnapFormats

/// The four output formats of a match with a dropped outlier and a split.
@Suite struct MatchingOutputTests {
    static func sample() throws -> (MatchResult, Track, RoadNetwork) {
        let map = NodeMap("a b c d\n\n    1", grid: 100)
        let network = try map.network([("abcd", false)])
        let track = map.track("ab1d", times: [0, 1, 2, 3])
        return (try MapMatcher(network: network).match(track), track, network)
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func geojsonHasSubMatchLinesAndFixPoints() throws {
        let (result, track, network) = try Self.sample()
        let doc = try Self.object(MatchOutput.geojson(result, track: track, network: network))
        let features = try #require(doc["features"] as? [[String: Any]])
        #expect(features.count == 1 + 4)
        let line = features[0]
        #expect((line["geometry"] as? [String: Any])?["type"] as? String == "LineString")
        let props = try #require(line["properties"] as? [String: Any])
        #expect(props["edge_ids"] as? [String] == ["abcd"])
        #expect(abs((props["length_m"] as? Double ?? 0) - 600) < 1)
        #expect(props["first_fix"] as? Int == 0 && props["last_fix"] as? Int == 3)
        #expect(props["duration_s"] as? Double == 3)
        let confidence = try #require(props["confidence"] as? Double)
        // The three kept fixes lie on the road and the route is straight: full confidence for them, scaled by the
        // share of the sub-match's fixes that were matched (the outlier is one of four).
        #expect(abs(confidence - 0.75) < 0.01, "\(confidence)")
        let outlier = try #require(features[3]["properties"] as? [String: Any])
        #expect(outlier["fix_index"] as? Int == 2 && outlier["matched"] as? Bool == false)
        #expect(outlier["edge_id"] is NSNull)
        let matched = try #require(features[2]["properties"] as? [String: Any])
        #expect(matched["edge_id"] as? String == "abcd" && matched["matched"] as? Bool == true)
        #expect(abs((matched["offset_m"] as? Double ?? 0) - 200) < 1)
        #expect((matched["distance_m"] as? Double ?? 99) < 0.01)
    }

    @Test func osrmResponseHasNullTracepointForTheOutlier() throws {
        let (result, track, network) = try Self.sample()
        let doc = try Self.object(MatchOutput.osrm(result, track: track, network: network))
        #expect(doc["code"] as? String == "Ok")
        let tracepoints = try #require(doc["tracepoints"] as? [Any])
        #expect(tracepoints.count == 4)
        #expect(tracepoints[2] is NSNull)
        let third = try #require(tracepoints[3] as? [String: Any])
        #expect(third["matchings_index"] as? Int == 0 && third["waypoint_index"] as? Int == 2)
        let matchings = try #require(doc["matchings"] as? [[String: Any]])
        #expect(matchings.count == 1)
        let legs = try #require(matchings[0]["legs"] as? [[String: Any]])
        #expect(legs.count == 2)
        #expect(abs((legs[1]["distance"] as? Double ?? 0) - 400) < 1)
    }

    @Test func csvHasOneRowPerFix() throws {
        let (result, track, network) = try Self.sample()
        let lines = MatchOutput.csv(result, track: track, network: network).split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("fix_index,time,lat,lon,matched"))
        #expect(lines[3].split(separator: ",", omittingEmptySubsequences: false)[4] == "false")
        #expect(lines[4].split(separator: ",", omittingEmptySubsequences: false)[6] == "abcd")
    }

    @Test func gpxIsReadableAsATrack() throws {
        let (result, track, _) = try Self.sample()
        let text = MatchOutput.gpx(result, track: track)
        let back = try TrackReader.read(bytes: Array(text.utf8), name: "matched.gpx", format: .gpx)
        #expect(back.fixes.count == result.subMatches[0].geometry.count)
        #expect(back.fixes.count >= 2)
    }

    @Test func writesAtomically() throws {
        let (result, track, network) = try Self.sample()
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.geojson").path
        try MatchOutput.write(result, track: track, network: network, format: .geojson, to: path)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(names == ["out.geojson"])
        #expect(try MatchedPathReader.edgeIDs(path: path) == ["abcd"])
    }
}
