import Foundation
import Testing
@testable import RoadSnapCore

/// Sparse fixes on hand-drawn networks (issue 12, "sparse mountain roads where OSRM leads"): the path between two
/// matched fixes follows the quicker road where the map has speeds, and a winding road that runs several times the
/// straight distance between two fixes on it a minute apart is still reachable.
@Suite struct MatchingQuickestRouteTests {
    /// A point `x` metres east and `y` metres north of (1, 1).
    static func at(_ x: Double, _ y: Double) -> GeoCoordinate {
        GeoCoordinate(uncheckedLatitude: 1 + y / 110_574.0, longitude: 1 + x / (111_320.0 * cos(1.0 * Double.pi / 180)))
    }

    static func way(_ name: String, _ points: [(Double, Double)], _ roadClass: RoadClass) -> RoadWay {
        RoadWay(sourceID: .string(name), coordinates: points.map { at($0.0, $0.1) }, direction: .both,
                attributes: RoadAttributes(roadClass: roadClass))
    }

    static func names(_ result: MatchResult, _ network: RoadNetwork) -> [String] {
        result.subMatches.flatMap { $0.edges.map { network.edges[$0].sourceID.description } }
    }

    /// From w to e: a 1,000 m residential lane straight from a to b, and a main road of `mainClass` bulging 250 m
    /// north around it (1,338 m); two fixes 80 s apart on the approach roads.
    static func bypass(mainClass: RoadClass) throws -> (RoadNetwork, Track) {
        let network = try RoadNetwork(ways: [
            way("approach west", [(-300, 0), (0, 0)], .residential),
            way("lane", [(0, 0), (500, 0), (1000, 0)], .residential),
            way("main road", [(0, 0), (100, 250), (900, 250), (1000, 0)], mainClass),
            way("approach east", [(1000, 0), (1300, 0)], .residential),
        ], sourceName: "bypass")
        let track = Track(name: "bypass", fixes: [Fix(coordinate: at(-100, 2), time: 0),
                                                  Fix(coordinate: at(1100, -2), time: 80)])
        return (network, track)
    }

    @Test func thePathBetweenSparseFixesTakesTheQuickerRoad() throws {
        let (network, track) = try Self.bypass(mainClass: .primary)  // 65 km/h: 74 s against the lane's 144 s
        let result = try MapMatcher(network: network).match(track)
        #expect(result.matchedCount == 2 && result.subMatches.count == 1)
        let names = Self.names(result, network)
        #expect(names.contains("main road") && !names.contains("lane"), "\(names)")
        #expect(abs(try #require(result.subMatches.first).length - 1538) < 5)
        // The fixes are matched where they were either way: only the path between them changed.
        let (same, _) = try Self.bypass(mainClass: .residential)
        let shortest = try MapMatcher(network: same).match(track)
        #expect(shortest.fixes.map { $0?.distance } == result.fixes.map { $0?.distance })
    }

    @Test func theQuickerRoadMayLoopBeyondTheSearchBound() throws {
        // A 400 m living street (10 km/h, 144 s) and a primary road looping 800 m north around it (2,000 m, 111 s);
        // two fixes 150 s apart on the approaches, 600 m apart: the loop (2,200 m between them) is beyond the
        // transition searches' bound (3 × 600 m) but within what a car drives in 150 s, and quicker.
        let network = try RoadNetwork(ways: [
            Self.way("approach west", [(-300, 0), (0, 0)], .residential),
            Self.way("lane", [(0, 0), (200, 0), (400, 0)], .livingStreet),
            Self.way("main road", [(0, 0), (0, 800), (400, 800), (400, 0)], .primary),
            Self.way("approach east", [(400, 0), (700, 0)], .residential),
        ], sourceName: "loop")
        let fixes = [Fix(coordinate: Self.at(-100, 2), time: 0), Fix(coordinate: Self.at(500, -2), time: 150)]
        let result = try MapMatcher(network: network).match(Track(name: "loop", fixes: fixes))
        #expect(result.matchedCount == 2 && result.subMatches.count == 1)
        let names = Self.names(result, network)
        #expect(names.contains("main road") && !names.contains("lane"), "\(names)")
        #expect(abs(try #require(result.subMatches.first).length - 2200) < 5)
        // Without times nothing says the car had the time: the path stays within the searches' bound.
        let untimed = fixes.map { Fix(coordinate: $0.coordinate) }
        let without = try MapMatcher(network: network).match(Track(name: "loop", fixes: untimed))
        #expect(Self.names(without, network).contains("lane"))
    }

    @Test func roadsOfOneSpeedKeepTheShortestPath() throws {
        let (network, track) = try Self.bypass(mainClass: .residential)
        let result = try MapMatcher(network: network).match(track)
        let names = Self.names(result, network)
        #expect(names.contains("lane") && !names.contains("main road"), "\(names)")
        #expect(abs(try #require(result.subMatches.first).length - 1200) < 5)
    }

    /// A road climbing in hairpins: 6 legs 140 m across and 25 m apart, 853 m for 150 m as the crow flies.
    static let hairpins: [(Double, Double)] = [(0, 0), (140, 25), (0, 50), (140, 75), (0, 100), (140, 125), (0, 150)]

    @Test func aWindingRoadBetweenTwoFixesOnItIsReachable() throws {
        // Two fixes 60 s apart on the winding road itself: a move along one arc of 822 m for 143 m straight, beyond
        // the route searches' bound (3 times the straight distance) but well within what a car drives in 60 s.
        let network = try RoadNetwork(ways: [Self.way("hairpins", Self.hairpins, .tertiary)], sourceName: "hairpins")
        let fixes = [Fix(coordinate: Self.at(15, 4), time: 0), Fix(coordinate: Self.at(15, 147), time: 60)]
        let result = try MapMatcher(network: network).match(Track(name: "hairpins", fixes: fixes))
        #expect(result.matchedCount == 2, "\(result.fixes)")
        #expect(result.subMatches.count == 1)
        let length = result.subMatches.first?.length ?? 0
        #expect(abs(length - (853.3 - 15.5 - 15.3)) < 10, "\(length)")
        // Without times nothing says the car had a minute: the bound of the searches applies.
        let untimed = fixes.map { Fix(coordinate: $0.coordinate) }
        let without = try MapMatcher(network: network).match(Track(name: "hairpins", fixes: untimed))
        #expect(without.subMatches.count != 1 || without.matchedCount < 2)
    }
}
