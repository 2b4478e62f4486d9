import Foundation
import Testing
import RoadSnapCore
import RoadSnapFormats

/// Route mismatch on the 20 Kubicka et al. 2015 tracks (ground truth included), length-weighted as `kubicka.py score`.
@Suite struct MatchingKubickaTests {
    static let names = ["00000005", "00000006", "00000007", "00000014", "00000026", "00000027", "00000039",
                        "00000045", "00000046", "00000048", "00000050", "00000052", "00000067", "00000068",
                        "00000070", "00000072", "00000075", "00000085", "00000090", "00000095"]

    static func mismatch(interval: Double) throws -> RouteMismatch {
        var total = RouteMismatch(truthLength: 0, missingLength: 0, extraLength: 0)
        for name in names {
            let k = try KubickaTrack.load(directory: TestData.fixture("kubicka/\(name)"))
            let matcher = try MapMatcher(network: k.network)
            let track = interval > 0 ? k.track.subsampled(every: interval) : k.track
            let result = try matcher.match(track)
            let ids = result.subMatches.flatMap { result.edgeSourceIDs(of: $0, in: k.network) }
            let lengths = k.network.lengthsBySourceID()
            total = total + RouteMismatch(truth: k.truth, matched: ids) { lengths[$0] ?? 0 }
        }
        return total
    }

    /// The recorded fixes with seeded Gaussian noise of `sigma` metres added to each.
    static func noisy(_ track: Track, sigma: Double, seed: UInt64) -> Track {
        var rng = SplitMix64(seed: seed)
        var out = track
        for i in out.fixes.indices {
            let r = sigma * (-2 * log(1 - rng.unit())).squareRoot(), a = 2 * Double.pi * rng.unit()
            let c = out.fixes[i].coordinate
            out.fixes[i].coordinate = GeoCoordinate(
                uncheckedLatitude: c.latitude + r * cos(a) / 111_320,
                longitude: c.longitude + r * sin(a) / (111_320 * cos(c.latitude * Double.pi / 180)))
        }
        return out
    }

    @Test func jitterTellsWhiteNoiseFromARecordedTrack() throws {
        let k = try KubickaTrack.load(directory: TestData.fixture("kubicka/00000005"))
        let matcher = try MapMatcher(network: k.network)
        #expect(try matcher.estimateJitter(k.track) < 1.5)
        for sigma in [5.0, 20.0] {
            let jitter = try matcher.estimateJitter(Self.noisy(k.track, sigma: sigma, seed: 7))
            #expect(abs(jitter - sigma) < 0.15 * sigma, "jitter \(jitter) for sigma \(sigma)")
        }
    }

    /// Route mismatch with seeded noise of `sigma` metres on every fix, sampled every `interval` seconds (0: all).
    static func noisyMismatch(sigma: Double, interval: Double) throws -> RouteMismatch {
        var total = RouteMismatch(truthLength: 0, missingLength: 0, extraLength: 0)
        for (i, name) in Self.names.enumerated() {
            let k = try KubickaTrack.load(directory: TestData.fixture("kubicka/\(name)"))
            let track = interval > 0 ? k.track.subsampled(every: interval) : k.track
            let result = try MapMatcher(network: k.network).match(Self.noisy(track, sigma: sigma, seed: UInt64(i)))
            let ids = result.subMatches.flatMap { result.edgeSourceIDs(of: $0, in: k.network) }
            let lengths = k.network.lengthsBySourceID()
            total = total + RouteMismatch(truth: k.truth, matched: ids) { lengths[$0] ?? 0 }
        }
        return total
    }

