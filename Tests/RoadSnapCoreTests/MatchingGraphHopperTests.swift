import Foundation
import Testing
import RoadSnapCore
import RoadSnapFormats

/// GraphHopper's map-matching expectations runnable with the data here (Fixtures/graphhopper/EXPECTATIONS.md).
@Suite struct MatchingGraphHopperTests {
    /// Street names along the matched path, consecutive repeats collapsed (GraphHopper's "streets"): the name, or the
    /// ref where a road has no name.
    static func streets(_ result: MatchResult, _ network: RoadNetwork) -> [String] {
        var out: [String] = []
        for sub in result.subMatches {
            for e in sub.edges {
                let a = network.edges[e].attributes
                guard let name = a.name ?? a.ref else { continue }
                if out.last != name { out.append(name) }
            }
        }
        return out
    }

    static func match(_ gpx: String, _ map: String) throws -> (MatchResult, RoadNetwork) {
        let network = map == TestData.bellevueMap ? try TestData.bellevue() : try RoadNetwork.load(osmPath: map)
        let track = try TrackReader.read(path: TestData.fixture("graphhopper/\(gpx)"))
        return (try MapMatcher(network: network).match(track), network)
    }

    @Test func issue70StreetSequence() throws {
        let (result, network) = try Self.match("issue-70.gpx", TestData.fixture("osm/issue-70.osm.gz"))
        #expect(result.subMatches.count == 1)
        #expect(Self.streets(result, network) == ["Милана Видака", "Бранка Радичевића", "Здравка Челара"])
    }

    @Test func issue147StaysOnTheMotorway() throws {
        let (result, network) = try Self.match("issue-147.gpx", TestData.bellevueMap)
        #expect(result.subMatches.count == 1)
        let sub = try #require(result.subMatches.first)
        let refs = Set(sub.edges.map { network.edges[$0].attributes.ref ?? network.edges[$0].attributes.name ?? "" })
        #expect(refs == ["I 90"], "roads used: \(refs)")
        #expect(abs(sub.length - 3047) < 30, "length \(sub.length)")
    }

    @Test func issue13MatchLengthFollowsTheTrack() throws {
        let (result, _) = try Self.match("issue-13.gpx", TestData.fixture("osm/map-issue13.osm.gz"))
        let track = try TrackReader.read(path: TestData.fixture("graphhopper/issue-13.gpx"))
        var gpxLength = 0.0
        for i in 1..<track.fixes.count { gpxLength += track.fixes[i - 1].coordinate.distance(to: track.fixes[i].coordinate) }
        #expect(result.subMatches.count == 1)
        let length = result.subMatches.reduce(0) { $0 + $1.length }
        #expect(abs(length - gpxLength) / gpxLength < 0.05, "match \(length) m, GPX \(gpxLength) m")
    }

    @Test func issue127TwoIdenticalPoints() throws {
        let (result, _) = try Self.match("issue-127.gpx", TestData.fixture("osm/map-issue13.osm.gz"))
        #expect(result.subMatches.count == 1)
        #expect(result.matchedCount == 2)
        #expect(try #require(result.subMatches.first).length < 1)
    }
}
