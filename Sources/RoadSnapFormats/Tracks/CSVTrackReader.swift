import RoadSnapCore

/// CSV (comma, semicolon or tab separated, RFC 4180 quoting) with a header row naming the columns:
/// `lat`/`latitude`, `lon`/`lng`/`long`/`longitude` (required), `time`/`timestamp`/`datetime` (ISO 8601, epoch
/// seconds or epoch milliseconds), `course`/`heading`/`bearing` (degrees), `speed` (m/s), `altitude`/`alt`/`ele`/
/// `elevation` (m), `accuracy` (m), and `date` when the date sits in its own column (`Date (UTC)`, `Time (UTC)` as
/// in Newson & Krumm's data). Names are case-insensitive; a unit in brackets (`speed (m/s)`) is ignored.
enum CSVTrackReader {
    enum Column: CaseIterable { case latitude, longitude, time, date, course, speed, altitude, accuracy }

    static func column(named header: String) -> Column? {
        var key = header.trimmingSpaces.lowercased()
        if let bracket = key.firstIndex(where: { $0 == "(" || $0 == "[" }) { key = String(key[..<bracket].trimmingSpaces) }
        switch key {
        case "lat", "latitude": return .latitude
        case "lon", "lng", "long", "longitude": return .longitude
        case "time", "timestamp", "datetime", "date_time": return .time
        case "date": return .date
        case "course", "heading", "bearing": return .course
        case "speed": return .speed
        case "altitude", "alt", "ele", "elevation": return .altitude
        case "accuracy", "horizontal_accuracy": return .accuracy
        default: return nil
        }
    }

    static func read(bytes: [UInt8], name: String) throws(RoadSnapError) -> Track {
        var builder = TrackBuilder(name: name)
        var records = CSVRecords(bytes: bytes)
        guard let header = records.next() else { throw .invalidTrack(path: name, line: 1, reason: "the file is empty") }
        var columns: [Column: Int] = [:]
        for (i, field) in header.fields.enumerated() {
            if let c = column(named: field), columns[c] == nil { columns[c] = i }
        }
        guard let latIndex = columns[.latitude], let lonIndex = columns[.longitude] else {
            throw .invalidTrack(path: name, line: header.line, reason:
                "no header row naming the latitude and longitude columns (expected e.g. \"time,lat,lon\"; found \"\(header.fields.joined(separator: String(UnicodeScalar(records.delimiter))))\")")
        }
        let decimalComma = records.delimiter == UInt8(ascii: ";")
        while let row = records.next() {
            switch fix(from: row.fields, columns: columns, lat: latIndex, lon: lonIndex, decimalComma: decimalComma) {
            case let .success(fix): builder.add(fix, line: row.line)
            case let .failure(problem): builder.skipRecord(line: row.line, problem.reason)
            }
        }
        return try builder.finish(emptyReason: "no usable rows after the header")
    }

