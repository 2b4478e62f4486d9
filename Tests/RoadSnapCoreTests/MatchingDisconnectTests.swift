import Testing
@testable import RoadSnapCore

/// The missing-link rule (`MatchParameters.disconnectMargin`): a fix counts as unreachable when every road the chain
/// can reach lies more than the margin, in the fix's sigmas, further from it than its nearest road. The rule must not
/// move with the emission's tail (`huber`): in log units a steeper tail made track 43's drift split instead of
/// resuming (docs/matching.md, eleventh round).
@Suite struct MatchingDisconnectTests {
    /// A 1,000 m road the fixes follow, and a 200 m road 40 m north of its middle that nothing connects to; fixes
    /// every 50 m along the first, one of them `north` metres north of it (40 − north from the second).
    static func drive(north: Double, huber: Double) throws -> (RoadNetwork, MatchResult) {
        let network = try RoadNetwork(ways: [
            MatchingQuickestRouteTests.way("road", [(0, 0), (500, 0), (1000, 0)], .residential),
            MatchingQuickestRouteTests.way("island", [(400, 40), (600, 40)], .residential),
        ], sourceName: "island")
        let fixes = (0...20).map { k in
            Fix(coordinate: MatchingQuickestRouteTests.at(Double(k) * 50, k == 10 ? north : 1), time: Double(k) * 5)
        }
        var p = MatchParameters()
        p.chooseSigma(given: 3, fromTrack: false)
        p.huber = huber
        p.outlierPenalty = 0  // the rule alone: no fix is dropped for the chain's fall
        let result = try MapMatcher(network: network, parameters: p).match(Track(name: "island", fixes: fixes))
        return (network, result)
    }

    @Test func theRuleDoesNotMoveWithTheEmissionsTail() throws {
        for huber in [2.0, 4.0] {
            // 32 m from the road driven, 8 m from the island: 8 sigmas further, within the margin of 10 (in log
            // units, 16 with Huber 2 but 31 with Huber 4, beyond the old margin of 20)
            let (network, near) = try Self.drive(north: 32, huber: huber)
            let fix = try #require(near.fixes[10], "huber \(huber)")
            #expect(network.edges[fix.edge].sourceID.description == "road", "huber \(huber)")
            #expect(near.subMatches.count == 1)
            // 38 m from it, 2 m from the island: 12 sigmas further, beyond the margin: an outlier, the chain goes on
            let (_, far) = try Self.drive(north: 38, huber: huber)
            #expect(far.fixes[10] == nil, "huber \(huber)")
            #expect(far.subMatches.count == 1 && far.matchedCount == 20, "huber \(huber)")
        }
    }
}
