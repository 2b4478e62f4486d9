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

    @Test func directGeoJSONMatchesTheTreeWithUnmatchedFixesAndNoMatch() throws {
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
        let reference = MatchOutput.geojsonDocument(result, track: track, network: network).foundationText()
        #expect(MatchOutput.geojson(result, track: track, network: network) == reference)
        let far = Track(name: "far", fixes: Array(fixes[20..<23]))
        let none = try MapMatcher(network: network).match(far)
        #expect(none.subMatches.isEmpty)
        #expect(MatchOutput.geojson(none, track: far, network: network)
            == MatchOutput.geojsonDocument(none, track: far, network: network).foundationText())
    }

    @Test func matchOutputsMatchFoundation() throws {
        let network = try MapLoader.load(path: FixturePaths.sample("bellevue-issue147.osm.gz"))
        let track = try TrackReader.read(path: FixturePaths.sample("newson-krumm-bellevue.csv"))
        let result = try MapMatcher(network: network).match(track)
        let geojson = MatchOutput.geojsonDocument(result, track: track, network: network)
        #expect(geojson.text() == geojson.foundationText())
        #expect(MatchOutput.geojson(result, track: track, network: network) == geojson.foundationText())
        let osrm = MatchOutput.osrmDocument(result, track: track, network: network)
        #expect(osrm.text() == osrm.foundationText())
        #expect(geojson.text().count > 100_000)
    }
}

/// `RouteOutput.serialize` (Foundation-free) against `JSONSerialization` with `.sortedKeys`, the writer it replaced.
@Suite struct JSONObjectWriterTests {
    static func reference(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func numbersStringsAndKeyOrderMatchJSONSerialization() throws {
        let doubles: [Double] = [1, 0.1, 12.3, 1e-7, 123456789.1, 1e21, -0.0, 1e15, 1e16, 123456789012345678,
                                 0.30000000000000004, 2.5e-5, 100, 47.644535, -122.1, 1.0 / 3, 9007199254740993, 1e300]
        for d in doubles {
            #expect(try RouteOutput.serialize(["v": d]) == Self.reference(["v": d]), "\(d)")
        }
        let object: [String: Any] = [
            "a/b": "x/y \u{1} \u{1f} \t \n \r é \u{7f} \u{2028} \"q\" \\", "step_number": 3, "steps": [1, 2.5, "s"],
            "distance_m": 1.5, "distance_from_prev_step_m": 2.0, "distance_to_current_step_m": true,
            "time_s": [["shape": "left", "recommended": false]], "time": -1, "leg": 0, "legs": [[Double]](),
            "rounded_distance_from_prev_step_m": 10, "route_changed": false, "edge_ids": ["12", "a"],
        ]
        #expect(try RouteOutput.serialize(object) == Self.reference(object))
    }

    @Test func nullIsWrittenForJSONNull() throws {
        #expect(try RouteOutput.serialize(["a": JSONNull(), "b": [JSONNull()]]) == #"{"a":null,"b":[null]}"#)
        #expect(try Self.reference(["a": NSNull(), "b": [NSNull()]]) == #"{"a":null,"b":[null]}"#)
    }
}
