import RoadSnapCore

/// GeoJSON tracks through simdjson (`JSONInput`):
/// - LineString / MultiLineString / MultiPoint features (or bare geometries), per-coordinate times in the
///   properties `coordTimes`, `times` or `timestamps` (ISO 8601 or epoch numbers), or as a 4th coordinate value;
///   a 3rd coordinate value is the altitude. Each line opens a segment.
/// - Point features with a `time` / `timestamp` property (and optionally `course`/`heading`/`bearing`, `speed`,
///   `altitude`/`ele`, `accuracy`), sorted by time when every point has one, else kept in order.
/// - Also the JSON sample arrays of BMW's barefoot matcher: `[{"point": "POINT(lon lat)", "time": "..."}, ...]`.
/// Records are numbered in document order (1-based coordinate count): that number stands for the line.
/// Malformed JSON (invalid UTF-8, NUL bytes, a cut-off file, absurd nesting) is an error naming the line, column
/// and byte offset of the fault.
enum GeoJSONTrackReader {
    static func read(bytes: [UInt8], name: String) throws(RoadSnapError) -> Track {
        let doc = try JSONInput.parse(bytes) { .invalidTrack(path: name, line: nil, reason: $0) }
        return try withExtendedLifetime(doc) { () throws(RoadSnapError) -> Track in
            var reader = Reader(doc: doc, builder: TrackBuilder(name: name))
            switch doc.kind(0) {
            case .array: try reader.readSampleArray(0)
            case .object: try reader.readGeoJSON(0)
            default: throw .invalidTrack(path: name, line: nil, reason: "not a GeoJSON object")
            }
            reader.flushPoints()
            return try reader.builder.finish(
                emptyReason: "no track in the GeoJSON (no LineString, or Point with a position)")
        }
    }

    struct PendingPoint {
        var fix: Fix
        var record: Int
    }

    /// Where a position comes from: a JSON array node, or a WKT `POINT(lon lat)` already read.
    enum Position {
        case node(Int?)
        case pair(longitude: Double, latitude: Double)
    }

    struct Reader {
        let doc: JSONNodes
        var builder: TrackBuilder
        var record = 0
        var points: [PendingPoint] = []

        init(doc: JSONNodes, builder: TrackBuilder) {
            self.doc = doc
            self.builder = builder
        }

        mutating func readGeoJSON(_ object: Int) throws(RoadSnapError) {
            let name = builder.name
            let type = doc.member(object, "type").flatMap { doc.string($0) }
            switch type {
            case "FeatureCollection":
                guard let features = doc.member(object, "features"), doc.kind(features) == .array else {
                    throw .invalidTrack(path: name, line: nil, reason: "FeatureCollection without a features array")
                }
                for (i, feature) in doc.elements(features).enumerated() {
                    guard doc.kind(feature) == .object else {
                        builder.skip(line: nil, "feature \(i) is not an object")
                        continue
                    }
                    readFeature(feature, label: "feature \(i)")
                }
            case "Feature":
                readFeature(object, label: "feature")
            case "LineString", "MultiLineString", "MultiPoint", "Point":
                readGeometry(object, properties: nil, label: "geometry")
            case let type?:
                throw .invalidTrack(path: name, line: nil, reason: "GeoJSON type \"\(type)\" is not a track")
            case nil:
                throw .invalidTrack(path: name, line: nil, reason: "not GeoJSON: no \"type\" member at the top level")
            }
        }

        mutating func readFeature(_ feature: Int, label: String) {
            let properties = doc.member(feature, "properties").flatMap { doc.kind($0) == .object ? $0 : nil }
            guard let geometry = doc.member(feature, "geometry"), doc.kind(geometry) == .object else {
                builder.skip(line: nil, "\(label): no geometry")
                return
            }
            readGeometry(geometry, properties: properties, label: label)
        }

        /// The per-coordinate times of a feature: the first of `coordTimes`, `times`, `timestamps` that is an array.
        func timeList(_ properties: Int?) -> Int? {
            guard let properties else { return nil }
            for key: StaticString in ["coordTimes", "times", "timestamps"] {
                if let t = doc.member(properties, key), doc.kind(t) == .array { return t }
            }
            return nil
        }

