import RoadSnapCore

/// NMEA 0183 logs: `RMC` and `GGA` sentences from any talker (`$GP`, `$GN`, `$GL`, `$GA`, `$BD`, ...), checksums
/// verified. RMC gives date, time, position, speed (knots, converted to m/s) and course; GGA gives time, position,
/// altitude, fix quality and HDOP (accuracy = HDOP x 4 m). RMC and GGA of the same epoch (same time of day, in a
/// row) become one fix. A sentence with a bad or missing checksum, RMC status `V` or mode `N`, or GGA quality 0 is
/// skipped and listed with its line; other sentences (GSA, GSV, VTG, ZDA, AIS, ...) are ignored. Text before the `$`
/// on a line (a logger's timestamp) is ignored.
///
/// GGA carries no date: a GGA-only epoch takes the date of the nearest RMC (rolling over at midnight). A log with
/// no RMC at all has times of day only; they are then counted from 1970-01-01 (differences stay right).
enum NMEATrackReader {
    static let metresPerSecondPerKnot = 1852.0 / 3600.0

    struct Epoch {
        var line: Int
        var timeOfDay: Double?
        var day: Int?
        var coordinate: GeoCoordinate?
        var speed: Double?, course: Double?, altitude: Double?, hdop: Double?
    }

    static func read(bytes: [UInt8], name: String) throws(RoadSnapError) -> Track {
        var builder = TrackBuilder(name: name)
        var epochs: [Epoch] = []
        var current: Epoch?
        var sawSentence = false
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            var end = start
            while end < bytes.count, bytes[end] != 10 { end += 1 }
            defer { start = end + 1 }
            var lineEnd = end
            while lineEnd > start, bytes[lineEnd - 1] == 13 || bytes[lineEnd - 1] == 32 { lineEnd -= 1 }
            let line = bytes[start..<lineEnd]
            guard let first = line.firstIndex(where: { $0 != 32 && $0 != 9 }) else { continue }
            if line[first] == UInt8(ascii: "#") || line[first] == UInt8(ascii: "!") { continue }
            guard let dollar = line.firstIndex(of: UInt8(ascii: "$")) else {
                builder.skip(line: lineNumber, "not an NMEA sentence (no '$')")
                continue
            }
            sawSentence = true
            // Only RMC and GGA are read: others are passed over before any checksum or field work.
            guard Sentence.isPositionSentence(line[dollar...]) else { continue }
            let sentence: Sentence
            switch Sentence.parse(line[dollar...]) {
            case let .success(s): sentence = s
            case let .failure(problem):
                builder.skip(line: lineNumber, problem.reason)
                continue
            }
            let parsed: Result<Epoch, TrackValueError>
            switch sentence.type {
            case "RMC": parsed = rmc(sentence.fields, line: lineNumber)
            case "GGA": parsed = gga(sentence.fields, line: lineNumber)
            default: continue
            }
            switch parsed {
            case let .failure(problem):
                builder.skip(line: lineNumber, "\(sentence.address): \(problem.reason)")
            case let .success(epoch):
                if var open = current, let t = open.timeOfDay, t == epoch.timeOfDay {
                    open.merge(epoch)
                    current = open
                } else {
                    if let open = current { epochs.append(open) }
                    current = epoch
                }
            }
        }
        if let open = current { epochs.append(open) }
        guard sawSentence else {
            throw .invalidTrack(path: name, line: 1, reason: "not an NMEA 0183 log: no '$' sentence found")
        }
        assignDays(&epochs)
        for epoch in epochs {
            guard let coordinate = epoch.coordinate else { continue }
            let time = epoch.timeOfDay.map { Double((epoch.day ?? 0) * 86_400) + $0 }
            builder.add(Fix(coordinate: coordinate, time: time, course: epoch.course, speed: epoch.speed,
                            altitude: epoch.altitude, horizontalAccuracy: epoch.hdop.map { $0 * metresPerHDOP }),
                        line: epoch.line)
        }
        return try builder.finish(emptyReason: "no valid RMC or GGA fix in the log")
    }

    /// Gives each epoch a day number (days since 1970-01-01): its RMC date, else the previous epoch's day (plus one
    /// when the time of day wrapped past midnight), and before the first dated epoch the next one's day.
    static func assignDays(_ epochs: inout [Epoch]) {
        var lastDay: Int?
        var lastTime: Double?
        for i in epochs.indices {
            let t = epochs[i].timeOfDay
            if epochs[i].day == nil, let day = lastDay {
                var d = day
                if let t, let lt = lastTime, t < lt - 43_200 { d += 1 }
                epochs[i].day = d
            }
            if let day = epochs[i].day {
                lastDay = day
                lastTime = t ?? lastTime
            }
        }
        guard let firstDated = epochs.firstIndex(where: { $0.day != nil }) else {
            // No date anywhere: count days from 1970-01-01, rolling over at midnight.
            var day = 0
            var lastTime: Double?
            for i in epochs.indices {
                if let t = epochs[i].timeOfDay {
                    if let lt = lastTime, t < lt - 43_200 { day += 1 }
                    lastTime = t
                }
                epochs[i].day = day
            }
            return
        }
        var nextDay = epochs[firstDated].day ?? 0
        var nextTime = epochs[firstDated].timeOfDay
        for i in stride(from: firstDated - 1, through: 0, by: -1) {
            if let t = epochs[i].timeOfDay, let nt = nextTime {
                if t > nt + 43_200 { nextDay -= 1 }
                nextTime = t
            }
            epochs[i].day = nextDay
        }
    }

    /// `$--RMC,hhmmss.ss,A,llll.ll,a,yyyyy.yy,a,speed(kn),course,ddmmyy,magvar,E/W[,mode[,navstatus]]`
    static func rmc(_ f: [Substring], line: Int) -> Result<Epoch, TrackValueError> {
        guard f.count >= 10 else { return .failure(TrackValueError("RMC has \(f.count) fields, expected at least 10")) }
        if f[2] == "V" { return .failure(TrackValueError("RMC status V (receiver warning: no valid fix)")) }
        if f.count > 12, f[12] == "N" { return .failure(TrackValueError("RMC mode N (data not valid)")) }
        guard f[2] == "A" else { return .failure(TrackValueError("RMC status \"\(f[2])\" is not A or V")) }
        do {
            let time = try timeOfDay(f[1])
            let coordinate = try position(f[3], f[4], f[5], f[6])
            var epoch = Epoch(line: line, timeOfDay: time, coordinate: coordinate)
            if let knots = try optionalNumber(f[7], "speed") {
                guard knots >= 0 else { throw TrackValueError("speed \(knots) kn is negative") }
                epoch.speed = knots * metresPerSecondPerKnot
            }
            epoch.course = try optionalNumber(f[8], "course").map(normalisedCourse)
            if !f[9].isEmpty { epoch.day = try date(f[9]) }
            return .success(epoch)
        } catch let error as TrackValueError {
            return .failure(error)
        } catch {
            return .failure(TrackValueError("\(error)"))
        }
    }

    /// `$--GGA,hhmmss.ss,llll.ll,a,yyyyy.yy,a,quality,satellites,hdop,altitude,M,geoid,M,age,station`
    static func gga(_ f: [Substring], line: Int) -> Result<Epoch, TrackValueError> {
        guard f.count >= 10 else { return .failure(TrackValueError("GGA has \(f.count) fields, expected at least 10")) }
        guard let quality = Int(f[6]) else { return .failure(TrackValueError("GGA fix quality \"\(f[6])\" is not a number")) }
        if quality == 0 { return .failure(TrackValueError("GGA fix quality 0 (no valid fix)")) }
        do {
            var epoch = Epoch(line: line, timeOfDay: f[1].isEmpty ? nil : try timeOfDay(f[1]),
                              coordinate: try position(f[2], f[3], f[4], f[5]))
            epoch.hdop = try optionalNumber(f[8], "HDOP")
            epoch.altitude = try optionalNumber(f[9], "altitude")
            if let hdop = epoch.hdop, !(hdop >= 0) { throw TrackValueError("HDOP \(hdop) is negative") }
            return .success(epoch)
        } catch let error as TrackValueError {
            return .failure(error)
        } catch {
            return .failure(TrackValueError("\(error)"))
        }
    }

    static func optionalNumber(_ s: Substring, _ what: String) throws -> Double? {
        if s.isEmpty { return nil }
        guard let v = Double(s), v.isFinite else { throw TrackValueError("\(what) \"\(s)\" is not a number") }
        return v
    }

    /// `hhmmss` or `hhmmss.sss` to seconds of the day.
    static func timeOfDay(_ s: Substring) throws -> Double {
        let u = Array(s.utf8)
        guard u.count >= 6, u[0..<6].allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw TrackValueError("time \"\(s)\" is not hhmmss")
        }
        let h = Int(u[0] - 48) * 10 + Int(u[1] - 48), m = Int(u[2] - 48) * 10 + Int(u[3] - 48)
        guard h < 24, m < 60, let sec = Double(s.dropFirst(4)), sec < 61 else {
            throw TrackValueError("time \"\(s)\" is not a time of day")
        }
        return Double(h * 3600 + m * 60) + sec
    }

    /// `ddmmyy` to days since 1970-01-01 (years 80-99 are 1980-1999, 00-79 are 2000-2079).
    static func date(_ s: Substring) throws -> Int {
        let u = Array(s.utf8)
        guard u.count == 6, u.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { throw TrackValueError("date \"\(s)\" is not ddmmyy") }
        let d = Int(u[0] - 48) * 10 + Int(u[1] - 48), m = Int(u[2] - 48) * 10 + Int(u[3] - 48)
        let yy = Int(u[4] - 48) * 10 + Int(u[5] - 48)
        let year = yy >= 80 ? 1900 + yy : 2000 + yy
        guard (1...12).contains(m), (1...TrackTime.daysIn(month: m, year: year)).contains(d) else {
            throw TrackValueError("date \"\(s)\" is not a calendar date")
        }
        return TrackTime.daysSinceEpoch(year: year, month: m, day: d)
    }

    /// `ddmm.mmmm,N|S,dddmm.mmmm,E|W` to a checked coordinate.
    static func position(_ lat: Substring, _ ns: Substring, _ lon: Substring, _ ew: Substring) throws -> GeoCoordinate {
        guard !lat.isEmpty, !lon.isEmpty else { throw TrackValueError("no position") }
        func degrees(_ s: Substring, _ what: String) throws -> Double {
            guard let v = Double(s), v.isFinite, v >= 0 else { throw TrackValueError("\(what) \"\(s)\" is not ddmm.mmmm") }
            let whole = (v / 100).rounded(.down)
            let minutes = v - whole * 100
            guard minutes < 60 else { throw TrackValueError("\(what) \"\(s)\" has \(minutes) minutes") }
            return whole + minutes / 60
        }
        var latitude = try degrees(lat, "latitude"), longitude = try degrees(lon, "longitude")
        switch ns { case "N": break; case "S": latitude = -latitude
        default: throw TrackValueError("latitude hemisphere \"\(ns)\" is not N or S") }
        switch ew { case "E": break; case "W": longitude = -longitude
        default: throw TrackValueError("longitude hemisphere \"\(ew)\" is not E or W") }
        switch TrackBuilder.coordinate(latitude: latitude, longitude: longitude) {
        case let .success(c): return c
        case let .failure(e): throw e
        }
    }

    /// One checksum-verified sentence split into fields (field 0 is the address, e.g. `GNRMC`).
    struct Sentence {
        var fields: [Substring]
        var address: Substring { fields[0] }
        /// The sentence formatter after the two-letter talker, e.g. `RMC`.
        var type: Substring { address.count == 5 ? address.suffix(3) : "" }

        /// Whether the address is `$ttRMC` or `$ttGGA` (any two-character talker); bytes starts at '$'.
        static func isPositionSentence(_ bytes: ArraySlice<UInt8>) -> Bool {
            let s = bytes.startIndex
            guard bytes.count > 6, bytes[s + 6] == UInt8(ascii: ",") else {
                // A sentence cut before its first comma still deserves a report when it names RMC or GGA.
                return bytes.count >= 6 && isPositionType(bytes[(s + 3)..<min(s + 6, bytes.endIndex)])
            }
            return isPositionType(bytes[(s + 3)..<(s + 6)])
        }

        static func isPositionType(_ t: ArraySlice<UInt8>) -> Bool {
            t.elementsEqual("RMC".utf8) || t.elementsEqual("GGA".utf8)
        }

        static func parse(_ bytes: ArraySlice<UInt8>) -> Result<Sentence, TrackValueError> {
            // bytes starts at '$'.
            guard let star = bytes.lastIndex(of: UInt8(ascii: "*")) else {
                return .failure(TrackValueError("missing checksum ('*hh')"))
            }
            let body = bytes[(bytes.startIndex + 1)..<star]
            let given = bytes[(star + 1)...]
            guard given.count == 2, let expected = UInt8(String(decoding: given, as: UTF8.self), radix: 16) else {
                return .failure(TrackValueError("checksum \"\(String(decoding: given, as: UTF8.self))\" is not two hex digits"))
            }
            let computed = body.reduce(UInt8(0), ^)
            guard computed == expected else {
                let hex = String(computed, radix: 16, uppercase: true)
                return .failure(TrackValueError("checksum mismatch: sentence says \(String(decoding: given, as: UTF8.self)), content gives \(hex.count == 1 ? "0" + hex : hex)"))
            }
            let text = String(decoding: body, as: UTF8.self)
            return .success(Sentence(fields: text.split(separator: ",", omittingEmptySubsequences: false)))
        }
    }
}

extension NMEATrackReader.Epoch {
    /// Fills what this epoch lacks from another sentence of the same epoch.
    mutating func merge(_ other: NMEATrackReader.Epoch) {
        coordinate = coordinate ?? other.coordinate
        day = day ?? other.day
        speed = speed ?? other.speed
        course = course ?? other.course
        altitude = altitude ?? other.altitude
        hdop = hdop ?? other.hdop
    }
}
