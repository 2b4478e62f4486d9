// The Foundation-based readers RoadSnap used before issue 10 (XMLParser for GPX, JSONSerialization for GeoJSON),
// copied from Sources/RoadSnapFormats at commit 1c6c317 as the baseline of the parsing benchmark. Benchmarks may use
// Foundation; Sources/ may not. Adapted only where the originals used module-internal helpers (a local builder
// instead of TrackBuilder, a copy of the ISO 8601 parser as it was then, with its per-call Array).
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RoadSnapCore

enum FoundationBaseline {
    struct Output {
        var fixes: [Fix] = []
        var sourceLines: [Int] = []
        var segmentStarts: [Int] = []
        var skipped: [String] = []
        var segmentPending = true
        mutating func startSegment() { segmentPending = true }
        mutating func add(_ fix: Fix, line: Int) {
            if segmentPending || fixes.isEmpty { segmentStarts.append(fixes.count); segmentPending = false }
            fixes.append(fix)
            sourceLines.append(line)
        }
    }

    // ---- GPX through XMLParser (old GPXTrackReader) -------------------------------------------------------------

    static func gpx(_ bytes: [UInt8]) -> Output {
        let parser = XMLParser(stream: InputStream(data: Data(bytes)))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let handler = GPXHandler()
        parser.delegate = handler
        _ = parser.parse()
        return handler.out
    }

