import Testing
import RoadSnapCore
import RoadSnapFormats

/// Fixes dropped as outliers when the chain through them costs more than a chain leaving them out
/// (`MatchParameters.outlierPenalty`, `rsc_skip` in `CShims/match.c`), on real Kubicka tracks.
@Suite struct MatchingOutlierTests {
    /// Track 85 (the fixture, 1 s, recorded): its second fix (fix 1) lies by a side road. Kept, the match starts with
    /// a 98 m detour through three arcs the truth does not drive (344 m wrong by edges); dropped as an outlier, the
    /// chain goes from fix 0 to the next scored fix directly (226 m wrong: what is left is the track's ends).
    @Test func aFixPullingTheChainOntoAnotherRoadIsDropped() throws {
        let (kept, keptScore) = try TestData.matchKubicka("kubicka/00000085") { $0.outlierPenalty = 0 }
        let (dropped, score) = try TestData.matchKubicka("kubicka/00000085")
        let keptWrong = keptScore.missingLength + keptScore.extraLength
        let wrong = score.missingLength + score.extraLength
        #expect(keptWrong > 300, "metres wrong without the outlier test \(keptWrong)")
        #expect(wrong < keptWrong - 80, "metres wrong \(wrong), without the outlier test \(keptWrong)")
        // some fix matched before is now unmatched (dropped), and the sub-matches stay as they were
        let nowUnmatched = kept.fixes.indices.filter { kept.fixes[$0] != nil && dropped.fixes[$0] == nil }
        #expect(!nowUnmatched.isEmpty)
        #expect(dropped.subMatches.count == kept.subMatches.count)
    }

    /// A clean track is left alone: no fix of the fixture's track 5 is dropped at 1 or 10 s.
    @Test func aCleanTrackKeepsEveryFix() throws {
        for interval in [0.0, 10] {
            let (kept, _) = try TestData.matchKubicka("kubicka/00000005", every: interval) { $0.outlierPenalty = 0 }
            let (now, _) = try TestData.matchKubicka("kubicka/00000005", every: interval)
            #expect(kept.fixes.map { $0 == nil } == now.fixes.map { $0 == nil })
        }
    }
}
