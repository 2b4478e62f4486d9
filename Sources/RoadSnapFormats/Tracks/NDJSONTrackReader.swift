#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import RoadSnapCore

/// Tracks as newline-delimited JSON, one track per line (the streaming input of `roadsnap match --input ndjson`):
///
///     {"id": "car-17/2024-05-01", "fixes": [[1714550400, 50.0811, 14.4280], [1714550401, 50.0812, 14.4283]]}
///     {"id": 42, "columns": ["time", "lat", "lon", "speed", "course", "accuracy"], "fixes": [[...], ...]}
///
/// - `id`: a string or a number, written back unchanged in the result (required).
/// - `fixes`: an array of fixes, each an array of values in the order of `columns`.
/// - `columns` (optional, default `["time", "lat", "lon"]`): names from `time`, `lat`/`latitude`,
///   `lon`/`lng`/`longitude`, `course`/`heading`/`bearing` (degrees), `speed` (m/s), `accuracy` (m, 1 sigma),
///   `altitude`/`ele` (m); other names are read and ignored. `lat` and `lon` are required.
/// - A time is epoch seconds (or milliseconds, by magnitude) as a number, an ISO 8601 string, or null.
/// - Optional values may be null. A fix with an unusable value is skipped (its row is kept in the numbering: the
///   row of a fix is its 0-based index in `fixes`) and listed with the reason; a line with no usable fix, invalid
///   JSON or no `id`/`fixes` is an error for that line only.
public enum NDJSONTrackReader {
    /// A track read from one line: its `id` (as JSON text, e.g. `"a"` or `42`) and the track, whose name is the id
    /// text and whose `skipped` problems name the line.
    public struct Line: Sendable {
        /// The `id` member as compact JSON text (`"car-17"`, `42`), or nil when the line had none.
        public var idJSON: String?
        public var track: Track
    }

    /// What reading one line gave: the track, or the error with whatever id could be recovered.
    public enum Outcome: Sendable {
        case track(Line)
        case failure(idJSON: String?, error: RoadSnapError)
    }

    /// The column roles of the `fixes` arrays.
    enum Column { case time, latitude, longitude, course, speed, accuracy, altitude, ignored }

    static func column(named name: String) -> Column {
        switch name.trimmingSpaces.lowercased() {
        case "time", "timestamp", "t": return .time
        case "lat", "latitude": return .latitude
        case "lon", "lng", "long", "longitude": return .longitude
        case "course", "heading", "bearing": return .course
        case "speed": return .speed
        case "accuracy", "horizontal_accuracy": return .accuracy
        case "altitude", "alt", "ele", "elevation": return .altitude
        default: return .ignored
        }
    }

