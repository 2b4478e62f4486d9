import Testing
import RoadSnapCore
@testable import RoadSnapFormats

@Suite struct CSVTrackReaderTests {
    @Test func newsonKrummSampleDrive() throws {
        let track = try TrackReader.read(path: FixturePaths.sample("newson-krumm-bellevue.csv"))
        #expect(track.fixes.count == 1410)
        #expect(track.skipped.isEmpty)
        #expect(track.segmentStarts == [0])
        #expect(track.sourceLines.first == 2 && track.sourceLines.last == 1411)
        let first = try #require(track.fixes.first)
        #expect(first.coordinate.latitude == 47.58193333 && first.coordinate.longitude == -122.1122667)
        // 2009-01-17T20:45:25Z .. 21:08:54Z (1 Hz, 1,409 s)
        #expect(first.time == 1_232_225_125)
        #expect(track.fixes.last?.time == 1_232_226_534)
    }

    @Test func rawNewsonKrummFileWithSeparateDateAndTimeColumns() throws {
        let track = try TrackReader.read(path: FixturePaths.fixture("csv/newson-krumm-gps_data-head.txt"))
        #expect(track.skipped.isEmpty)
        #expect(track.fixes.count == 20)
        // 17-Jan-2009 20:27:37 UTC
        #expect(track.fixes[0].time == 1_232_224_057)
        #expect(track.fixes[19].time == 1_232_224_076)
        #expect(track.fixes[0].coordinate.latitude == 47.66748333 && track.fixes[0].coordinate.longitude == -122.1070833)
        #expect(track.sourceLines.first == 2)
    }

    @Test func badRowsAreSkippedWithTheirLines() throws {
        let path = FixturePaths.fixture("bad/bad-rows.csv")
        let track = try TrackReader.read(path: path)
        #expect(track.fixes.count == 7)
        #expect(track.sourceLines == [2, 3, 5, 7, 9, 11, 13])
        let lines = track.skipped.map(\.trackLine)
        #expect(lines == [4, 6, 8, 10, 12])
        let messages = track.skipped.map(\.description)
        #expect(messages[0].hasPrefix(path + ":4: ") && messages[0].contains("not a number"))
        #expect(messages[1].contains("latitude 95.58156667 out of range"))
        #expect(messages[2].contains("longitude -222.1124 out of range"))
        #expect(messages[3].contains("time \"yesterday\""))
        #expect(messages[4].contains("empty"))
    }

    @Test func delimitersQuotesAndTimeEncodings() throws {
        let semicolon = "Latitude;Longitude;Timestamp;Speed (m/s);Heading\n47,5819;-122,1122;1232225125000;12,5;370\n"
        let t1 = try TrackReader.read(bytes: Array(semicolon.utf8), name: "s.csv", format: .csv)
        #expect(t1.fixes.count == 1)
        #expect(t1.fixes[0].coordinate.latitude == 47.5819)
        #expect(t1.fixes[0].time == 1_232_225_125)  // milliseconds by magnitude
        #expect(t1.fixes[0].speed == 12.5)
        #expect(t1.fixes[0].course == 10)

        let tab = "lng\tlat\tdatetime\televation\n-122.1\t47.5\t\"2009-01-17 21:45:25+01:00\"\t12\n"
        let t2 = try TrackReader.read(bytes: Array(tab.utf8), name: "t.txt", format: nil)
        #expect(t2.fixes[0].time == 1_232_225_125)
        #expect(t2.fixes[0].altitude == 12)

        let quoted = "\u{FEFF}\"name\",\"lat\",\"lon\",\"time\"\r\n\"A, \"\"quoted\"\"\nname\",47.5,-122.1,1232225125.5\r\n"
        let t3 = try TrackReader.read(bytes: Array(quoted.utf8), name: "q.csv", format: nil)
        #expect(t3.fixes.count == 1 && t3.fixes[0].time == 1_232_225_125.5)
        #expect(t3.sourceLines == [2])
    }

    @Test func missingHeaderNamesLineOne() throws {
        let noHeader = "47.58193333,-122.1122667\n47.58181667,-122.1123167\n"
        let error = try #require(trackError { () throws(RoadSnapError) in
            try TrackReader.read(bytes: Array(noHeader.utf8), name: "nohead.csv", format: nil)
        })
        #expect(error.trackLine == 1)
        #expect(error.description.hasPrefix("nohead.csv:1: no header row"))
    }

    @Test func allRowsUnusableThrowsNamingFirstLine() throws {
        let csv = "lat,lon\nNaN,1\n91,1\n"
        let error = try #require(trackError { () throws(RoadSnapError) in
            try TrackReader.read(bytes: Array(csv.utf8), name: "nan.csv", format: nil)
        })
        #expect(error.trackLine == 2)
        #expect(error.description.contains("1 more"))
    }

    @Test func missingFileIsUnreadable() {
        let error = trackError { () throws(RoadSnapError) in try TrackReader.read(path: "/nonexistent/x.csv") }
        #expect(error == .unreadableFile(path: "/nonexistent/x.csv", reason: "no such file"))
    }
}
