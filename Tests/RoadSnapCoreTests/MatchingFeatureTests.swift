import Foundation
import Testing
import RoadSnapCore

/// Behaviours of OSRM's matching.feature that apply here, on hand-drawn networks: a node map of characters where
/// each column and row is `grid` metres, ways through named nodes, traces through nodes or extra points.
struct NodeMap {
    var positions: [Character: GeoCoordinate] = [:]

    init(_ text: String, grid: Double) {
        let metresPerDegreeLat = 110_574.0, metresPerDegreeLon = 111_320.0 * cos(1.0 * Double.pi / 180)
        for (row, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for (col, ch) in line.enumerated() where ch != " " && (ch.isLetter || ch.isNumber) {
                positions[ch] = GeoCoordinate(uncheckedLatitude: 1 - Double(row) * grid / metresPerDegreeLat,
                                              longitude: 1 + Double(col) * grid / metresPerDegreeLon)
            }
        }
    }

    /// A network of ways given as node strings, e.g. ("abcd", oneway: false); source id = the way's node string.
    func network(_ ways: [(String, Bool)]) throws -> RoadNetwork {
        let roadWays = ways.map { w in
            RoadWay(sourceID: .string(w.0), coordinates: w.0.compactMap { positions[$0] },
                    direction: w.1 ? .forward : .both, attributes: RoadAttributes(roadClass: .residential))
        }
        return try RoadNetwork(ways: roadWays, sourceName: "node map")
    }

    func track(_ trace: String, times: [Double]? = nil) -> Track {
        let fixes = trace.enumerated().compactMap { i, ch in
            positions[ch].map { Fix(coordinate: $0, time: times?[i]) }
        }
        return Track(name: trace, fixes: fixes)
    }
}

/// Checks that `MatchParameters.validate` refuses each value of `refused` for one parameter and accepts `accepted`.
func expectValidated(_ parameter: WritableKeyPath<MatchParameters, Double>, refuses refused: [Double],
                     accepts accepted: Double, sourceLocation: SourceLocation = #_sourceLocation) throws {
    var parameters = MatchParameters()
    for value in refused {
        parameters[keyPath: parameter] = value
        #expect(throws: RoadSnapError.self, "\(value)", sourceLocation: sourceLocation) { try parameters.validate() }
    }
    parameters[keyPath: parameter] = accepted
    try parameters.validate()
}

/// The node string traversed by each sub-match: a sub-match's way ids joined by ",".
func wayIDs(_ result: MatchResult, _ network: RoadNetwork) -> [String] {
    result.subMatches.map { s in result.edgeSourceIDs(of: s, in: network).map(\.description).joined(separator: ",") }
}

@Suite struct MatchingFeatureTests {
    @Test func outlierWithoutCandidateIsDropped() throws {
        let map = NodeMap("a b c d\n\n    1", grid: 100)
        let network = try map.network([("abcd", false)])
        let result = try MapMatcher(network: network).match(map.track("ab1d", times: [0, 1, 2, 3]))
        #expect(result.subMatches.count == 1)
        #expect(result.fixes[2] == nil)
        #expect(result.fixes[0] != nil && result.fixes[1] != nil && result.fixes[3] != nil)
        #expect(result.subMatches.first?.firstFix == 0 && result.subMatches.first?.lastFix == 3)
    }

    @Test func roadDrawnOncePerDirectionCountsAsOneCandidate() throws {
        // One road as two one-way edges (as in networks of directed arcs): with a single candidate road allowed,
        // both directions are still states, so a trace against the first-drawn edge lands on its twin.
        let map = NodeMap("a 1 b 2 c", grid: 20)
        let network = try map.network([("abc", true), ("cba", true)])
        var parameters = MatchParameters()
        parameters.maxCandidates = 1
        let result = try MapMatcher(network: network, parameters: parameters).match(map.track("21", times: [0, 4]))
        #expect(wayIDs(result, network) == ["cba"])
        #expect(result.fixes.allSatisfy { $0 != nil })
    }

