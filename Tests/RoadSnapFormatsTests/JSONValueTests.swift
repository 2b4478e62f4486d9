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
