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
    /// Both runs keep the emission's linear tail from 2 sigma and the radius of when the fixture was cut, max(50 m,
    /// 3.5 of the track's sigmas): the defaults since (tail from 3 sigma, radius max(40 m, 5 sigmas)) reach the
    /// carriageway without recovery too (checked last).
    @Test func fixesFarOffTheCarriagewayDrivenKeepToIt() throws {
        let k = try KubickaTrack.load(directory: TestData.fixture("kubicka-cuts/k043-far-carriageway"))
        let sigma = try #require(try MapMatcher(network: k.network).estimateSigma(k.track))
        let asCut: (inout MatchParameters) -> Void = {
            $0.huber = 2
            $0.chooseSigma(given: max($0.sigma, sigma), fromTrack: false)
            $0.radius = max(50, 3.5 * $0.sigma)
        }
        let (off, offScore) = try TestData.matchKubicka("kubicka-cuts/k043-far-carriageway") {
            asCut(&$0)
            $0.recoveryRadius = 0
            $0.outlierWindow = 0
        }
        #expect(off.subMatches.count >= 3)  // the failure the fixture shows
        #expect(off.subMatches.contains { $0.matchedFixCount >= 10 && $0.length < 1 })
        // 0.5-0.6 before short edges at a shared node stopped counting as roads (MatchingCandidatesTests); 0.27 since
        #expect(offScore.fraction > 0.2, "mismatch without recovery \(offScore.fraction)")

        let (on, score) = try TestData.matchKubicka("kubicka-cuts/k043-far-carriageway") {
            asCut(&$0)
            $0.outlierWindow = 0
        }
        #expect(on.subMatches.count == 1)
        #expect(!on.subMatches.contains { $0.matchedFixCount >= 10 && $0.length < 1 })
        #expect(score.truthLength > 2_000)
        #expect(score.fraction < 0.05, "route mismatch \(score.fraction)")

        let (byDefault, defaultScore) = try TestData.matchKubicka("kubicka-cuts/k043-far-carriageway") {
            $0.outlierWindow = 0
        }
        #expect(byDefault.subMatches.count == 1)
        #expect(defaultScore.fraction < 0.05, "route mismatch with the defaults \(defaultScore.fraction)")
    }
}
