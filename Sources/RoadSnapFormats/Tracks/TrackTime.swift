import RoadSnapCore

/// Timestamp parsing shared by the track readers. Written by hand because one pass must accept every ISO 8601
/// variant seen in real tracks (`T` or space separator, optional fractional seconds, `Z`, `+hh:mm`, `+hhmm`, `+hh`
/// or no zone = UTC) without allocating per fix; Foundation's `ISO8601DateFormatter` needs one configured instance
/// per variant and is not `Sendable`.
enum TrackTime {
    /// Seconds since 1970-01-01T00:00:00Z for a civil date and time in UTC.
    static func epochSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Double) -> Double {
        Double(daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60) + second
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (era-based day count).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthFromMarch = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Civil UTC date (year, month, day) of a day count since 1970-01-01 (inverse of `daysSinceEpoch`).
    static func civilDate(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Seconds since the epoch as ISO 8601 UTC (`2009-01-17T20:45:25Z`; milliseconds kept when present).
    static func iso8601(_ seconds: Double) -> String {
        // Beyond ±Fix.maxTime (readers skip such rows) the milliseconds would not fit an Int64: no text.
        guard Fix.isUsableTime(seconds) else { return "" }
        // The fraction is rounded on its own (exact: `seconds - whole` loses nothing), not `seconds * 1000`.
        let whole = seconds.rounded(.down)
        var millis = Int(((seconds - whole) * 1000).rounded())
        var secs = Int(whole)
        if millis == 1000 { secs += 1; millis = 0 }
        var days = secs / 86_400
        var daySeconds = secs % 86_400
        if daySeconds < 0 { daySeconds += 86_400; days -= 1 }
        let (y, mo, d) = civilDate(daysSinceEpoch: days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var text = "\(y)-\(two(mo))-\(two(d))T\(two(daySeconds / 3600)):"
        text += "\(two(daySeconds / 60 % 60)):\(two(daySeconds % 60))"
        if millis > 0 { text += "." + (millis < 10 ? "00" : millis < 100 ? "0" : "") + String(millis) }
        return text + "Z"
    }

    /// Parses an ISO 8601 date-time (see the type's note); nil when it is not one.
    static func parseISO8601<S: StringProtocol>(_ text: S) -> Double? {
        var copy = String(text)
        return copy.withUTF8 { parseISO8601(bytes: $0) }
    }

    /// Parses ISO 8601 UTF-8 bytes (see the type's note); nil when they are not one.
    static func parseISO8601(bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var p = Scanner(bytes)
        p.skipSpaces()
        guard let year = p.digits(4), p.eat("-"), let month = p.digits(2), p.eat("-"), let day = p.digits(2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        guard p.eat("T") || p.eat("t") || p.eat(" ") else {
            return p.atEnd ? epochSeconds(year: year, month: month, day: day, hour: 0, minute: 0, second: 0) : nil
        }
        guard let hour = p.digits(2), p.eat(":"), let minute = p.digits(2), hour <= 24, minute <= 59 else {
            return nil
        }
        var second = 0.0
        if p.eat(":") {
            guard let s = p.digits(2), s <= 60 else { return nil }
            second = Double(s)
            if p.eat(".") || p.eat(",") {
                var scale = 0.1
                var any = false
                while let d = p.digit() { second += Double(d) * scale; scale /= 10; any = true }
                guard any else { return nil }
            }
        }
        var offset = 0
        p.skipSpaces()
        if p.eat("Z") || p.eat("z") {
        } else if let sign = p.sign() {
            guard let oh = p.digits(2), oh <= 18 else { return nil }
            var om = 0
            if p.eat(":") {
                guard let m = p.digits(2) else { return nil }
                om = m
            } else if let m = p.digits(2) {
                om = m
            }
            offset = sign * (oh * 3600 + om * 60)
        }
        p.skipSpaces()
        guard p.atEnd else { return nil }
        return epochSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            - Double(offset)
    }

    /// A time value from CSV or JSON text: ISO 8601, or epoch seconds, or epoch milliseconds (numbers above 1e11,
    /// i.e. after 1973 in milliseconds but after year 5138 in seconds).
    static func parse<S: StringProtocol>(_ text: S) -> Double? {
        if let iso = parseISO8601(text) { return iso }
        guard let n = Double(text.trimmingSpaces), n.isFinite else { return nil }
        return fromEpochNumber(n)
    }

    /// A date and a time of day from two columns (`2009-01-17` or `2009/01/17` or `17-Jan-2009`, and `20:45:25`
    /// with optional fraction and zone); nil when either is not one.
    static func parse<S: StringProtocol>(date: S, time: S) -> Double? {
        let d = date.trimmingSpaces
        let parts = d.split(whereSeparator: { $0 == "-" || $0 == "/" || $0 == "." })
        guard parts.count == 3 else { return nil }
        let iso: String
        if parts[0].count == 4 {
            iso = "\(parts[0])-\(parts[1])-\(parts[2])"
        } else if let month = monthNames.firstIndex(of: parts[1].lowercased().prefix(3)), parts[2].count == 4 {
            let day = parts[0].count == 1 ? "0" + parts[0] : String(parts[0])
            iso = "\(parts[2])-\(month < 9 ? "0" : "")\(month + 1)-\(day)"
        } else {
            return nil
        }
        return parseISO8601(iso + "T" + time.trimmingSpaces)
    }

    static let monthNames: [Substring] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func fromEpochNumber(_ n: Double) -> Double { abs(n) > 1e11 ? n / 1000 : n }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0
        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }
        var atEnd: Bool { i == bytes.count }
        mutating func skipSpaces() { while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 { i += 1 } }
        mutating func eat(_ c: Unicode.Scalar) -> Bool {
            guard i < bytes.count, bytes[i] == UInt8(ascii: c) else { return false }
            i += 1
            return true
        }
        mutating func digit() -> Int? {
            guard i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 else { return nil }
            i += 1
            return Int(bytes[i - 1] - 48)
        }
        mutating func digits(_ n: Int) -> Int? {
            var v = 0
            for _ in 0..<n {
                guard let d = digit() else { return nil }
                v = v * 10 + d
            }
            return v
        }
        mutating func sign() -> Int? {
            if eat("+") { return 1 }
            if eat("-") { return -1 }
            return nil
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line ends.
    var trimmingSpaces: SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
