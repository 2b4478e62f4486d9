import Foundation
import RoadSnapCAPI
import RoadSnapCHeader
import RoadSnapCore
import Testing

/// Issue 16 through the C API: an empty path or a directory is an I/O error, not a bad map; a fix refused for its
/// time says so (not "not a valid latitude/longitude"); a time the CLI's readers skip is refused here too.
@Suite struct ReliabilityCAPITests {
    @Test func emptyPathsAndDirectoriesAreIOErrors() throws {
        for path in ["", CAPIEquivalenceTests.repoRoot.appendingPathComponent("Tests").path] {
            var map: OpaquePointer?
            #expect(rs_map_open(path, &map) == RS_E_IO, "\(path)")
            #expect(map == nil)
            let message = String(cString: rs_last_error_message())
            #expect(message.contains("cannot read file"), "\(message)")
        }
    }

    @Test func aFixRefusedForItsTimeSaysSo() throws {
        var map: OpaquePointer?, snapper: OpaquePointer?
        #expect(rs_map_open(CAPIEquivalenceTests.map, &map) == RS_OK)
        defer { _ = rs_map_close(map) }
        #expect(rs_snapper_create(map, 0, &snapper) == RS_OK)
        defer { _ = rs_snapper_destroy(snapper) }
        var fix = rs_fix_make(47.58193333, -122.1122667)
        var out = rs_snap_result()
        fix.time = 1e12
        #expect(rs_snapper_snap(snapper, &fix, &out) == RS_E_INVALID_FIX)
        let message = String(cString: rs_last_error_message())
        #expect(message.contains("fix time 1000000000000.0 s is beyond ±1e11 s"), "\(message)")
        #expect(!message.contains("latitude/longitude"))
        fix.time = Fix.maxTime
        #expect(rs_snapper_snap(snapper, &fix, &out) == RS_OK)
        fix.latitude = 91
        #expect(rs_snapper_snap(snapper, &fix, &out) == RS_E_INVALID_FIX)
        #expect(String(cString: rs_last_error_message()).contains("not a valid latitude/longitude"))
    }

    @Test func speedAlertOptionsWithInfiniteValuesSayTheyMustBeFinite() {
        #expect(throws: RoadSnapError.invalidArgument(
            "speed alert thresholds must be finite percentages, got minor 1.0, major inf")) {
            try SpeedAlertOptions(minorSpeedingThresholdPercentage: 1, majorSpeedingThresholdPercentage: .infinity,
                                  severityUpgradeDurationSeconds: .infinity)
        }
    }
}
