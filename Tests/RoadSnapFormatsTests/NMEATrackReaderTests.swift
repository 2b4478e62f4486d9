import Testing
import RoadSnapCore
@testable import RoadSnapFormats

@Suite struct NMEATrackReaderTests {
    /// `$body*hh` with the XOR checksum of body.
    static func sentence(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0), ^)
        let hex = String(sum, radix: 16, uppercase: true)
        return "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex)
    }

    @Test func newsonKrummDriveAsNMEAMatchesTheCSV() throws {
        let nmea = try TrackReader.read(path: FixturePaths.fixture("nmea/newson-krumm-bellevue.nmea"))
        let csv = try TrackReader.read(path: FixturePaths.sample("newson-krumm-bellevue.csv"))
        #expect(nmea.skipped.isEmpty)
        #expect(nmea.fixes.count == 1410)
        #expect(nmea.fixes.count == csv.fixes.count)
        #expect(nmea.sourceLines.prefix(3) == [1, 3, 5])
        for (a, b) in zip(nmea.fixes, csv.fixes) {
            #expect(a.time == b.time)
            #expect(abs(a.coordinate.latitude - b.coordinate.latitude) < 1e-7)
            #expect(abs(a.coordinate.longitude - b.coordinate.longitude) < 1e-7)
        }
        #expect(nmea.fixes.allSatisfy { $0.speed != nil })
        // First RMC: 26.248 kn, course 196.12.
        #expect(abs((nmea.fixes[0].speed ?? 0) - 26.248 * 1852 / 3600) < 1e-9)
        #expect(nmea.fixes[0].course == 196.12)
        #expect(nmea.fixes[0].altitude == nil)
    }

    @Test func gpsdGlonassLogMergesEpochsAndSkipsInvalidFixes() throws {
        let path = FixturePaths.fixture("nmea/gpsd-bu353-glonass.log")
        let track = try TrackReader.read(path: path)
        // Epochs 08:14:11 .. 08:14:19 are valid; 08:14:20 .. 08:14:29 have GGA quality 0 and RMC status V.
        #expect(track.fixes.count == 9)
        #expect(track.fixes.map(\.time) == (0..<9).map { Optional(1_401_092_051 + Double($0)) })
        #expect(track.sourceLines.prefix(2) == [12, 14])
        let first = track.fixes[0]  // RMC only ($GNRMC)
        #expect(first.altitude == nil)
        #expect(abs(first.coordinate.latitude - (55 + 41.1955 / 60)) < 1e-12)
        #expect(abs(first.coordinate.longitude - (37 + 37.2877 / 60 - 0.0005 / 60)) < 1e-12)
        let second = track.fixes[1]  // $GPGGA + $GNRMC of 08:14:12
        #expect(second.altitude == 66.2)
        #expect(second.horizontalAccuracy == 4.87 * 4)
        #expect(abs((second.speed ?? 0) - 0.52 * 1852 / 3600) < 1e-12)
        #expect(second.course == 301.26)
        #expect(track.skipped.count == 20)
        #expect(track.skipped.first?.trackLine == 60)
        #expect(track.skipped[0].description.contains("GPGGA: GGA fix quality 0"))
        #expect(track.skipped[1].description.contains("GNRMC: RMC status V"))
    }

    @Test func badChecksumAndCutSentenceAreSkippedWithLines() throws {
        let path = FixturePaths.fixture("bad/bad-checksum.nmea")
        let track = try TrackReader.read(path: path)
        #expect(track.fixes.count == 4)
        #expect(track.sourceLines == [1, 4, 6, 7])
        #expect(track.skipped.map(\.trackLine) == [3, 5])
        #expect(track.skipped[0].description == "\(path):3: checksum mismatch: sentence says 6B, content gives 6A")
        #expect(track.skipped[1].description.contains("missing checksum"))
        // The epoch of line 3 still has its RMC (line 4), with the uncorrupted latitude.
        #expect(abs(track.fixes[1].coordinate.latitude - (47 + 34.909 / 60)) < 1e-12)
    }

    @Test func ggaTakesTheDateOfTheRMCAcrossMidnight() throws {
        let log = [
            Self.sentence("GPGGA,235958.00,4734.916000,N,12206.736002,W,1,08,0.9,50.0,M,,M,,"),
            Self.sentence("GNRMC,235959.00,A,4734.916000,N,12206.736002,W,0.0,,310109,,,A"),
            Self.sentence("GPGGA,000000.00,4734.916000,N,12206.736002,W,1,08,0.9,50.0,M,,M,,"),
            "2024-07-15T13:09:48.683+0000    " + Self.sentence("GPGGA,000001.00,4734.916000,N,12206.736002,W,2,08,0.9,50.0,M,,M,,"),
            Self.sentence("GPGLL,4734.916,N,12206.736,W,000001,A"),
        ].joined(separator: "\n")
        let track = try TrackReader.read(bytes: Array(log.utf8), name: "midnight.nmea", format: nil)
        #expect(track.skipped.isEmpty)
        #expect(track.fixes.map(\.time) == [1_233_446_398, 1_233_446_399, 1_233_446_400, 1_233_446_401])
    }

    @Test func notNMEAIsRejected() throws {
        let error = try #require(trackError { () throws(RoadSnapError) in
            try TrackReader.read(bytes: Array("hello\nworld\n".utf8), name: "x.nmea", format: nil)
        })
        #expect(error.description.contains("x.nmea"))
        #expect(error.description.contains("NMEA"))
    }
}
