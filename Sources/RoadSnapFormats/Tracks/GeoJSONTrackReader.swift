import Foundation
import RoadSnapCore

/// GeoJSON tracks through Foundation's `JSONSerialization`:
/// - LineString / MultiLineString / MultiPoint features (or bare geometries), per-coordinate times in the
///   properties `coordTimes`, `times` or `timestamps` (ISO 8601 or epoch numbers), or as a 4th coordinate value;
///   a 3rd coordinate value is the altitude. Each line opens a segment.
/// - Point features with a `time` / `timestamp` property (and optionally `course`/`heading`/`bearing`, `speed`,
///   `altitude`/`ele`, `accuracy`), sorted by time when every point has one, else kept in order.
/// - Also the JSON sample arrays of BMW's barefoot matcher: `[{"point": "POINT(lon lat)", "time": "..."}, ...]`.
/// Records are numbered in document order (1-based coordinate count): that number stands for the line.
enum GeoJSONTrackReader {
    static let timeKeys = ["coordTimes", "times", "timestamps"]

    static func read(bytes: [UInt8], name: String) throws(RoadSnapError) -> Track {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) } catch {
            throw .invalidTrack(path: name, line: nil, reason: "not valid JSON: \(jsonErrorText(error))")
        }
        var reader = Reader(builder: TrackBuilder(name: name))
        if let samples = root as? [Any] {
            try reader.readSampleArray(samples)
        } else if let object = root as? [String: Any] {
            try reader.readGeoJSON(object)
        } else {
            throw .invalidTrack(path: name, line: nil, reason: "not a GeoJSON object")
        }
        reader.flushPoints()
        return try reader.builder.finish(emptyReason: "no track in the GeoJSON (no LineString, or Point with a position)")
    }

    static func jsonErrorText(_ error: Error) -> String {
        let ns = error as NSError
        return (ns.userInfo[NSDebugDescriptionErrorKey] as? String) ?? ns.localizedDescription
    }

    struct PendingPoint {
        var fix: Fix
        var record: Int
    }

    struct Reader {
        var builder: TrackBuilder
        var record = 0
        var points: [PendingPoint] = []

        mutating func readGeoJSON(_ object: [String: Any]) throws(RoadSnapError) {
            let name = builder.name
            switch object["type"] as? String {
            case "FeatureCollection":
                guard let features = object["features"] as? [Any] else {
                    throw .invalidTrack(path: name, line: nil, reason: "FeatureCollection without a features array")
                }
                for (i, feature) in features.enumerated() {
                    guard let f = feature as? [String: Any] else {
                        builder.skip(line: nil, "feature \(i) is not an object")
                        continue
                    }
                    readFeature(f, label: "feature \(i)")
                }
            case "Feature":
                readFeature(object, label: "feature")
            case "LineString", "MultiLineString", "MultiPoint", "Point":
                readGeometry(object, properties: [:], label: "geometry")
            case let type?:
                throw .invalidTrack(path: name, line: nil, reason: "GeoJSON type \"\(type)\" is not a track")
            case nil:
                throw .invalidTrack(path: name, line: nil, reason: "not GeoJSON: no \"type\" member at the top level")
            }
        }

        mutating func readFeature(_ feature: [String: Any], label: String) {
            let properties = feature["properties"] as? [String: Any] ?? [:]
            guard let geometry = feature["geometry"] as? [String: Any] else {
                builder.skip(line: nil, "\(label): no geometry")
                return
            }
            readGeometry(geometry, properties: properties, label: label)
        }

        mutating func readGeometry(_ geometry: [String: Any], properties: [String: Any], label: String) {
            let coordinates = geometry["coordinates"]
            let times = GeoJSONTrackReader.timeKeys.lazy.compactMap { properties[$0] as? [Any] }.first
            switch geometry["type"] as? String {
            case "LineString", "MultiPoint":
                readLine(coordinates, times: times, label: label)
            case "MultiLineString":
                guard let lines = coordinates as? [Any] else {
                    builder.skip(line: nil, "\(label): MultiLineString coordinates are not an array")
                    return
                }
                // Times per line (togeojson writes an array per line), or one flat list over all of them.
                let nested = times?.allSatisfy { $0 is [Any] } == true
                var offset = 0
                for (k, line) in lines.enumerated() {
                    let count = (line as? [Any])?.count ?? 0
                    let lineTimes: [Any]?
                    if nested { lineTimes = k < times!.count ? times![k] as? [Any] : nil }
                    else if let times, offset + count <= times.count { lineTimes = Array(times[offset..<(offset + count)]) }
                    else { lineTimes = nil }
                    readLine(line, times: lineTimes, label: "\(label) line \(k)")
                    offset += count
                }
            case "Point":
                record += 1
                let time = GeoJSONTrackReader.firstValue(properties, ["time", "timestamp", "datetime"])
                switch makeFix(coordinates, time: time, properties: properties) {
                case let .success(fix): points.append(PendingPoint(fix: fix, record: record))
                case let .failure(problem): builder.skip(line: nil, "\(label) (record \(record)): \(problem.reason)")
                }
            case let type?:
                builder.skip(line: nil, "\(label): a \(type) is not a track")
            case nil:
                builder.skip(line: nil, "\(label): geometry without a type")
            }
        }

        mutating func readLine(_ coordinates: Any?, times: [Any]?, label: String) {
            guard let positions = coordinates as? [Any] else {
                builder.skip(line: nil, "\(label): coordinates are not an array")
                return
            }
            if let times, times.count != positions.count {
                builder.skip(line: nil, "\(label): \(times.count) times for \(positions.count) coordinates; times ignored")
            }
            let usableTimes = times?.count == positions.count ? times : nil
            builder.startSegment()
            for (j, position) in positions.enumerated() {
                record += 1
                switch makeFix(position, time: usableTimes?[j], properties: [:]) {
                case let .success(fix): builder.add(fix, line: record)
                case let .failure(problem): builder.skip(line: nil, "\(label) coordinate \(j) (record \(record)): \(problem.reason)")
                }
            }
        }

        /// The barefoot sample format: an array of `{"point": "POINT(lon lat)", "time": ...}`.
        mutating func readSampleArray(_ samples: [Any]) throws(RoadSnapError) {
            guard samples.contains(where: { ($0 as? [String: Any])?["point"] is String }) else {
                throw .invalidTrack(path: builder.name, line: nil, reason:
                    "a JSON array, but not of {\"point\": \"POINT(lon lat)\", \"time\": ...} samples; expected GeoJSON")
            }
            for (i, sample) in samples.enumerated() {
                record += 1
                guard let s = sample as? [String: Any], let wkt = s["point"] as? String,
                      let position = GeoJSONTrackReader.wktPoint(wkt)
                else {
                    builder.skip(line: nil, "sample \(i): no \"point\": \"POINT(lon lat)\"")
                    continue
                }
                switch makeFix(position, time: s["time"], properties: s) {
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
            for p in points { builder.add(p.fix, line: p.record) }
            points = []
        }

        func makeFix(_ position: Any?, time timeValue: Any?, properties: [String: Any]) -> Result<Fix, TrackValueError> {
            guard let p = position as? [Any], p.count >= 2 else {
                return .failure(TrackValueError("position is not [lon, lat]"))
            }
            guard let lon = GeoJSONTrackReader.number(p[0]), let lat = GeoJSONTrackReader.number(p[1]) else {
                return .failure(TrackValueError("position \(p.prefix(2)) is not a number pair"))
            }
            let coordinate: GeoCoordinate
            switch TrackBuilder.coordinate(latitude: lat, longitude: lon) {
            case let .success(c): coordinate = c
            case let .failure(e): return .failure(e)
            }
            var altitude = p.count > 2 ? GeoJSONTrackReader.number(p[2]) : nil
            var time: Double?
            switch GeoJSONTrackReader.time(timeValue ?? (p.count > 3 ? p[3] : nil)) {
            case let .success(t): time = t
            case let .failure(e): return .failure(e)
            }
            var values: [CSVTrackReader.Column: Double] = [:]
            for (key, value) in properties {
                guard let column = CSVTrackReader.column(named: key), column != .time, column != .date, column != .latitude,
                      column != .longitude, !(value is NSNull)
                else { continue }
                guard let n = GeoJSONTrackReader.number(value) else {
                    return .failure(TrackValueError("property \(key) \(value) is not a number"))
                }
                values[column] = n
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

    static func firstValue(_ properties: [String: Any], _ keys: [String]) -> Any? {
        for key in keys { if let v = properties[key], !(v is NSNull) { return v } }
        return nil
    }

    /// JSON true/false arrive as NSNumber too; they are not numbers here.
    static func number(_ value: Any?) -> Double? {
        if let n = value as? NSNumber {
            if n.objCType.pointee == CChar(UInt8(ascii: "c")) { return nil }
            return n.doubleValue
        }
        if let s = value as? String { return Double(s.trimmingSpaces) }
        return nil
    }

    static func time(_ value: Any?) -> Result<Double?, TrackValueError> {
        switch value {
        case nil, is NSNull: return .success(nil)
        case let s as String:
            if s.trimmingSpaces.isEmpty { return .success(nil) }
            guard let t = TrackTime.parse(s) else { return .failure(TrackValueError("time \"\(s)\" is not ISO 8601 or epoch")) }
            return .success(t)
        default:
            guard let n = number(value), n.isFinite else { return .failure(TrackValueError("time \(value!) is not a time")) }
            return .success(TrackTime.fromEpochNumber(n))
        }
    }

    /// `POINT(lon lat)` (WKT) to `[lon, lat]`.
    static func wktPoint(_ text: String) -> [Any]? {
        let t = text.trimmingSpaces
        guard t.uppercased().hasPrefix("POINT"), let open = t.firstIndex(of: "("), let close = t.lastIndex(of: ")"),
              open < close
        else { return nil }
        let parts = t[t.index(after: open)..<close].split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count >= 2, let lon = Double(parts[0]), let lat = Double(parts[1]) else { return nil }
        return [lon, lat]
    }
}
