import Foundation
import Testing
import RoadSnapCore
@testable import RoadSnapFormats

/// The direct JSON writer against Foundation's `JSONEncoder` (the slow, obvious reference): same bytes.
@Suite struct JSONValueTests {
    @Test func scalarsAndStringsMatchFoundation() throws {
        let strings = ["", "plain", "quote \" and backslash \\", "slash / stays", "tab\tnew\nline\rcr",
                       "\u{08}\u{0C}\u{01}\u{1F}\u{7F}", "Милана Видака", "日本語 🚗", "I 90 \"E\""]
        let doubles = [0, 1, -1, 0.1, 5.47, 99.688, -122.1712, 47.5779, 1e-7, 2.5e-12, 123456.789, 1e15, 4503599627370497,
                       9007199254740991, 1e21, -3.0e-5, .pi, 1.0 / 3, 1e300, -0.5]
        for s in strings {
            let v: JSONValue = .string(s)
            #expect(v.text() == v.foundationText(), "\(s)")
        }
        for d in doubles {
            let v: JSONValue = .double(d)
            #expect(v.text() == v.foundationText(), "\(d)")
        }
        let mixed: JSONValue = ["b": [1, 2.5, nil, true, false, "x"], "a": ["z": 1, "é": 2, "A": 3, "aa": 4],
                                "n": .int(Int64.min), "m": .int(Int64.max), "nan": .number(Double.nan)]
        #expect(mixed.text() == mixed.foundationText())
    }

    /// The match GeoJSON (written directly, the one path) read back by Foundation: the same bytes when Foundation
    /// writes it again with sorted keys, and every fix's Point saying what the result says.
    static func checkGeoJSON(_ result: MatchResult, _ track: Track, _ network: RoadNetwork) throws {
        let text = MatchOutput.geojson(result, track: track, network: network)
        let doc = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let again = try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys])
        #expect(String(decoding: again, as: UTF8.self) + "\n" == text)
        let features = try #require((doc as? [String: Any])?["features"] as? [[String: Any]])
        #expect(features.count == result.subMatches.count + track.fixes.count)
        for (i, feature) in features.dropFirst(result.subMatches.count).enumerated() {
            let p = try #require(feature["properties"] as? [String: Any])
            let xy = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            #expect((p["fix_index"] as? Int) == MatchOutput.inputRow(track, i))
            #expect((p["time"] as? String != nil) == (track.fixes[i].time != nil))
            if let m = result.fixes[i] {
                #expect(p["matched"] as? Bool == true)
                #expect(abs((p["distance_m"] as? Double ?? .nan) - m.distance) <= 0.0005)
                #expect(abs((p["offset_m"] as? Double ?? .nan) - m.offset) <= 0.0005)
                #expect(p["sub_match"] as? Int == m.subMatch && p["forward"] as? Bool == m.forward)
                #expect("\(p["edge_id"] ?? "")" == network.edges[m.edge].sourceID.description)
                // (Foundation on Linux reads numbers back to within an ulp or two, not exactly)
                #expect(abs(xy[0] - m.coordinate.longitude) < 1e-12 && abs(xy[1] - m.coordinate.latitude) < 1e-12)
            } else {
                #expect(p["matched"] as? Bool == false && p["edge_id"] is NSNull && p["sub_match"] == nil)
                #expect(abs(xy[0] - track.fixes[i].coordinate.longitude) < 1e-12
                        && abs(xy[1] - track.fixes[i].coordinate.latitude) < 1e-12)
            }
        }
    }

    @Test func geoJSONWithUnmatchedFixesAndNoMatch() throws {
        let network = try MapLoader.load(path: FixturePaths.sample("bellevue-issue147.osm.gz"))
        let drive = try TrackReader.read(path: FixturePaths.sample("newson-krumm-bellevue.csv"))
        // Fixes 5 km off the map (unmatched) in the middle, one without a time, and a track with no match at all.
        var fixes = Array(drive.fixes.prefix(60))
        for k in 20..<23 {
            fixes[k].coordinate = GeoCoordinate(uncheckedLatitude: fixes[k].coordinate.latitude + 0.05,
                                                longitude: fixes[k].coordinate.longitude)
        }
        fixes[40].time = nil
        let track = Track(name: "edited", fixes: fixes)
        let result = try MapMatcher(network: network).match(track)
        #expect(result.fixes.contains { $0 == nil })
        try Self.checkGeoJSON(result, track, network)
        let far = Track(name: "far", fixes: Array(fixes[20..<23]))
        let none = try MapMatcher(network: network).match(far)
        #expect(none.subMatches.isEmpty)
        try Self.checkGeoJSON(none, far, network)
    }

    @Test func matchOutputsMatchFoundation() throws {
        let network = try MapLoader.load(path: FixturePaths.sample("bellevue-issue147.osm.gz"))
        let track = try TrackReader.read(path: FixturePaths.sample("newson-krumm-bellevue.csv"))
        let result = try MapMatcher(network: network).match(track)
        try Self.checkGeoJSON(result, track, network)
        let osrm = MatchOutput.osrmDocument(result, track: track, network: network)
        #expect(osrm.text() == osrm.foundationText())
        #expect(MatchOutput.geojson(result, track: track, network: network).count > 100_000)
    }
}