    @Test func heldFixesKeepUpWithTheVehicle() throws {
        // Crawling at 2 m/s with a fix a second: most fixes are within 2 sigma of the last scored one and are not
        // scored, yet each is placed at its own spot on the road, in driving order, not on the scored fix's spot.
        let map = NodeMap("a         b", grid: 20)
        let network = try map.network([("ab", false)])
        let a = map.positions["a"]!, b = map.positions["b"]!
        let fixes = (0...50).map { i -> Fix in
            let u = Double(i) * 2 / 200
            return Fix(coordinate: GeoCoordinate(uncheckedLatitude: a.latitude + u * (b.latitude - a.latitude),
                                                 longitude: a.longitude + u * (b.longitude - a.longitude)),
                       time: Double(i))
        }
        let result = try MapMatcher(network: network).match(Track(name: "crawl", fixes: fixes))
        let placed = result.fixes.prefix(45).map { $0! }
        #expect(zip(placed, placed.dropFirst()).allSatisfy { $0.along < $1.along })
        #expect(placed.allSatisfy { $0.distance < 0.5 }, "\(placed.map(\.distance).max() ?? 0)")
        #expect(abs(placed[44].along - placed[0].along - 88) < 1)
    }

    @Test func timeGapSplitsTheTrace() throws {
        let map = NodeMap("a b c d\n    e", grid: 10)
        let network = try map.network([("abcd", false)])
        let result = try MapMatcher(network: network).match(map.track("abcd", times: [0, 1, 62, 63]))
        #expect(result.subMatches.count == 2)
        #expect(result.subMatches.map(\.firstFix) == [0, 2])
        #expect(result.fixes.map { $0?.subMatch } == [0, 0, 1, 1])
    }

    @Test func withoutTimesThereIsNoTimeSplit() throws {
        let map = NodeMap("a b c d", grid: 10)
        let network = try map.network([("abcd", false)])
        let result = try MapMatcher(network: network).match(map.track("abcd"))
        #expect(result.subMatches.count == 1)
        #expect(result.matchedCount == 4)
    }

    @Test func oneWayIsMatchedOnlyInItsDirection() throws {
        let map = NodeMap("a b c d\ne f g h", grid: 10)
        let network = try map.network([("abcd", true), ("hgfe", true)])
        let result = try MapMatcher(network: network).match(map.track("dcba"))
        #expect(wayIDs(result, network) == ["hgfe"])
        let forward = try MapMatcher(network: network).match(map.track("abcd"))
        #expect(wayIDs(forward, network) == ["abcd"])
    }

    @Test func splitOneWaysAreFollowedInOrder() throws {
        let map = NodeMap("a b c d\ne f g h", grid: 10)
        let network = try map.network([("ab", true), ("bc", true), ("cd", true), ("hg", true), ("gf", true),
                                       ("fe", true)])
        #expect(wayIDs(try MapMatcher(network: network).match(map.track("dcba")), network) == ["hg,gf,fe"])
        #expect(wayIDs(try MapMatcher(network: network).match(map.track("efgh")), network) == ["ab,bc,cd"])
    }

    @Test func implausibleSpeedSplits() throws {
        let map = NodeMap("a b ---- x\n         |\n         |\n         y --- c d", grid: 100)
        let network = try map.network([("abxycd", false)])
        let result = try MapMatcher(network: network).match(map.track("abcd", times: [0, 1, 2, 3]))
        #expect(result.subMatches.count == 2)
        #expect(result.subMatches.map(\.firstFix) == [0, 2])
        let straight = NodeMap("a b c d", grid: 100)
        let line = try straight.network([("abcd", false)])
        #expect(try MapMatcher(network: line).match(straight.track("abcd", times: [0, 1, 2, 3])).subMatches.count == 1)
    }

    @Test func cleanTraceHasFullConfidence() throws {
        let map = NodeMap("a b c d", grid: 10)
        let network = try map.network([("abcd", false)])
        let result = try MapMatcher(network: network).match(map.track("abcd"))
        let c = try #require(result.subMatches.first).confidence
        #expect(abs(c - 1) <= 0.05)
        #expect(abs(try #require(result.subMatches.first).length - 60) < 0.5)
    }

    @Test func turnOffAtJunction() throws {
        let map = NodeMap("a b c\n  d", grid: 10)
        let network = try map.network([("abc", false), ("bd", false)])
        let result = try MapMatcher(network: network).match(map.track("abd"))
        #expect(result.subMatches.count == 1)
        let ids = wayIDs(result, network).first?.split(separator: ",").map(String.init)
        #expect(ids == ["abc", "bd"])
    }

