import Foundation
import Testing
import RoadSnapCore
import RoadSnapFormats

/// Runs of unreachable fixes longer than `maxOutliers` within `MatchParameters.outlierWindow` of the last scored fix
/// (`rsc_outlier_allowed` and `rsc_resume_plausible` in `CShims/match.c`): GPS drifting off the road driven is bridged,
/// fixes on a road of their own or a resume by a detour still split. On pieces of real Kubicka tracks and on
/// hand-drawn networks.
@Suite struct MatchingOutlierWindowTests {
    /// Track 43, fixes 820...1040 (1 s): for about two minutes the fixes drift up to 190 m east of the motorway
    /// driven, across fields and by minor roads the motorway does not connect to. With `maxOutliers` alone the track
    /// splits five times onto those roads; with the window it stays on the motorway, the drifting fixes unmatched.
    @Test func aDriftOffTheMotorwayIsBridged() throws {
        let (split, splitScore) = try TestData.matchKubicka("kubicka-cuts/k043-drift") { $0.outlierWindow = 0 }
        #expect(split.subMatches.count >= 4)  // the failure the fixture shows
        #expect(splitScore.fraction > 0.5, "mismatch without the window \(splitScore.fraction)")

        let (bridged, score) = try TestData.matchKubicka("kubicka-cuts/k043-drift")
        #expect(bridged.subMatches.count == 1)
        #expect(score.truthLength > 4_000)
        #expect(score.fraction < 0.05, "route mismatch \(score.fraction)")
        // the drifting fixes are unmatched (reported, not placed on roads they were not on)
        let unmatched = bridged.fixes.filter { $0 == nil }.count
        #expect(unmatched >= 20 && unmatched < bridged.fixes.count / 2, "\(unmatched) unmatched")
    }

    /// Track 43, fixes 720...1110, every 30 s: three drifting fixes lie by minor roads the motorway reaches only by
    /// detours of 500-700 m. Taken, they pull the chain onto a parallel road for 5 km before and after; held back as
    /// outliers (a chain falling by more than `outlierPenalty`), the motorway route resumes past them.
    /// Sigma is given as 8 m: on the cut's 14 fixes the drifting ones dominate the track's own estimate (at 10 m and
    /// more neither run follows the motorway, at 6 m and less both do; on the whole track the rule is what matters).
    /// Both runs keep the emission's linear tail from 2 sigma of when the fixture was cut (with the tail from 3 sigma,
    /// the default since, the drifting fixes no longer pull the chain even without the window: checked last).
    @Test func sparseFixesReachableOnlyByDetoursAreHeldBack() throws {
        let (_, takenScore) = try TestData.matchKubicka("kubicka-cuts/k043-drift-30s", every: 30) {
            $0.chooseSigma(given: 8, fromTrack: false)
            $0.huber = 2
            $0.outlierWindow = 0
        }
        #expect(takenScore.fraction > 0.3, "mismatch without the window \(takenScore.fraction)")

        let (held, score) = try TestData.matchKubicka("kubicka-cuts/k043-drift-30s", every: 30) {
            $0.chooseSigma(given: 8, fromTrack: false)
            $0.huber = 2
        }
        #expect(held.subMatches.count == 1)
        #expect(score.truthLength > 8_000)
        #expect(score.fraction < 0.05, "route mismatch \(score.fraction)")
        let unmatched = held.fixes.filter { $0 == nil }.count
        #expect(unmatched >= 2 && unmatched <= 4, "\(unmatched) unmatched of \(held.fixes.count)")

        let (byDefault, defaultScore) = try TestData.matchKubicka("kubicka-cuts/k043-drift-30s", every: 30) {
            $0.chooseSigma(given: 8, fromTrack: false)
        }
        #expect(byDefault.subMatches.count == 1)
        #expect(defaultScore.fraction < 0.05, "route mismatch with the defaults \(defaultScore.fraction)")
    }

    /// Track 28, fixes 1260...1360 (1 s): the fixes cut straight across a hairpin the road makes (about 300 m of
    /// road that the fixes short-cut by 70 m): the road around the bend is the route, not a split.
    @Test func fixesCuttingACornerAreBridgedAroundIt() throws {
        let (split, splitScore) = try TestData.matchKubicka("kubicka-cuts/k028-corner-cut") { $0.outlierWindow = 0 }
        #expect(split.subMatches.count >= 2)
        #expect(splitScore.fraction > 0.2, "mismatch without the window \(splitScore.fraction)")

        let (bridged, score) = try TestData.matchKubicka("kubicka-cuts/k028-corner-cut")
        #expect(bridged.subMatches.count == 1)
        #expect(score.fraction < 0.05, "route mismatch \(score.fraction)")
    }