    /// Reads the track on one line (`number` is its 1-based line number in the stream, `source` names the stream
    /// in messages, e.g. `stdin`). Never throws: a bad line is a `.failure`.
    public static func read(line bytes: [UInt8], number: Int, source: String) -> Outcome {
        let place = "\(source):\(number)"
        let doc: JSONNodes
        do {
            doc = try JSONInput.parse(bytes) { .invalidTrack(path: place, line: nil, reason: $0) }
        } catch {
            return .failure(idJSON: scanID(bytes), error: error)
        }
        return withExtendedLifetime(doc) { () -> Outcome in
            guard doc.kind(0) == .object else {
                return .failure(idJSON: nil, error: .invalidTrack(path: place, line: nil, reason:
                    "a track line must be a JSON object {\"id\": ..., \"fixes\": [[time, lat, lon], ...]}"))
            }
            var idJSON: String?
            if let id = doc.member(0, "id") {
                switch doc.kind(id) {
                case .string:
                    var out: [UInt8] = []
                    JSONValue.writeString(doc.string(id) ?? "", into: &out)
                    idJSON = String(decoding: out, as: UTF8.self)
                case .int, .double: idJSON = JSONInput.text(doc, id)
                default: break
                }
            }
            guard let idJSON else {
                return .failure(idJSON: nil, error: .invalidTrack(path: place, line: nil, reason:
                    "no \"id\" (a string or a number) on the line"))
            }
            let name = "\(source):\(number) (id \(idJSON))"
            func fail(_ reason: String) -> Outcome {
                .failure(idJSON: idJSON, error: .invalidTrack(path: name, line: nil, reason: reason))
            }
            var columns: [Column] = [.time, .latitude, .longitude]
            if let names = JSONInput.present(doc, 0, "columns") {
                guard doc.kind(names) == .array else { return fail("\"columns\" is not an array of names") }
                columns = []
                for n in doc.elements(names) {
                    guard let s = doc.string(n) else { return fail("\"columns\" holds a non-string") }
                    columns.append(column(named: s))
                }
            }
            guard let lat = columns.firstIndex(of: .latitude), let lon = columns.firstIndex(of: .longitude) else {
                return fail("\"columns\" names no lat and lon column")
            }
            guard let fixes = doc.member(0, "fixes"), doc.kind(fixes) == .array else {
                return fail("no \"fixes\" array")
            }
            var builder = TrackBuilder(name: name)
            var slots = [Int?](repeating: nil, count: columns.count)
            for (row, fix) in doc.elements(fixes).enumerated() {
                guard doc.kind(fix) == .array else {
                    builder.skipRecord(line: nil, "fix \(row): not an array of values")
                    continue
                }
                for k in slots.indices { slots[k] = nil }
                var k = 0
                for value in doc.elements(fix) {
                    if k < slots.count { slots[k] = value }
                    k += 1
                }
                switch makeFix(doc, slots, columns: columns, lat: lat, lon: lon) {
                case let .success(f): builder.add(f, line: number, row: row)
                case let .failure(problem): builder.skipRecord(line: nil, "fix \(row): \(problem.reason)")
                }
            }
            switch Result(catching: { () throws(RoadSnapError) in try builder.finish(emptyReason: "no usable fix") }) {
            case let .success(track): return .track(Line(idJSON: idJSON, track: track))
            case let .failure(error): return .failure(idJSON: idJSON, error: error)
            }
        }
    }

    static func makeFix(_ doc: JSONNodes, _ slots: [Int?], columns: [Column], lat: Int, lon: Int)
        -> Result<Fix, TrackValueError>
    {
        guard let latNode = slots[lat], let lonNode = slots[lon],
              let latitude = JSONInput.number(doc, latNode), let longitude = JSONInput.number(doc, lonNode)
        else {
            let shown = [lat, lon].map { slots[$0].map { JSONInput.describe(doc, $0) } ?? "missing" }
            return .failure(TrackValueError("lat, lon (\(shown[0]), \(shown[1])) are not numbers"))
        }
        let coordinate: GeoCoordinate
        switch TrackBuilder.coordinate(latitude: latitude, longitude: longitude) {
        case let .success(c): coordinate = c
        case let .failure(e): return .failure(e)
        }
        var time: Double?, course: Double?, speed: Double?, accuracy: Double?, altitude: Double?
        for (k, role) in columns.enumerated() {
            guard let node = slots[k], doc.kind(node) != .null else { continue }
            switch role {
            case .time:
                switch GeoJSONTrackReader.time(doc, node) {
                case let .success(t): time = t
                case let .failure(e): return .failure(e)
                }
            case .course, .speed, .accuracy, .altitude:
                guard let v = JSONInput.number(doc, node) else {
                    return .failure(TrackValueError("\(role) \(JSONInput.describe(doc, node)) is not a number"))
                }
                switch role {
                case .course: course = v
                case .speed: speed = v
                case .accuracy: accuracy = v
                default: altitude = v
                }
            case .latitude, .longitude, .ignored: continue
            }
        }
        if let problem = TrackBuilder.checkOptional(course: course, speed: speed, altitude: altitude,
                                                    accuracy: accuracy)
        {
            return .failure(problem)
        }
        return .success(Fix(coordinate: coordinate, time: time, course: course.map(normalisedCourse), speed: speed,
                            altitude: altitude, horizontalAccuracy: accuracy))
    }

