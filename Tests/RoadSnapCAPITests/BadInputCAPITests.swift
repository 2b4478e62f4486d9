import Foundation
import RoadSnapCAPI
import RoadSnapCHeader
import Testing

/// Issue 10 through the C API: `rs_track_open` on malformed files (the 13-byte GPX that raised SIGILL in a C host,
/// invalid UTF-8, NUL bytes, entity expansion, cut-off JSON) fails with a message naming the file and the position;
/// the host keeps running and opens the next track.
@Suite struct BadInputCAPITests {
    static let bad = CAPIEquivalenceTests.repoRoot.appendingPathComponent("Tests/RoadSnapFormatsTests/Fixtures/bad")

    @Test func malformedTracksFailWithAPositionedMessage() {
        let cases: [(String, String)] = [
            ("invalid-utf8-tag-name.gpx", "invalid-utf8-tag-name.gpx:1: malformed XML at column 10"),
            ("invalid-utf8-text.gpx", "invalid-utf8-text.gpx:4: malformed XML at column 21"),
            ("nul-byte.gpx", "nul-byte.gpx:7: malformed XML"),
            ("billion-laughs.gpx", "billion-laughs.gpx:3: malformed XML"),
            ("invalid-utf8.geojson", "at line 8, column 11 (byte 147)"),
            ("truncated.geojson", "not valid JSON"),
        ]
        for (file, expected) in cases {
            var track: OpaquePointer?
            let status = rs_track_open(Self.bad.appendingPathComponent(file).path, &track)
            #expect(status == RS_E_INVALID_TRACK, "\(file)")
            #expect(track == nil, "\(file)")
            let message = String(cString: rs_last_error_message())
            #expect(message.contains(expected), "\(file): \(message)")
        }
        var good: OpaquePointer?
        #expect(rs_track_open(CAPIEquivalenceTests.drive, &good) == RS_OK)
        #expect(rs_track_close(good) == RS_OK)
    }
}
