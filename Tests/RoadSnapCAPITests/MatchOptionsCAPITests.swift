import Foundation
import RoadSnapCAPI
import RoadSnapCHeader
import Testing

/// `rs_matcher_create` checks its options through the matcher's one validation (the same bounds and message as
/// `roadsnap match` and `MatchParameters.validate`): out-of-range values fail with RS_E_INVALID_ARGUMENT.
@Suite struct MatchOptionsCAPITests {
    @Test func outOfRangeOptionsAreRefusedWithTheEngineMessage() {
        var map: OpaquePointer?
        #expect(rs_map_open(CAPIEquivalenceTests.map, &map) == RS_OK)
        defer { _ = rs_map_close(map) }
        let cases: [(String, (inout rs_match_options) -> Void)] = [
            ("radius must be in (0, 10000] metres, got 1e+09", { $0.radius = 1e9 }),
            ("sigma must be in (0, 1000] metres, got 1001", { $0.sigma = 1001 }),
            ("beta must be in (0, 10000] metres, got 1e+09", { $0.beta = 1e9 }),
            ("sigma must be in (0, 1000] metres, got -1", { $0.sigma = -1 }),
            ("candidates must be in [1, 256] roads, got 300", { $0.max_candidates = 300 }),
            ("max gap must be in [0, 1e+07] seconds, got 1e+08", { $0.max_gap = 1e8 }),
        ]
        for (expected, change) in cases {
            var options = rs_match_options()
            change(&options)
            var matcher: OpaquePointer?
            #expect(rs_matcher_create(map, &options, &matcher) == RS_E_INVALID_ARGUMENT, "\(expected)")
            #expect(matcher == nil)
            let message = String(cString: rs_last_error_message())
            #expect(message.contains(expected), "\(message)")
        }
        var options = rs_match_options()
        options.sigma = 1000
        options.radius = 10_000
        options.beta = 10_000
        var matcher: OpaquePointer?
        #expect(rs_matcher_create(map, &options, &matcher) == RS_OK)
        _ = rs_matcher_destroy(matcher)
    }
}