    /// The `id` of a line that is not valid JSON, when it can be seen: `"id"` followed by `:` and a string without
    /// escapes or a number. Best effort, so the error result can still be joined to the track.
    public static func scanID(_ bytes: [UInt8]) -> String? {
        let key = Array("\"id\"".utf8)
        var i = 0
        while i + key.count <= bytes.count {
            guard bytes[i..<(i + key.count)].elementsEqual(key) else { i += 1; continue }
            var j = i + key.count
            while j < bytes.count, bytes[j] == 32 || bytes[j] == 9 { j += 1 }
            guard j < bytes.count, bytes[j] == UInt8(ascii: ":") else { i += 1; continue }
            j += 1
            while j < bytes.count, bytes[j] == 32 || bytes[j] == 9 { j += 1 }
            guard j < bytes.count else { return nil }
            if bytes[j] == UInt8(ascii: "\"") {
                var k = j + 1
                while k < bytes.count, bytes[k] != UInt8(ascii: "\""), bytes[k] != UInt8(ascii: "\\"), bytes[k] >= 0x20 {
                    k += 1
                }
                guard k < bytes.count, bytes[k] == UInt8(ascii: "\"") else { return nil }
                let text = String(decoding: bytes[(j + 1)..<k], as: UTF8.self)
                var out: [UInt8] = []
                JSONValue.writeString(text, into: &out)
                return String(decoding: out, as: UTF8.self)
            }
            var k = j
            while k < bytes.count, (bytes[k] >= 48 && bytes[k] <= 57) || bytes[k] == UInt8(ascii: "-")
                || bytes[k] == UInt8(ascii: ".") || bytes[k] == UInt8(ascii: "e") || bytes[k] == UInt8(ascii: "E")
                || bytes[k] == UInt8(ascii: "+")
            {
                k += 1
            }
            guard k > j, let n = Double(String(decoding: bytes[j..<k], as: UTF8.self)), n.isFinite else { return nil }
            return JSONInput.numberText(n)
        }
        return nil
    }
}

/// Reads a file descriptor line by line (LF or CRLF ends a line), in chunks: memory is one chunk plus the longest
/// line. Used for the NDJSON stream on standard input.
public struct LineReader: ~Copyable {
    let fd: Int32
    let name: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// 1-based number of the line last returned.
    public private(set) var lineNumber = 0

    public init(descriptor fd: Int32, name: String) {
        self.fd = fd
        self.name = name
    }

    /// The next line without its line break (a last line without one included); nil at the end of input.
    public mutating func next() throws(RoadSnapError) -> [UInt8]? {
        var scanFrom = start
        while true {
            if let nl = buffer[scanFrom...].firstIndex(of: 10) {
                var end = nl
                if end > start, buffer[end - 1] == 13 { end -= 1 }
                let line = Array(buffer[start..<end])
                start = nl + 1
                lineNumber += 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                var end = buffer.count
                if buffer[end - 1] == 13 { end -= 1 }
                let line = Array(buffer[start..<end])
                start = buffer.count
                lineNumber += 1
                return line
            }
            // Drop what was returned, then read more.
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            scanFrom = buffer.count
            // A pipe's buffer (64 KiB) per read: each read zero-fills its chunk first, and a read from a pipe or
            // socket returns at most that much (a fixed 1 MiB chunk was 16x the zero-filling for the same bytes).
            let chunk = 1 << 16
            let old = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: chunk))
            var n = -1, code: Int32 = 0
            while n < 0 {
                n = buffer.withUnsafeMutableBytes { raw in read(fd, raw.baseAddress! + old, chunk) }
                code = errno
                if n < 0, code != EINTR { break }
            }
            if n < 0 {
                buffer.removeSubrange(old...)
                throw .unreadableFile(path: name, reason: FileIO.errorText(code))
            }
            buffer.removeSubrange((old + n)...)
            if n == 0 { atEnd = true }
        }
    }
}