    @Test func stationaryFixesMakeNoLoop() throws {
        let map = NodeMap("a b c d e f", grid: 20)
        let network = try map.network([("abcdef", false)])
        let b = try #require(map.positions["b"]), c = try #require(map.positions["c"]), d = try #require(map.positions["d"])
        // Standing at c with jitter back and forth along the road, then driving on.
        var fixes = [Fix(coordinate: b), Fix(coordinate: c)]
        for k in 0..<10 {
            let jitter = (k % 2 == 0 ? -1.0 : 1.0) * 3e-5  // about 3 m in longitude
            fixes.append(Fix(coordinate: GeoCoordinate(uncheckedLatitude: c.latitude, longitude: c.longitude + jitter)))
        }
        fixes.append(Fix(coordinate: d))
        let result = try MapMatcher(network: network).match(Track(name: "stop", fixes: fixes))
        #expect(result.subMatches.count == 1)
        let sub = try #require(result.subMatches.first)
        #expect(sub.arcs.count == 1)  // one edge, one direction: no U-turns
        #expect(abs(sub.length - 80) < 8)
    }

    @Test func uTurnOnlyWhenTheTrackReverses() throws {
        let map = NodeMap("a b c d e f g", grid: 20)
        let network = try map.network([("abcdefg", false)])
        let there = try MapMatcher(network: network).match(map.track("bcdef"))
        #expect(try #require(there.subMatches.first).arcs.count == 1)
        let back = try MapMatcher(network: network).match(map.track("bcdefedcb"))
        let sub = try #require(back.subMatches.first)
        #expect(back.subMatches.count == 1)
        #expect(sub.arcs.count == 2)  // out and back on the same edge
        #expect(abs(sub.length - 320) < 10)
    }

    @Test func uTurnReachesTheFurthestFix() throws {
        // Out along a 90 m road to 58 m and back, one fix a second: the fixes near the turn (55, 58, 55, 50, 45 m)
        // are within 2 sigma of the last scored one (50 m) and are held, not scored, so the scored fixes show a
        // U-turn in place between 50 m and 40 m. The driven path must still reach 58 m before turning.
        let map = NodeMap("a        j", grid: 10)
        let network = try map.network([("aj", false)])
        let a = try #require(map.positions["a"])
        let metresPerDegreeLon = 111_320.0 * cos(1.0 * Double.pi / 180)
        let along: [Double] = [10, 20, 30, 40, 50, 55, 58, 55, 50, 45, 40, 30, 20, 10]
        let fixes = along.enumerated().map { i, x in
            Fix(coordinate: GeoCoordinate(uncheckedLatitude: a.latitude, longitude: a.longitude + x / metresPerDegreeLon),
                time: Double(i))
        }
        let result = try MapMatcher(network: network).match(Track(name: "u-turn", fixes: fixes))
        #expect(result.subMatches.count == 1)
        let sub = try #require(result.subMatches.first)
        #expect(sub.arcs.count == 2)
        #expect(abs(sub.length - 96) < 3, "length \(sub.length)")  // 10 -> 58 -> 10
        // the fix at the turn is placed at the turn, not back at 50 m
        let turn = try #require(result.fixes[6])
        #expect(abs(turn.along - 48) < 3, "along \(turn.along)")
    }
}

@Suite struct MatchingTurnRestrictionTests {
    /// A T junction at c: way 1 runs from the west to c, way 3 on east from c, way 2 from c north; a no_left_turn from
    /// way 1 onto way 2 (OSM requires from and to ways to end at the via node).
    static func crossroads(restricted: Bool) throws -> (RoadNetwork, NodeMap) {
        let map = NodeMap("    n\n\n\n\nw   c   e", grid: 25)
        guard let w = map.positions["w"], let c = map.positions["c"], let e = map.positions["e"],
              let n = map.positions["n"] else { throw RoadSnapError.internalError("node map") }
        let attrs = RoadAttributes(roadClass: .residential)
        let ways = [
            RoadWay(sourceID: .osmWay(1), coordinates: [w, c], nodeKeys: [10, 20], direction: .both, attributes: attrs),
            RoadWay(sourceID: .osmWay(3), coordinates: [c, e], nodeKeys: [20, 30], direction: .both, attributes: attrs),
            RoadWay(sourceID: .osmWay(2), coordinates: [c, n], nodeKeys: [20, 40], direction: .both, attributes: attrs),
        ]
        let restrictions = restricted
            ? [WayTurnRestriction(fromWay: 1, viaNodeKey: 20, toWay: 2, restriction: "no_left_turn")] : []
        return (try RoadNetwork(ways: ways, restrictions: restrictions, sourceName: "crossroads"), map)
    }