        mutating func readGeometry(_ geometry: Int, properties: Int?, label: String) {
            let coordinates = doc.member(geometry, "coordinates")
            let times = timeList(properties)
            switch doc.member(geometry, "type").flatMap({ doc.string($0) }) {
            case "LineString", "MultiPoint":
                readLine(coordinates, times: times.map { Array(doc.elements($0)) }, label: label)
            case "MultiLineString":
                guard let lines = coordinates, doc.kind(lines) == .array else {
                    builder.skip(line: nil, "\(label): MultiLineString coordinates are not an array")
                    return
                }
                // Times per line (togeojson writes an array per line), or one flat list over all of them.
                let timeNodes = times.map { Array(doc.elements($0)) }
                let nested = timeNodes?.allSatisfy { doc.kind($0) == .array } == true
                var offset = 0
                for (k, line) in doc.elements(lines).enumerated() {
                    let count = doc.kind(line) == .array ? doc.count(line) : 0
                    var lineTimes: [Int]?
                    if let timeNodes {
                        if nested {
                            lineTimes = k < timeNodes.count ? Array(doc.elements(timeNodes[k])) : nil
                        } else if offset + count <= timeNodes.count {
                            lineTimes = Array(timeNodes[offset..<(offset + count)])
                        }
                    }
                    readLine(line, times: lineTimes, label: "\(label) line \(k)")
                    offset += count
                }
            case "Point":
                record += 1
                let time = JSONInput.present(doc, properties, "time") ?? JSONInput.present(doc, properties, "timestamp")
                    ?? JSONInput.present(doc, properties, "datetime")
                switch makeFix(.node(coordinates), time: time, properties: properties) {
                case let .success(fix): points.append(PendingPoint(fix: fix, record: record))
                case let .failure(problem): builder.skip(line: nil, "\(label) (record \(record)): \(problem.reason)")
                }
            case let type?:
                builder.skip(line: nil, "\(label): a \(type) is not a track")
            case nil:
                builder.skip(line: nil, "\(label): geometry without a type")
            }
        }

        mutating func readLine(_ coordinates: Int?, times: [Int]?, label: String) {
            guard let coordinates, doc.kind(coordinates) == .array else {
                builder.skip(line: nil, "\(label): coordinates are not an array")
                return
            }
            let count = doc.count(coordinates)
            if let times, times.count != count {
                builder.skip(line: nil, "\(label): \(times.count) times for \(count) coordinates; times ignored")
            }
            let usableTimes = times?.count == count ? times : nil
            builder.startSegment()
            for (j, position) in doc.elements(coordinates).enumerated() {
                record += 1
                switch makeFix(.node(position), time: usableTimes?[j], properties: nil) {
                case let .success(fix): builder.add(fix, line: record, row: record - 1)
                case let .failure(problem):
                    builder.skip(line: nil, "\(label) coordinate \(j) (record \(record)): \(problem.reason)")
                }
            }
        }

        /// The barefoot sample format: an array of `{"point": "POINT(lon lat)", "time": ...}`.
        mutating func readSampleArray(_ samples: Int) throws(RoadSnapError) {
            guard doc.elements(samples).contains(where: { doc.member($0, "point").flatMap { doc.bytes($0) } != nil })
            else {
                throw .invalidTrack(path: builder.name, line: nil, reason:
                    "a JSON array, but not of {\"point\": \"POINT(lon lat)\", \"time\": ...} samples; expected GeoJSON")
            }
            for (i, sample) in doc.elements(samples).enumerated() {
                record += 1
                guard let wkt = doc.member(sample, "point").flatMap({ doc.bytes($0) }),
                      let (lon, lat) = GeoJSONTrackReader.wktPoint(wkt.buffer)
                else {
                    builder.skip(line: nil, "sample \(i): no \"point\": \"POINT(lon lat)\"")
                    continue
                }
                switch makeFix(.pair(longitude: lon, latitude: lat), time: doc.member(sample, "time"),
                               properties: sample)
                {
                case let .success(fix): points.append(PendingPoint(fix: fix, record: record))
                case let .failure(problem): builder.skip(line: nil, "sample \(i): \(problem.reason)")
                }
            }
        }

        /// Adds the collected points as one segment, sorted by time when all have one.
        mutating func flushPoints() {
            guard !points.isEmpty else { return }
            if points.allSatisfy({ $0.fix.time != nil }) {
                points = points.enumerated().sorted { a, b in
                    let ta = a.element.fix.time ?? 0, tb = b.element.fix.time ?? 0
                    return ta != tb ? ta < tb : a.offset < b.offset
                }.map(\.element)
            }
            builder.startSegment()
            for p in points { builder.add(p.fix, line: p.record, row: p.record - 1) }
            points = []
        }

