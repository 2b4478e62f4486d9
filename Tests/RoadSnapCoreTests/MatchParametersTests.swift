import Foundation
import Testing
import RoadSnapCore

/// The matcher's one parameter validation (`MatchParameters.validate`, over the engine's `rsc_match_params_check`):
/// lower and upper bounds, the same message from the Swift API and the CLI (the C API: `MatchOptionsCAPITests`).
@Suite struct MatchParametersTests {
    @Test func defaultsAreValid() throws {
        try MatchParameters().validate()
    }

    @Test func upperAndLowerBoundsAreChecked() {
        let cases: [(String, (inout MatchParameters) -> Void)] = [
            ("radius must be in (0, 10000] metres, got 1e+09", { $0.radius = 1e9 }),
            ("sigma must be in (0, 1000] metres, got 1001", { $0.sigma = 1001 }),
            ("beta must be in (0, 10000] metres, got 1e+09", { $0.beta = 1e9 }),
            ("sigma must be in (0, 1000] metres, got 0", { $0.sigma = 0 }),
            ("radius must be in (0, 10000] metres, got nan", { $0.radius = .nan }),
            ("beta must be in (0, 10000] metres, got inf", { $0.beta = .infinity }),
            ("candidates must be in [1, 256] roads, got 257", { $0.maxCandidates = 257 }),
            ("max speed must be in [0, 1000] m/s, got -1", { $0.maxSpeed = -1 }),
        ]
        for (expected, change) in cases {
            var p = MatchParameters()
            change(&p)
            #expect(throws: RoadSnapError.invalidArgument(expected)) { try p.validate() }
        }
        // At the bounds: valid; joint search may be switched off with an infinite interval.
        var edge = MatchParameters()
        edge.sigma = 1000
        edge.beta = 10_000
        edge.radius = 10_000
        edge.maxCandidates = 256
        edge.jointSearchInterval = .infinity
        #expect(throws: Never.self) { try edge.validate() }
    }

    @Test func matcherRefusesOutOfRangeParameters() throws {
        let network = try TestData.bellevue()
        var p = MatchParameters()
        p.radius = 1e9
        #expect(throws: RoadSnapError.invalidArgument("radius must be in (0, 10000] metres, got 1e+09")) {
            _ = try MapMatcher(network: network, parameters: p)
        }
    }

    @Test func commandLineUsesTheSameBounds() throws {
        for (args, expected) in [(["--radius", "1e9"], "radius must be in (0, 10000] metres, got 1e+09"),
                                 (["--sigma", "1001"], "sigma must be in (0, 1000] metres, got 1001"),
                                 (["--beta", "1e9"], "beta must be in (0, 10000] metres, got 1e+09")] {
            let r = try MatchCommandTests.match(args + [TestData.bellevueDrive])
            #expect(r.status != 0, "\(args)")
            #expect(r.err.contains(expected), "\(args): \(r.err)")
        }
        // In range: matched.
        let ok = try MatchCommandTests.match(["--sigma", "1000", "--radius", "100", "--format", "csv",
                                              TestData.bellevueDrive])
        #expect(ok.status == 0, "\(ok.err)")
    }
}
