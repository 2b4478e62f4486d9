import Foundation
import Testing
import RoadSnapCore
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

    /// The writer against an independent one (Foundation's ISO8601DateFormatter) on 20,000 random instants from 1900
    /// to 2200, with and without milliseconds; and parsing what it wrote gives the instant back.
    @Test func iso8601WriterAgreesWithFoundation() {
        let whole = ISO8601DateFormatter()
        whole.timeZone = TimeZone(identifier: "UTC")
        let fractional = ISO8601DateFormatter()
        fractional.timeZone = TimeZone(identifier: "UTC")
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var rng = SplitMix64(seed: 8601)
        for k in 0..<20_000 {
            let seconds = Double(Int64.random(in: -2_208_988_800...7_258_118_399, using: &rng))
            let t = k % 2 == 0 ? seconds : seconds + Double(Int.random(in: 1...999, using: &rng)) / 1000
            let ours = TrackTime.iso8601(t)
            let date = Date(timeIntervalSince1970: t)
            let theirs = k % 2 == 0 ? whole.string(from: date) : fractional.string(from: date)
            #expect(ours == theirs, "\(t)")
            #expect(TrackTime.parseISO8601(ours) == t, "\(ours)")
        }
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

#if canImport(Glibc)
import Glibc
#endif

/// `MatchOutput.isoTime` (integer civil-date arithmetic since issue 10) against the `gmtime_r` formatting it replaced.
@Suite struct ISOTimeFormatTests {
    static func reference(_ t: Double) -> String {
        guard t.isFinite, abs(t) < 1e11 else { return "" }
        let whole = t.rounded(.down)
        var millis = Int(((t - whole) * 1000).rounded())
        var secs = time_t(whole)
        if millis == 1000 { secs += 1; millis = 0 }
        var parts = tm()
        gmtime_r(&secs, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var s = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec))"
        if millis > 0 { s += "." + (millis < 10 ? "00" : millis < 100 ? "0" : "") + String(millis) }
        return s + "Z"
    }

    @Test func matchesGmtimeFormatting() {
        var values: [Double] = [0, -1, -0.5, 1_232_225_125, 1_232_225_125.25, 1_232_225_125.9996, 951_782_400,
                                 4_102_444_800, -62_135_596_800, 1e11 - 1, .nan, .infinity, 1e12]
        var rng = SplitMix64(seed: 10)
        for _ in 0..<20_000 { values.append((rng.unit() - 0.3) * 5e9) }
        for t in values { #expect(MatchOutput.isoTime(t) == Self.reference(t), "\(t)") }
    }
}

/// Number parsing from bytes: the fast path gives exactly what `Double(_:)` gives.
@Suite struct TrackNumberTests {
    static func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { TrackNumber.parse($0) }
    }

    @Test func plainDecimalsMatchSwiftsParser() {
        var texts = ["47.66748333", "-122.1070833", "0", "-0", "+5", "1.", ".5", "0.000123", "123456789012345",
                     "1234567890123456", "0.1", "99.688", "1e5", "1.5E-3", "nan", "inf", "12a", ".", "-", "",
                     " 47.5 ", "0.0000000000000000000001", "0.00000000000000000000001", "9007199254740993"]
        var rng = SplitMix64(seed: 7)
        for _ in 0..<50_000 {
            let digits = 1 + Int(rng.next() % 17)
            var s = rng.next() % 2 == 0 ? "-" : ""
            let pointAt = Int(rng.next() % UInt64(digits + 1))
            for k in 0..<digits {
                if k == pointAt { s += "." }
                s += String(rng.next() % 10)
            }
            texts.append(s)
        }
        for t in texts {
            let expected = Double(t.trimmingSpaces)
            let got = Self.parse(t)
            #expect(got == expected || (got?.isNaN == true && expected?.isNaN == true), "\(t)")
            if let got, let expected, got == 0 { #expect(got.sign == expected.sign, "\(t)") }
        }
    }
}