        func makeFix(_ position: Position, time timeNode: Int?, properties: Int?) -> Result<Fix, TrackValueError> {
            let lon: Double, lat: Double
            var altitude: Double?
            var timeValue = timeNode
            switch position {
            case let .pair(longitude, latitude):
                lon = longitude
                lat = latitude
            case let .node(p):
                guard let p, doc.kind(p) == .array, doc.count(p) >= 2 else {
                    return .failure(TrackValueError("position is not [lon, lat]"))
                }
                let first = p + 1, second = doc.next(after: p + 1)
                guard let x = JSONInput.number(doc, first), let y = JSONInput.number(doc, second) else {
                    return .failure(TrackValueError(
                        "position [\(JSONInput.describe(doc, first)), \(JSONInput.describe(doc, second))] is not a number pair"))
                }
                lon = x
                lat = y
                if doc.count(p) > 2 {
                    let third = doc.next(after: second)
                    altitude = JSONInput.number(doc, third)
                    if doc.count(p) > 3, timeValue == nil { timeValue = doc.next(after: third) }
                }
            }
            let coordinate: GeoCoordinate
            switch TrackBuilder.coordinate(latitude: lat, longitude: lon) {
            case let .success(c): coordinate = c
            case let .failure(e): return .failure(e)
            }
            var time: Double?
            switch GeoJSONTrackReader.time(doc, timeValue) {
            case let .success(t): time = t
            case let .failure(e): return .failure(e)
            }
            var values: [CSVTrackReader.Column: Double] = [:]
            if let properties {
                for key in doc.memberKeys(properties) {
                    let value = key + 1
                    guard let keyText = doc.string(key), let column = CSVTrackReader.column(named: keyText),
                          column != .time, column != .date, column != .latitude, column != .longitude,
                          doc.kind(value) != .null
                    else { continue }
                    guard let n = JSONInput.number(doc, value) else {
                        return .failure(TrackValueError("property \(keyText) \(JSONInput.describe(doc, value)) is not a number"))
                    }
                    values[column] = n
                }
            }
            altitude = values[.altitude] ?? altitude
            if let problem = TrackBuilder.checkOptional(course: values[.course], speed: values[.speed],
                                                        altitude: altitude, accuracy: values[.accuracy])
            {
                return .failure(problem)
            }
            return .success(Fix(coordinate: coordinate, time: time, course: values[.course].map(normalisedCourse),
                                speed: values[.speed], altitude: altitude, horizontalAccuracy: values[.accuracy]))
        }
    }

    static func time(_ doc: JSONNodes, _ value: Int?) -> Result<Double?, TrackValueError> {
        guard let value else { return .success(nil) }
        switch doc.kind(value) {
        case .null: return .success(nil)
        case .string:
            // ISO 8601 straight from the document's bytes (no String per fix); other spellings through String.
            if let b = doc.bytes(value) {
                let t = TrackNumber.trimmed(b.buffer)
                if t.isEmpty { return .success(nil) }
                if let seconds = TrackTime.parseISO8601(bytes: t) { return .success(seconds) }
            }
            let s = doc.string(value) ?? ""
            if s.trimmingSpaces.isEmpty { return .success(nil) }
            guard let t = TrackTime.parse(s) else { return .failure(TrackValueError("time \"\(s)\" is not ISO 8601 or epoch")) }
            return .success(t)
        default:
            guard let n = doc.number(value), n.isFinite else {
                return .failure(TrackValueError("time \(JSONInput.describe(doc, value)) is not a time"))
            }
            return .success(TrackTime.fromEpochNumber(n))
        }
    }

    /// `POINT(lon lat)` (WKT) to (lon, lat).
    static func wktPoint(_ bytes: UnsafeBufferPointer<UInt8>) -> (Double, Double)? {
        let t = String(decoding: bytes, as: UTF8.self).trimmingSpaces
        guard t.uppercased().hasPrefix("POINT"), let open = t.firstIndex(of: "("), let close = t.lastIndex(of: ")"),
              open < close
        else { return nil }
        let parts = t[t.index(after: open)..<close].split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count >= 2, let lon = Double(parts[0]), let lat = Double(parts[1]) else { return nil }
        return (lon, lat)
    }
}