    /// Whether some sub-match drives from way 1 (from the west) onto way 2.
    static func turnsLeft(_ result: MatchResult, _ network: RoadNetwork) -> Bool {
        result.subMatches.contains { sub in
            zip(sub.edges, sub.edges.dropFirst()).contains { a, b in
                network.edges[a].sourceID == .osmWay(1) && network.edges[b].sourceID == .osmWay(2)
                    && network.nodeKeys[network.edges[a].fromNode] == 10
            }
        }
    }

    @Test func allowedTurnIsMatched() throws {
        let (network, map) = try Self.crossroads(restricted: false)
        let result = try MapMatcher(network: network).match(map.track("wcn", times: [0, 10, 20]))
        #expect(result.subMatches.count == 1)
        #expect(Self.turnsLeft(result, network))
    }

    @Test func forbiddenTurnIsNeverMatched() throws {
        let (network, map) = try Self.crossroads(restricted: true)
        #expect(!network.turnRestrictions.isEmpty)
        let graph = try MatchGraph(network: network)
        let west = try #require(network.edges.indices.first { network.nodeKeys[network.edges[$0].fromNode] == 10 })
        let north = try #require(network.edges.indices.first { network.edges[$0].sourceID == .osmWay(2) })
        let northArc = RoadGraph.arc(edge: north, forward: network.nodeKeys[network.edges[north].fromNode] == 20)
        #expect(!graph.isTurnAllowed(from: RoadGraph.arc(edge: west, forward: true), to: northArc))
        let result = try MapMatcher(network: network, graph: graph).match(map.track("wcn", times: [0, 10, 20]))
        #expect(!Self.turnsLeft(result, network))
        // Not by matching nothing: every fix is still on its road, the track split where the turn is forbidden (or
        // driven round by the east arm), and no sub-match is empty.
        #expect(result.fixes.allSatisfy { $0 != nil })
        let ways = result.fixes.map { $0.map { network.edges[$0.edge].sourceID } }
        #expect(ways == [.osmWay(1), .osmWay(1), .osmWay(2)] || ways == [.osmWay(1), .osmWay(3), .osmWay(2)],
                "\(ways)")
        #expect(!result.subMatches.isEmpty && result.subMatches.allSatisfy { !$0.edges.isEmpty })
    }
}

/// The routing graph's turn check (Swift, `RoadGraph`) and the matcher's (C, `rsc_match_turn_allowed`) agree on every
/// turn at every via node of a restriction and at 3,000 random junctions, on two real extracts (issue 18).
@Suite struct TurnRestrictionAgreementTests {
    @Test(arguments: ["osm/monaco.osm.pbf", "bellevue"])  // the other extracts hold no restrictions
    func swiftAndCAgree(map: String) throws {
        let network = map == "bellevue" ? try TestData.bellevue() : try RoadNetwork.load(osmPath: TestData.fixture(map))
        let g = network.graph
        let matchGraph = try MatchGraph(network: network)
        var nodes = Set(g.restrictionVia.map(Int.init))
        #expect(!nodes.isEmpty)
        var rng = SeededGenerator(seed: 99)
        for _ in 0..<3_000 { nodes.insert(Int.random(in: 0..<g.nodeCount, using: &rng)) }
        var turns = 0, forbidden = 0, disagreements: [String] = []
        for n in nodes {
            for i in Int(g.inStart[n])..<Int(g.inStart[n + 1]) {
                for o in Int(g.outStart[n])..<Int(g.outStart[n + 1]) {
                    let from = Int(g.inArcs[i]), to = Int(g.outArcs[o])
                    let swift = g.isTurnAllowed(from: from, to: to), c = matchGraph.isTurnAllowed(from: from, to: to)
                    turns += 1
                    if !swift { forbidden += 1 }
                    if swift != c { disagreements.append("\(from)->\(to) at node \(n): Swift \(swift), C \(c)") }
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
        #expect(forbidden > 0 && turns > 3_000, "\(forbidden) forbidden of \(turns)")
    }
}