    // MARK: Hand-drawn: a straight road, and what lies beside it

    /// Metres east and north of (50° N, 10° E).
    static func at(_ x: Double, _ y: Double) -> GeoCoordinate {
        GeoCoordinate(uncheckedLatitude: 50 + y / 110_574, longitude: 10 + x / (111_320 * cos(50 * Double.pi / 180)))
    }

    static func way(_ id: String, _ points: [(Double, Double)]) -> RoadWay {
        RoadWay(sourceID: .string(id), coordinates: points.map { at($0.0, $0.1) }, direction: .both,
                attributes: RoadAttributes(roadClass: .residential))
    }

    /// 20 m/s at 1 Hz from x = 0 to 3000: on the road (y = 0) except from x = 1000 to 1600, where the fixes lie at
    /// `offY` (±1 m of alternating noise everywhere).
    static func drive(offY: Double) -> Track {
        let fixes = (0...150).map { i -> Fix in
            let x = Double(i) * 20
            let y = (x > 1000 && x < 1600 ? offY : 0) + (i % 2 == 0 ? 1 : -1)
            return Fix(coordinate: at(x, y), time: Double(i))
        }
        return Track(name: "drive", fixes: fixes)
    }

    static func run(_ ways: [RoadWay], _ track: Track, window: Double) throws -> MatchResult {
        var p = MatchParameters()
        p.outlierWindow = window
        return try MapMatcher(network: try RoadNetwork(ways: ways, sourceName: "hand-drawn"), parameters: p)
            .match(track)
    }

    /// The fixes run 10 m beside a road that does not connect (y = 60), 70 m off the road driven: a drift. The
    /// window keeps one sub-match along the road; without it the track splits onto the other road and back.
    @Test func fixesDriftingBesideAnUnconnectedRoadStayOnTheRoad() throws {
        let ways = [Self.way("main", [(-100, 0), (3100, 0)]), Self.way("beside", [(950, 60), (1650, 60)])]
        let track = Self.drive(offY: 70)
        let split = try Self.run(ways, track, window: 0)
        #expect(split.subMatches.count >= 2)
        let bridged = try Self.run(ways, track, window: 120)
        #expect(bridged.subMatches.count == 1)
        #expect(wayIDs(bridged, try RoadNetwork(ways: ways, sourceName: "hand-drawn")) == ["main"])
    }

    /// The fixes lie on the unconnected road itself: a road of their own (a map missing its link, or a wrong
    /// chain), so the window changes nothing: the same sub-matches as `maxOutliers` alone.
    @Test func fixesOnARoadOfTheirOwnStillSplit() throws {
        let ways = [Self.way("main", [(-100, 0), (3100, 0)]), Self.way("beside", [(950, 60), (1650, 60)])]
        let track = Self.drive(offY: 60)
        let split = try Self.run(ways, track, window: 0)
        let windowed = try Self.run(ways, track, window: 120)
        #expect(split.subMatches.count >= 2)
        #expect(windowed.subMatches.map { [$0.firstFix, $0.lastFix] } == split.subMatches.map { [$0.firstFix, $0.lastFix] })
    }

    /// The drift as above, but the road driven has no straight way past it: between x = 900 and 1700 it only goes
    /// by a loop 500 m north and back (the resume would need a route of 1,800 m for 800 m of fixes). Not bridged:
    /// the track splits and the loop is not taken.
    @Test func aResumeOnlyByADetourStillSplits() throws {
        let ways = [Self.way("west", [(-100, 0), (900, 0)]), Self.way("loop", [(900, 0), (900, -500), (1700, -500), (1700, 0)]),
                    Self.way("east", [(1700, 0), (3100, 0)]), Self.way("beside", [(950, 60), (1650, 60)])]
        let track = Self.drive(offY: 70)
        let split = try Self.run(ways, track, window: 0)
        let windowed = try Self.run(ways, track, window: 120)
        #expect(split.subMatches.count >= 2)
        #expect(windowed.subMatches.count >= 2)
        // no sub-match joins the road before the drift to the road after it (the loop is not taken)
        #expect(!windowed.subMatches.contains { $0.firstFix < 48 && $0.lastFix > 84 })
        #expect(!wayIDs(windowed, try RoadNetwork(ways: ways, sourceName: "hand-drawn")).contains("loop"))
    }

    @Test func theWindowIsValidated() throws {
        try expectValidated(\.outlierWindow, refuses: [-1, .nan, 3601], accepts: 60)
    }
}
