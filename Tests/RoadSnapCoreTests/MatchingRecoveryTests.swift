import Testing
import RoadSnapCore
import RoadSnapFormats

/// Recovery before dropping or splitting (`MatchParameters.recoveryRadius`), on pieces of real Kubicka tracks.
@Suite struct MatchingRecoveryTests {
    /// Track 43, fixes 1085...1180 (1 s): the fixes run 60-100 m off the motorway carriageway driven, beyond the
    /// candidate radius at an interchange crowded with ramps, and nearer the opposite carriageway (one-way arcs the
    /// other way). Without recovery (and without the outlier window, which alone also bridges these fixes:
    /// MatchingOutlierWindowTests) the fixes are "driven" backwards along the opposite carriageway: sub-matches of
    /// 0 m, split wherever that carriageway changes arc. With it, the carriageway driven is found.
    @Test func fixesFarOffTheCarriagewayDrivenKeepToIt() throws {
        let (off, offScore) = try TestData.matchKubicka("kubicka-cuts/k043-far-carriageway") {
            $0.recoveryRadius = 0
            $0.outlierWindow = 0
        }
        #expect(off.subMatches.count >= 3)  // the failure the fixture shows
        #expect(off.subMatches.contains { $0.matchedFixCount >= 10 && $0.length < 1 })
        // 0.5-0.6 before short edges at a shared node stopped counting as roads (MatchingCandidatesTests); 0.27 since
        #expect(offScore.fraction > 0.2, "mismatch without recovery \(offScore.fraction)")

        let (on, score) = try TestData.matchKubicka("kubicka-cuts/k043-far-carriageway") { $0.outlierWindow = 0 }
        #expect(on.subMatches.count == 1)
        #expect(!on.subMatches.contains { $0.matchedFixCount >= 10 && $0.length < 1 })
        #expect(score.truthLength > 2_000)
        #expect(score.fraction < 0.05, "route mismatch \(score.fraction)")
    }
}
