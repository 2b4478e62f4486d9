import Testing
import RoadSnapCore
import RoadSnapFormats

/// Sub-matches off the road (`MatchParameters.offRoadSigmas`, `rsc_finalize`): fixes off the map that strayed within
/// the radius of a road are left unmatched instead of being matched to a road nobody drove.
@Suite struct MatchingOffRoadTests {
    /// Track 2, 1 s rows 4600...7242 (`kubicka-cuts/k002-walk-off`): the car drives to the end of its route and parks
    /// (row 6688 of the track); then the receiver moves on at walking pace, 200-550 m from the route and 20-60 m from
    /// the roads around. Without the rule those walking fixes became a sub-match of their own, 313 m of road their
    /// fixes lay 30 m from on average (4.3 sigmas of this cut, whose sigma the walk raises to 6.9 m; 7 on the whole
    /// track); the truth never goes there. With it they are unmatched (extra road 329 -> 19 m) and the drive is
    /// matched as before.
    @Test func aWalkOffTheRoadIsNoRoadDriven() throws {
        let k = try KubickaTrack.load(directory: TestData.fixture("kubicka-cuts/k002-walk-off"))
        let walk = 7078 - 4600 // the first row of the walk's sub-match before the rule
        func run(_ offRoad: Double) throws -> (result: MatchResult, score: RouteMismatch) {
            var p = MatchParameters()
            p.offRoadSigmas = offRoad
            let result = try MapMatcher(network: k.network, parameters: p).match(k.track)
            let ids = result.subMatches.flatMap { result.edgeSourceIDs(of: $0, in: k.network) }
            let lengths = k.network.lengthsBySourceID()
            return (result, RouteMismatch(truth: k.truth, matched: ids) { lengths[$0] ?? 0 })
        }
        // Without the rule: the walk is a sub-match, far from its road throughout.
        let before = try run(0)
        let walked = before.result.subMatches.filter { $0.firstFix >= walk - 20 }
        #expect(walked.count == 1)
        if let w = walked.first {
            let d = before.result.fixes[w.firstFix...w.lastFix].compactMap { $0?.distance }
            #expect(d.count > 30 && d.reduce(0, +) / Double(d.count) > 4 * before.result.parameters.sigma)
        }
        // With the defaults: no fix of the walk is matched, the drive before it is, and nothing is added to the truth.
        let after = try run(MatchParameters().offRoadSigmas)
        #expect(after.result.fixes[walk...].allSatisfy { $0 == nil })
        #expect(after.result.fixes[..<100].filter { $0 != nil }.count > 90)
        #expect(after.result.subMatches.count == before.result.subMatches.count - 1)
        #expect(after.score.extraLength < before.score.extraLength - 250, "extra \(before.score.extraLength) -> \(after.score.extraLength) m")
        #expect(after.score.missingLength <= before.score.missingLength)
    }
}