    @Test func veryNoisyTenSecondSampling() throws {
        // 0.047 before the recovery of unreachable fixes (`recoveryRadius`): it joins up track 75's pieces where
        // 20 m noise broke them, by a road the wider search finds, and so adds ~0.4 km here (docs/matching.md).
        // 0.0497 since the candidate query is widened past twins and shared-node edges (MatchingCandidatesTests),
        // which took the 70 real tracks at 10 s from 1.81 to 1.11 %; with seeded noise it moves either way by about
        // 0.1 point (Benchmarks match noise=20 on these 20: 1 s 5.07 -> 5.05, 10 s 4.02 -> 3.92, 30 s 5.11 -> 5.38 %).
        let total = try Self.noisyMismatch(sigma: 20, interval: 10)
        #expect(total.fraction <= 0.051, "route mismatch \(total.fraction)")
    }

    @Test func noisyTrackWidensSigmaRadiusAndThinning() throws {
        let k = try KubickaTrack.load(directory: TestData.fixture("kubicka/00000005"))
        let matcher = try MapMatcher(network: k.network)
        let clean = try matcher.match(k.track).parameters
        #expect(clean.radius == 40 && clean.sigma < 8)
        #expect(clean.minFixDistance == max(2 * clean.sigma, 6 * clean.sigma - 24))
        let noisy = try matcher.match(Self.noisy(k.track, sigma: 30, seed: 3)).parameters
        #expect(noisy.sigma > 40 / 5 && abs(noisy.radius - 5 * noisy.sigma) < 1e-9, "\(noisy.sigma) \(noisy.radius)")
        // Thinning follows the white noise (about 30 m), not only the smaller road-distance estimate.
        #expect((noisy.minFixDistance ?? 0) > 6 * 27 - 24, "\(noisy.minFixDistance ?? 0)")
        let sparse = try matcher.match(Self.noisy(k.track.subsampled(every: 10), sigma: 30, seed: 3)).parameters
        #expect(sparse.minFixDistance == 2 * sparse.sigma)
    }

    @Test func noisyOneSecondSampling() throws {
        var total = RouteMismatch(truthLength: 0, missingLength: 0, extraLength: 0)
        for (i, name) in Self.names.enumerated() {
            let k = try KubickaTrack.load(directory: TestData.fixture("kubicka/\(name)"))
            let result = try MapMatcher(network: k.network).match(Self.noisy(k.track, sigma: 10, seed: UInt64(i)))
            let ids = result.subMatches.flatMap { result.edgeSourceIDs(of: $0, in: k.network) }
            let lengths = k.network.lengthsBySourceID()
            total = total + RouteMismatch(truth: k.truth, matched: ids) { lengths[$0] ?? 0 }
        }
        // Measured 2.49 % (2.26 % without the recovery search of issue 12); the limit sits just above.
        #expect(total.fraction <= 0.0265, "route mismatch \(total.fraction)")
    }

    @Test func oneSecondSampling() throws {
        let m = try Self.mismatch(interval: 0)
        #expect(m.truthLength > 50_000)
        // 0.0077 since the emission's tail starts at 3 sigma (was 2) and the radius is max(40 m, 5 sigma) (was
        // max(50 m, 3.5 sigma)), which took the sparse Andorra set 7 from 0.87 / 1.64 % to 0.41 / 0.73 % at 30 / 60 s:
        // track 14's fixes 39-48 drift 20-40 m off the road driven and now follow a road beside the drift
        // (docs/matching.md, twelfth round).
        #expect(m.fraction <= 0.0080, "route mismatch \(m.fraction)")
    }

    @Test func tenSecondSampling() throws {
        let m = try Self.mismatch(interval: 10)
        #expect(m.fraction <= 0.0075, "route mismatch \(m.fraction)")
    }

    @Test func thirtySecondSampling() throws {
        let m = try Self.mismatch(interval: 30)
        #expect(m.fraction <= 0.021, "route mismatch \(m.fraction)")
    }

    @Test func mismatchCountsMissingAndExtraLength() {
        let len: [String: Double] = ["a": 10, "b": 20, "c": 30]
        let m = RouteMismatch(truth: ["a", "b"], matched: ["a", "c", "c"]) { len[$0] ?? 0 }
        #expect(m.truthLength == 30)
        #expect(m.missingLength == 20)
        #expect(m.extraLength == 60)
        #expect(m.fraction == 80.0 / 30.0)
    }
}