    private static func fix(from fields: [String], columns: [Column: Int], lat: Int, lon: Int, decimalComma: Bool)
        -> Result<Fix, TrackValueError>
    {
        func text(_ c: Column) -> Substring? {
            guard let i = columns[c], i < fields.count else { return nil }
            let t = fields[i].trimmingSpaces
            return t.isEmpty ? nil : t
        }
        func number(_ c: Column, _ label: String) -> Result<Double?, TrackValueError> {
            guard let t = text(c) else { return .success(nil) }
            if let v = Double(t) { return .success(v) }
            if decimalComma, let v = Double(String(t.map { $0 == "," ? "." : $0 })) { return .success(v) }
            return .failure(TrackValueError("\(label) \"\(t)\" is not a number"))
        }
        guard fields.count > max(lat, lon) else {
            return .failure(TrackValueError("only \(fields.count) fields; latitude and longitude missing"))
        }
        let latitude: Double, longitude: Double
        switch (number(.latitude, "latitude"), number(.longitude, "longitude")) {
        case let (.success(a?), .success(o?)): latitude = a; longitude = o
        case let (.failure(e), _), let (_, .failure(e)): return .failure(e)
        default: return .failure(TrackValueError("latitude or longitude is empty"))
        }
        let coordinate: GeoCoordinate
        switch TrackBuilder.coordinate(latitude: latitude, longitude: longitude) {
        case let .success(c): coordinate = c
        case let .failure(e): return .failure(e)
        }
        var time: Double?
        if let t = text(.time) {
            let dated = text(.date).flatMap { d in TrackTime.parse(date: d, time: t) }
            guard let parsed = dated ?? TrackTime.parse(t) else {
                return .failure(TrackValueError("time \"\(t)\" is neither ISO 8601 nor epoch seconds/milliseconds"))
            }
            time = parsed
        }
        do {
            let course = try number(.course, "course").get(), speed = try number(.speed, "speed").get()
            let altitude = try number(.altitude, "altitude").get(), accuracy = try number(.accuracy, "accuracy").get()
            if let problem = TrackBuilder.checkOptional(course: course, speed: speed, altitude: altitude,
                                                        accuracy: accuracy)
            {
                return .failure(problem)
            }
            return .success(Fix(coordinate: coordinate, time: time, course: course.map(normalisedCourse), speed: speed,
                                altitude: altitude, horizontalAccuracy: accuracy))
        } catch {
            return .failure(error)
        }
    }
}

/// Splits CSV bytes into records with their 1-based starting line. The delimiter (comma, semicolon or tab) is the
/// one occurring most often outside quotes in the first record. Blank lines and lines starting with `#` are skipped;
/// quoted fields may hold delimiters, doubled quotes and line breaks.
struct CSVRecords {
    let bytes: [UInt8]
    private(set) var delimiter: UInt8 = UInt8(ascii: ",")
    private var i = 0
    private var line = 1

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        delimiter = Self.guessDelimiter(bytes, from: i)
    }

    static func guessDelimiter(_ bytes: [UInt8], from start: Int) -> UInt8 {
        var counts: [UInt8: Int] = [UInt8(ascii: ","): 0, UInt8(ascii: ";"): 0, 9: 0]
        var quoted = false
        var j = start
        var sawContent = false
        while j < bytes.count {
            let b = bytes[j]
            if b == UInt8(ascii: "\"") { quoted.toggle() }
            else if !quoted, b == 10 || b == 13 { if sawContent { break } }
            else if !quoted, counts[b] != nil { counts[b, default: 0] += 1 }
            if b != 10, b != 13, b != 32 { sawContent = true }
            j += 1
        }
        let best = counts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }
        return (best?.value ?? 0) > 0 ? best!.key : UInt8(ascii: ",")
    }

    mutating func next() -> (line: Int, fields: [String])? {
        while i < bytes.count {
            // Skip blank lines and comments.
            if bytes[i] == 10 { line += 1; i += 1; continue }
            if bytes[i] == 13 { i += 1; continue }
            if bytes[i] == UInt8(ascii: "#") {
                while i < bytes.count, bytes[i] != 10 { i += 1 }
                continue
            }
            let start = line
            var fields: [String] = []
            var field: [UInt8] = []
            var quoted = false
            while i < bytes.count {
                let b = bytes[i]
                if quoted {
                    if b == UInt8(ascii: "\"") {
                        if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") { field.append(b); i += 1 }
                        else { quoted = false }
                    } else {
                        if b == 10 { line += 1 }
                        field.append(b)
                    }
                } else if b == UInt8(ascii: "\"") {
                    quoted = true
                } else if b == delimiter {
                    fields.append(String(decoding: field, as: UTF8.self))
                    field.removeAll(keepingCapacity: true)
                } else if b == 10 {
                    break
                } else if b != 13 {
                    field.append(b)
                }
                i += 1
            }
            fields.append(String(decoding: field, as: UTF8.self))
            if fields.allSatisfy({ $0.trimmingSpaces.isEmpty }) { continue }
            return (start, fields)
        }
        return nil
    }
}
