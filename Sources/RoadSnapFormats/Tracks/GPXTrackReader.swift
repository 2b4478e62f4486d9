import RoadSnapCore

/// GPX 1.0 / 1.1 through libexpat (CShims' XML event list): every `trkseg` and `rte` opens a segment, `trkpt`/`rtept`
/// give fixes with `ele`, `time`, `course`, `speed`, `hdop` (also `course`/`speed` inside extensions, as Garmin's
/// TrackPointExtension v2 writes them). Waypoints (`wpt`) are not a track. Malformed XML (invalid UTF-8 anywhere,
/// NUL bytes, a cut-off file, absurd nesting, entity declarations) is an error naming the line and column.
enum GPXTrackReader {
    /// Deeper than any GPX (gpx/trk/trkseg/trkpt/extensions/TrackPointExtension/speed is 7).
    static let maxDepth = 256

    static func read(bytes: [UInt8], name: String) throws(RoadSnapError) -> Track {
        let parsed = bytes.withUnsafeBytes { raw in
            Result { () throws(RoadSnapError) in try native { () throws(NativeFailure) in
                try XMLEventList(bytes: raw, maxDepth: maxDepth)
            } }
        }
        let events = try parsed.get()
        return try withExtendedLifetime(events) { () throws(RoadSnapError) -> Track in
            try read(events, bytes: bytes, name: name)
        }
    }

    /// Field texts of one track point, in `fields` order.
    private static let fields: [StaticString] = ["ele", "time", "course", "speed", "hdop", "fix"]
    private static let ele = 0, time = 1, course = 2, speed = 3, hdop = 4, fix = 5

    private static func read(_ events: XMLEventList, bytes: [UInt8], name: String) throws(RoadSnapError) -> Track {
        var firstStart: XMLEventList.Event?
        for i in 0..<events.count where events[i].kind == .start {
            firstStart = events[i]
            break
        }
        if let root = firstStart, !root.bytes.equals("gpx") {
            throw .invalidTrack(path: name, line: root.line,
                                reason: "not a GPX file: root element is <\(root.bytes.string)>, not <gpx>")
        }
        if let error = events.error {
            if error.atEnd, let unclosed = error.openElements.last {
                let lastLine = bytes.reduce(1) { $0 + ($1 == 10 ? 1 : 0) } - (bytes.last == 10 ? 1 : 0)
                throw .invalidTrack(path: name, line: lastLine,
                                    reason: "malformed XML: the file ends inside <\(unclosed)> (truncated?)")
            }
            throw .invalidTrack(path: name, line: error.line > 0 ? error.line : nil,
                                reason: "malformed XML at column \(error.column): \(error.message)"
                                    + (error.atEnd ? " (truncated?)" : ""))
        }
        guard firstStart != nil else { throw .invalidTrack(path: name, line: nil, reason: "not a GPX file: no <gpx> element") }

        var builder = TrackBuilder(name: name)
        var trackCount = 0, pointCount = 0, waypointCount = 0
        var depth = 0
        var inPoint = false, pointDepth = 0, pointLine = 0
        var lat: DocumentBytes?, lon: DocumentBytes?
        var values = [DocumentBytes?](repeating: nil, count: fields.count)
        var collecting = -1  // index into `fields` of the element whose text is wanted
        var text: DocumentBytes?
        for i in 0..<events.count {
            let event = events[i]
            switch event.kind {
            case .start:
                depth += 1
                if depth == 1 { continue }  // <gpx>
                let element = event.bytes
                if element.equals("trk") || element.equals("rte") {
                    trackCount += 1
                    builder.startSegment()
                } else if element.equals("trkseg") {
                    builder.startSegment()
                } else if element.equals("trkpt") || element.equals("rtept") {
                    inPoint = true
                    pointDepth = depth
                    pointCount += 1
                    pointLine = event.line
                    lat = events.attribute("lat", of: event)
                    lon = events.attribute("lon", of: event)
                    for k in values.indices { values[k] = nil }
                } else if element.equals("wpt") {
                    waypointCount += 1
                } else if inPoint, let k = fieldIndex(element),
                          depth == pointDepth + 1 || k == course || k == speed
                {
                    // ele/time/hdop/fix are direct children; course and speed may sit in extensions (Garmin TPX v2).
                    collecting = k
                    text = nil
                }
            case .text:
                if collecting >= 0, text == nil { text = event.bytes }
            case .end:
                depth -= 1
                let element = event.bytes
                if collecting >= 0, fieldIndex(element) != nil {
                    if values[collecting] == nil { values[collecting] = text ?? DocumentBytes.empty }
                    collecting = -1
                    continue
                }
                guard inPoint, element.equals("trkpt") || element.equals("rtept") else { continue }
                inPoint = false
                switch makeFix(lat: lat, lon: lon, values: values) {
                case let .success(fix): builder.add(fix, line: pointLine)
                case let .failure(problem): builder.skipRecord(line: pointLine, "<\(element.string)>: \(problem.reason)")
                }
            }
        }
        guard trackCount > 0 else {
            let wpt = waypointCount > 0 ? " (only \(waypointCount) waypoints)" : ""
            throw .invalidTrack(path: name, line: nil, reason: "no tracks found: no <trk> or <rte>\(wpt)")
        }
        guard pointCount > 0 else {
            throw .invalidTrack(path: name, line: nil, reason: "no track points found: <trk>/<rte> without <trkpt>/<rtept>")
        }
        return try builder.finish(emptyReason: "no usable track point")
    }

