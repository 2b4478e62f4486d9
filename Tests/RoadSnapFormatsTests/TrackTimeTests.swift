import Testing
@testable import RoadSnapFormats

@Suite struct TrackTimeTests {
    @Test func iso8601Variants() {
        let t = 1_232_225_125.0  // 2009-01-17T20:45:25Z
        #expect(TrackTime.parseISO8601("2009-01-17T20:45:25Z") == t)
        #expect(TrackTime.parseISO8601("2009-01-17T20:45:25.5Z") == t + 0.5)
        #expect(TrackTime.parseISO8601("2009-01-17 20:45:25") == t)
        #expect(TrackTime.parseISO8601("2009-01-17T12:45:25-08:00") == t)
        #expect(TrackTime.parseISO8601("2009-01-17T21:45:25+0100") == t)
        #expect(TrackTime.parseISO8601("2009-01-17T21:45:25+01") == t)
        #expect(TrackTime.parseISO8601("2009-01-17T20:45Z") == t - 25)
        #expect(TrackTime.parseISO8601("2009-01-17") == t - 74_725)
        #expect(TrackTime.parseISO8601("2000-02-29T00:00:00Z") == 951_782_400)
        #expect(TrackTime.parseISO8601("1969-12-31T23:59:59Z") == -1)
    }

    @Test func rejectsWhatIsNotADateTime() {
        for text in ["2009-02-29T00:00:00Z", "2009-13-01T00:00:00Z", "2009-01-17T25:00:00Z", "2009-01-17T20:45:25Q",
                     "17/01/2009", "", "2009-01-17T20:45:25.Z", "yesterday"]
        {
            #expect(TrackTime.parseISO8601(text) == nil, "\(text)")
        }
    }

    @Test func epochNumbersBySize() {
        #expect(TrackTime.parse("1232225125") == 1_232_225_125)
        #expect(TrackTime.parse("1232225125000") == 1_232_225_125)
        #expect(TrackTime.parse(" 12.5 ") == 12.5)
        #expect(TrackTime.parse(date: "17-Jan-2009", time: "20:45:25") == 1_232_225_125)
        #expect(TrackTime.parse(date: "2009/01/17", time: "20:45:25") == 1_232_225_125)
        #expect(TrackTime.parse(date: "17-Foo-2009", time: "20:45:25") == nil)
    }
}
