import Testing
import RoadSnapCore

/// Turn costs in the matching route searches (`MatchParameters.turnCost`, `CShims/match_route.c`), on a hand-drawn
/// block of 20 m squares: from a to z two routes are 80 m long, the L (a b c d z: it goes straight on at b and turns
/// at c, where nothing goes straight on) and the staircase (a b e d z: it leaves the road at b, which goes on to c).
///
///           z
///           |
///     e --- d
///     |     |
/// a - b --- c     (each side 20 m, every road one way: east or north)
@Suite struct MatchingTurnCostTests {
    /// Grid 10 m with blank rows and columns between: each drawn step is 20 m.
    let map = NodeMap("    z\n\n  e d\n\na b c", grid: 10)

    func network(staircaseClass: RoadClass = .residential) throws -> RoadNetwork {
        let ways: [(String, RoadClass)] = [("ab", .residential), ("be", staircaseClass), ("ed", staircaseClass),
                                           ("bc", .residential), ("cd", .residential), ("dz", .residential)]
        return try RoadNetwork(ways: ways.map { w in
            RoadWay(sourceID: .string(w.0), coordinates: w.0.compactMap { map.positions[$0] }, direction: .forward,
                    attributes: RoadAttributes(roadClass: w.1))
        }, sourceName: "block")
    }

    /// Fixes at a, inside the block 8 m east of b-e and 11 m north of b-c (nearer the staircase), and at z, 6 s apart.
    func track() -> Track {
        let a = map.positions["a"]!, b = map.positions["b"]!, d = map.positions["d"]!, z = map.positions["z"]!
        let middle = GeoCoordinate(uncheckedLatitude: b.latitude + 0.55 * (d.latitude - b.latitude),
                                   longitude: b.longitude + 0.4 * (d.longitude - b.longitude))
        return Track(name: "block", fixes: [Fix(coordinate: a, time: 0), Fix(coordinate: middle, time: 6),
                                            Fix(coordinate: z, time: 12)])
    }

    func path(_ network: RoadNetwork, turnCost: Double) throws -> String {
        var parameters = MatchParameters()
        parameters.turnCost = turnCost
        let result = try MapMatcher(network: network, parameters: parameters).match(track())
        #expect(result.subMatches.count == 1)
        return wayIDs(result, network).joined(separator: " | ")
    }

    @Test func aTurnOffARoadThatGoesOnCostsOnAMapWithoutSpeeds() throws {
        let network = try network()
        // Free turns: the middle fix is nearer the staircase, which is as long as the L.
        #expect(try path(network, turnCost: 0) == "ab,be,ed,dz")
        // Leaving the road at b costs 40 m x 90/180; the L's corner at c (no way straight on) is free.
        let priced = try path(network, turnCost: 40)
        #expect(priced == "ab,bc,cd,dz", "\(priced)")
    }

    @Test func turnsAreNotPricedWhereRoadsHaveSpeeds() throws {
        // The staircase's roads are primary, the others residential: speeds differ, so the quickest-path rule picks
        // between such routes and turn costs stay off (the same match as with free turns, where they would take
        // the L on a map without speeds, above).
        let network = try network(staircaseClass: .primary)
        #expect(try path(network, turnCost: 0) == "ab,be,ed,dz")
        #expect(try path(network, turnCost: 40) == "ab,be,ed,dz")
    }

    @Test func theTurnCostIsValidated() throws {
        try expectValidated(\.turnCost, refuses: [-1, .nan, 1_001], accepts: 1_000)
    }
}