    private static func fieldIndex(_ element: DocumentBytes) -> Int? {
        for (k, f) in fields.enumerated() where element.equals(f) { return k }
        return nil
    }

    private static func makeFix(lat latText: DocumentBytes?, lon lonText: DocumentBytes?, values: [DocumentBytes?])
        -> Result<Fix, TrackValueError>
    {
        guard let latText, let lonText else { return .failure(TrackValueError("missing lat or lon attribute")) }
        guard let lat = TrackNumber.parse(latText.buffer), let lon = TrackNumber.parse(lonText.buffer) else {
            return .failure(TrackValueError("lat=\"\(latText.string)\" lon=\"\(lonText.string)\" is not a number pair"))
        }
        let coordinate: GeoCoordinate
        switch TrackBuilder.coordinate(latitude: lat, longitude: lon) {
        case let .success(c): coordinate = c
        case let .failure(e): return .failure(e)
        }
        if let f = values[fix], TrackNumber.trimmed(f.buffer).elementsEqual("none".utf8) {
            return .failure(TrackValueError("<fix>none</fix>: the receiver had no fix"))
        }
        var seconds: Double?
        if let t = values[time], !TrackNumber.trimmed(t.buffer).isEmpty {
            guard let parsed = TrackTime.parseISO8601(bytes: TrackNumber.trimmed(t.buffer)) else {
                return .failure(TrackValueError("time \"\(String(decoding: TrackNumber.trimmed(t.buffer), as: UTF8.self))\" is not ISO 8601"))
            }
            seconds = parsed
        }
        // Fixed slots, no array per fix: ele, course, speed, hdop.
        var numbers: (Double?, Double?, Double?, Double?) = (nil, nil, nil, nil)
        func number(_ k: Int, _ key: String) -> Result<Double?, TrackValueError> {
            guard let v = values[k], !TrackNumber.trimmed(v.buffer).isEmpty else { return .success(nil) }
            guard let n = TrackNumber.parse(v.buffer) else {
                return .failure(TrackValueError("<\(key)> \"\(String(decoding: TrackNumber.trimmed(v.buffer), as: UTF8.self))\" is not a number"))
            }
            return .success(n)
        }
        switch (number(ele, "ele"), number(course, "course"), number(speed, "speed"), number(hdop, "hdop")) {
        case let (.success(e), .success(c), .success(s), .success(h)): numbers = (e, c, s, h)
        case let (.failure(problem), _, _, _), let (_, .failure(problem), _, _), let (_, _, .failure(problem), _),
             let (_, _, _, .failure(problem)):
            return .failure(problem)
        }
        let accuracy = numbers.3.map { $0 * metresPerHDOP }
        if let problem = TrackBuilder.checkOptional(course: numbers.1, speed: numbers.2, altitude: numbers.0,
                                                    accuracy: accuracy)
        {
            return .failure(problem)
        }
        return .success(Fix(coordinate: coordinate, time: seconds, course: numbers.1.map(normalisedCourse),
                            speed: numbers.2, altitude: numbers.0, horizontalAccuracy: accuracy))
    }
}

extension DocumentBytes {
    static var empty: DocumentBytes { DocumentBytes(UnsafeBufferPointer(start: nil, count: 0)) }
}

/// Numbers from text bytes without Foundation: white space around is allowed, the rest is Swift's `Double(_:)`.
enum TrackNumber {
    /// The bytes without leading and trailing spaces, tabs and line ends.
    static func trimmed(_ b: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0, end = b.count
        while start < end, isSpace(b[start]) { start += 1 }
        while end > start, isSpace(b[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: b[start..<end])
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 || c == 13 }

    /// The number the trimmed bytes spell, nil when they spell none.
    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        let t = trimmed(b)
        guard !t.isEmpty, t.count < 64 else { return nil }
        if let exact = plainDecimal(t) { return exact }
        // Up to 15 bytes make a small String, which does not allocate.
        return Double(String(decoding: t, as: UTF8.self))
    }

    /// Exact powers of ten as doubles (10^0 ... 10^22 are all representable).
    private static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
                                                1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// Clinger's fast path for the common case of a coordinate: `[-+]digits[.digits]` with at most 15 significant
    /// digits and at most 22 after the point is exactly `m / 10^k`, one correctly rounded division, the same double
    /// `Double(_:)` gives. Nil for anything else (exponents, more digits, letters), which takes the general path.
    static func plainDecimal(_ t: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        var negative = false
        if t[0] == UInt8(ascii: "-") { negative = true; i = 1 } else if t[0] == UInt8(ascii: "+") { i = 1 }
        var mantissa: UInt64 = 0
        var significant = 0, fraction = 0
        var point = false, anyDigit = false
        while i < t.count {
            let c = t[i]
            if c >= 48, c <= 57 {
                if significant > 0 || c != 48 { significant += 1 }
                guard significant <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(c - 48)
                if point { fraction += 1 }
                anyDigit = true
            } else if c == UInt8(ascii: "."), !point {
                point = true
            } else {
                return nil
            }
            i += 1
        }
        guard anyDigit, fraction <= 22 else { return nil }
        let value = Double(mantissa) / powersOfTen[fraction]
        return negative ? -value : value
    }
}