    final class GPXHandler: NSObject, XMLParserDelegate {
        var out = Output()
        var sawRoot = false
        var openElements: [String] = []
        private var inPoint = false
        private var pointDepth = 0
        private var pointLine = 0
        private var pointLat: String?, pointLon: String?
        private var values: [String: String] = [:]
        private var text = ""
        private var collecting = false
        private static let pointFields: Set<String> = ["ele", "time", "course", "speed", "hdop", "fix"]

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes: [String: String] = [:])
        {
            openElements.append(qName ?? elementName)
            if !sawRoot { sawRoot = true; return }
            switch elementName {
            case "trk", "rte", "trkseg": out.startSegment()
            case "trkpt", "rtept":
                inPoint = true
                pointDepth = openElements.count
                pointLine = parser.lineNumber
                pointLat = attributes["lat"]
                pointLon = attributes["lon"]
                values.removeAll(keepingCapacity: true)
            default:
                if inPoint, Self.pointFields.contains(elementName),
                   openElements.count == pointDepth + 1 || elementName == "course" || elementName == "speed"
                {
                    collecting = true
                    text = ""
                }
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if collecting { text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?)
        {
            openElements.removeLast()
            if collecting, Self.pointFields.contains(elementName) {
                collecting = false
                if values[elementName] == nil { values[elementName] = text.trimmingCharacters(in: .whitespacesAndNewlines) }
                return
            }
            guard inPoint, elementName == "trkpt" || elementName == "rtept" else { return }
            inPoint = false
            guard let latText = pointLat, let lonText = pointLon,
                  let lat = Double(latText.trimmingCharacters(in: .whitespaces)),
                  let lon = Double(lonText.trimmingCharacters(in: .whitespaces)),
                  let coordinate = try? GeoCoordinate(latitude: lat, longitude: lon)
            else {
                out.skipped.append("line \(pointLine)")
                return
            }
            var time: Double?
            if let t = values["time"], !t.isEmpty { time = parseISO8601(t) }
            var numbers: [String: Double] = [:]
            for key in ["ele", "course", "speed", "hdop"] {
                if let v = values[key], !v.isEmpty, let n = Double(v) { numbers[key] = n }
            }
            out.add(Fix(coordinate: coordinate, time: time, course: numbers["course"], speed: numbers["speed"],
                        altitude: numbers["ele"], horizontalAccuracy: numbers["hdop"].map { $0 * 4 }),
                    line: pointLine)
        }
    }

    // ---- GeoJSON tracks through JSONSerialization (old GeoJSONTrackReader, LineString path) ---------------------

    static func geojsonTrack(_ bytes: [UInt8]) -> Output {
        var out = Output()
        guard let root = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),
              let object = root as? [String: Any]
        else { return out }
        var features: [[String: Any]] = []
        switch object["type"] as? String {
        case "FeatureCollection": features = (object["features"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        case "Feature": features = [object]
        default: features = [["geometry": object]]
        }
        var record = 0
        for feature in features {
            let properties = feature["properties"] as? [String: Any] ?? [:]
            guard let geometry = feature["geometry"] as? [String: Any],
                  let positions = geometry["coordinates"] as? [Any]
            else { continue }
            let times = ["coordTimes", "times", "timestamps"].lazy.compactMap { properties[$0] as? [Any] }.first
            let usableTimes = times?.count == positions.count ? times : nil
            out.startSegment()
            for (j, position) in positions.enumerated() {
                record += 1
                guard let p = position as? [Any], p.count >= 2, let lon = number(p[0]), let lat = number(p[1]),
                      let coordinate = try? GeoCoordinate(latitude: lat, longitude: lon)
                else {
                    out.skipped.append("record \(record)")
                    continue
                }
                var time: Double?
                switch usableTimes?[j] ?? (p.count > 3 ? p[3] : nil) {
                case let s as String: time = parseISO8601(s)
                case let n as NSNumber: time = n.doubleValue
                default: break
                }
                out.add(Fix(coordinate: coordinate, time: time, altitude: p.count > 2 ? number(p[2]) : nil), line: record)
            }
        }
        return out
    }

    static func number(_ value: Any?) -> Double? {
        if let n = value as? NSNumber {
            if n.objCType.pointee == CChar(UInt8(ascii: "c")) { return nil }
            return n.doubleValue
        }
        if let s = value as? String { return Double(s.trimmingCharacters(in: .whitespaces)) }
        return nil
    }

    // ---- GeoJSON networks through JSONSerialization (old GeoJSONNetworkReader, before RoadNetwork) ---------------

    static func networkWays(_ bytes: [UInt8]) -> [RoadWay] {
        guard let root = try? JSONSerialization.jsonObject(with: Data(bytes)), let doc = root as? [String: Any],
              let features = doc["features"] as? [[String: Any]]
        else { return [] }
        var ways: [RoadWay] = []
        for (i, feature) in features.enumerated() {
            let props = feature["properties"] as? [String: Any] ?? [:]
            guard let geometry = feature["geometry"] as? [String: Any], let type = geometry["type"] as? String else {
                continue
            }
            let lines: [Any]
            switch type {
            case "LineString": lines = [geometry["coordinates"] as Any]
            case "MultiLineString": lines = geometry["coordinates"] as? [Any] ?? []
            default: continue
            }
            let sourceID: EdgeSourceID
            if let n = (feature["id"] ?? props["id"]) as? NSNumber { sourceID = .number(n.int64Value) }
            else if let s = (feature["id"] ?? props["id"]) as? String { sourceID = Int64(s).map { .number($0) } ?? .string(s) }
            else { sourceID = .number(Int64(i)) }
            func text(_ k: String) -> String? {
                if let s = props[k] as? String { return s }
                if let n = props[k] as? NSNumber { return n.stringValue }
                return nil
            }
            let roadClass = text("highway").flatMap(RoadClass.init(highway:)) ?? .unknown
            var direction: TravelDirection = .both
            if let b = props["oneway"] as? Bool { direction = b ? .forward : .both }
            else if let s = text("oneway") { direction = ["yes", "true", "1"].contains(s.lowercased()) ? .forward : (s == "-1" ? .backward : .both) }
            let maxspeed = number(props["maxspeed"]) ?? text("maxspeed").flatMap { OSMTags.speedKmh($0) }
            let attributes = RoadAttributes(roadClass: roadClass, name: text("name"), ref: text("ref"),
                                            maxspeedForward: maxspeed, maxspeedBackward: maxspeed,
                                            lanes: text("lanes").flatMap { Int($0) }, turnLanesForward: text("turn:lanes"),
                                            isRoundabout: text("junction") == "roundabout",
                                            isToll: text("toll") == "yes" || props["toll"] as? Bool == true)
            for line in lines {
                guard let coords = line as? [[Any]] else { continue }
                var points: [GeoCoordinate] = []
                for c in coords {
                    guard c.count >= 2, let lon = number(c[0]), let lat = number(c[1]),
                          let p = try? GeoCoordinate(latitude: lat, longitude: lon) else { continue }
                    points.append(p)
                }
                if points.count >= 2 {
                    ways.append(RoadWay(sourceID: sourceID, coordinates: points, direction: direction, attributes: attributes))
                }
            }
        }
        return ways
    }

    // ---- The ISO 8601 parser as it was (one Array per call) ------------------------------------------------------

    static func parseISO8601(_ text: String) -> Double? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            var v = 0
            for _ in 0..<n {
                guard i < b.count, b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
                i += 1
            }
            return v
        }
        func eat(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let y = digits(4), eat(45), let mo = digits(2), eat(45), let d = digits(2), eat(84) || eat(32),
              let h = digits(2), eat(58), let mi = digits(2)
        else { return nil }
        var s = 0.0
        if eat(58), let sec = digits(2) {
            s = Double(sec)
            if eat(46) {
                var scale = 0.1
                while i < b.count, b[i] >= 48, b[i] <= 57 { s += Double(b[i] - 48) * scale; scale /= 10; i += 1 }
            }
        }
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1
        let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        return Double(days * 86_400 + h * 3600 + mi * 60) + s
    }
}
