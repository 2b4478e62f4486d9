import Foundation
import RoadSnapCore
import RoadSnapFormats
import Testing

@Suite struct SnapOutputTests {
    /// The sample drive snapped and written as GeoJSON and CSV: one record per fix, OSM way ids as numbers.
    @Test func sampleDriveRoundTripsThroughBothFormats() throws {
        let network = try TestData.bellevue()
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        let results = try Snapper(network: network).snap(track.fixes)
        let geojson = SnapOutput.render(track: track, results: results, network: network, format: .geojson)
        let doc = try JSONSerialization.jsonObject(with: Data(geojson.utf8)) as? [String: Any]
        let features = try #require(doc?["features"] as? [[String: Any]])
        #expect(features.count == track.fixes.count)
        let first = try #require(features.first?["properties"] as? [String: Any])
        #expect(first["fix_index"] as? Int == 0)
        #expect(first["time"] as? String == "2009-01-17T20:45:25Z")
        let wayID = try #require(first["edge_id"] as? Int64)
        #expect(network.edges[try #require(results[0]).edge].sourceID == .osmWay(wayID))
        let csv = SnapOutput.render(track: track, results: results, network: network, format: .csv)
        let rows = csv.split(separator: "\n")
        #expect(rows.count == track.fixes.count + 1)
        #expect(rows[1].hasPrefix("0,2009-01-17T20:45:25Z,47.58193333,-122.1122667,true,\(wayID),"))
    }
}
