import Testing
import RoadSnapCore
@testable import RoadSnapFormats

@Suite struct GeoJSONTrackReaderTests {
    /// Same times and positions to 1e-12 degrees (Foundation's JSON number parsing may differ from `Double(String)`
    /// in the last bit).
    func sameFixes(_ a: [Fix], _ b: [Fix]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            x.time == y.time && abs(x.coordinate.latitude - y.coordinate.latitude) < 1e-12
                && abs(x.coordinate.longitude - y.coordinate.longitude) < 1e-12
        }
    }

    @Test func barefootLineStringWithCoordTimesEqualsTheBarefootSamples() throws {
        let line = try TrackReader.read(path: FixturePaths.fixture("geojson/barefoot-x0001-001.geojson"))
        let samples = try TrackReader.read(path: FixturePaths.fixture("barefoot/x0001-001.json"))
        #expect(line.fixes.count == 1194)
        #expect(line.skipped.isEmpty && samples.skipped.isEmpty)
        #expect(line.segmentStarts == [0])
        #expect(sameFixes(line.fixes, samples.fixes))
        // 2014-09-10 06:54:07+0200 .. 07:14:02+0200
        #expect(line.fixes.first?.time == 1_410_324_847)
        #expect(line.fixes.last?.time == 1_410_326_042)
        #expect(abs(line.fixes[0].coordinate.longitude - 11.564388282625075) < 1e-12)
        #expect(line.sourceLines.prefix(3) == [1, 2, 3])
    }

    @Test func pointFeaturesAreSortedByTime() throws {
        let points = try TrackReader.read(path: FixturePaths.fixture("geojson/barefoot-x0001-015-points.geojson"))
        let samples = try TrackReader.read(path: FixturePaths.fixture("barefoot/x0001-015.json"))
        #expect(points.fixes.count == 80)
        #expect(sameFixes(points.fixes, samples.fixes))
        #expect(points.fixes.first?.time == 1_410_324_847)
        // Written in reverse order: the first fix is the last record.
        #expect(points.sourceLines.first == 80)
        let times = points.fixes.compactMap(\.time)
        #expect(times == times.sorted())
    }

    @Test func badCoordinatesAndGeometriesAreSkipped() throws {
        let json = """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"times": [1232225125, 1232225126000, "2009-01-17T20:45:27Z", 4]},
               "geometry": {"type": "LineString", "coordinates": [[-122.1, 47.5, 30], [-122.2, 47.6], [200, 47.6], [-122.3, 47.7]]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": []}},
              {"type": "Feature", "properties": {"time": "2009-01-17T20:46:00Z", "speed": 3, "heading": -90},
               "geometry": {"type": "Point", "coordinates": [-122.4, 47.8]}}
            ]}
            """
        let track = try TrackReader.read(bytes: Array(json.utf8), name: "mixed.geojson", format: nil)
        #expect(track.fixes.count == 4)
        #expect(track.fixes.map(\.time) == [1_232_225_125, 1_232_225_126, 4, 1_232_225_160])
        #expect(track.fixes[0].altitude == 30)
        #expect(track.fixes[3].speed == 3 && track.fixes[3].course == 270)
        #expect(track.segmentStarts == [0, 3])
        #expect(track.sourceLines == [1, 2, 4, 5])
        #expect(track.skipped.count == 2)
        #expect(track.skipped[0].description.contains("feature 0 coordinate 2 (record 3): longitude 200.0 out of range"))
        #expect(track.skipped[1].description.contains("Polygon is not a track"))
    }

    @Test func invalidJSONNamesTheFile() throws {
        let error = try #require(trackError { () throws(RoadSnapError) in
            try TrackReader.read(bytes: Array("{\"type\": \"Feature\", ".utf8), name: "cut.geojson", format: nil)
        })
        #expect(error.description.hasPrefix("cut.geojson: not valid JSON"))
        let network = try #require(trackError { () throws(RoadSnapError) in
            try TrackReader.read(bytes: Array("{\"type\": \"Topology\"}".utf8), name: "t.json", format: nil)
        })
        #expect(network.description == "t.json: GeoJSON type \"Topology\" is not a track")
    }
}
