import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RoadSnapCore

/// GPX 1.0 / 1.1 through Foundation's `XMLParser`: every `trkseg` and `rte` opens a segment, `trkpt`/`rtept` give
/// fixes with `ele`, `time`, `course`, `speed`, `hdop` (also `course`/`speed` inside extensions, as Garmin's
/// TrackPointExtension v2 writes them). Waypoints (`wpt`) are not a track.
enum GPXTrackReader {
    static func read(bytes: [UInt8], name: String) throws(RoadSnapError) -> Track {
        // Fed as a stream so libxml2 gets the document in chunks: handed over whole, a document above libxml2's
        // 10 MB look-up limit fails at its end ("XML parser error 1") on Linux.
        let parser = XMLParser(stream: InputStream(data: Data(bytes)))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let handler = GPXHandler(name: name)
        parser.delegate = handler
        let ok = parser.parse()
        if let error = handler.error { throw error }
        guard ok, handler.parseError == nil else {
            let line = handler.errorLine ?? (parser.lineNumber > 0 ? parser.lineNumber : nil)
            throw .invalidTrack(path: name, line: line,
                                reason: "malformed XML: \(describe(handler.parseError ?? parser.parserError))")
        }
        guard handler.sawRoot else { throw .invalidTrack(path: name, line: nil, reason: "not a GPX file: no <gpx> element") }
        // The XML parser can end a truncated document without an error; open elements show it.
        if let unclosed = handler.openElements.last {
            let lastLine = bytes.reduce(1) { $0 + ($1 == 10 ? 1 : 0) } - (bytes.last == 10 ? 1 : 0)
            throw .invalidTrack(path: name, line: lastLine,
                                reason: "malformed XML: the file ends inside <\(unclosed)> (truncated?)")
        }
        guard handler.trackCount > 0 else {
            let wpt = handler.waypointCount > 0 ? " (only \(handler.waypointCount) waypoints)" : ""
            throw .invalidTrack(path: name, line: nil, reason: "no tracks found: no <trk> or <rte>\(wpt)")
        }
        guard handler.pointCount > 0 else {
            throw .invalidTrack(path: name, line: nil, reason: "no track points found: <trk>/<rte> without <trkpt>/<rtept>")
        }
        return try handler.builder.finish(emptyReason: "no usable track point")
    }

    static func describe(_ error: Error?) -> String {
        guard let error else { return "parse failed" }
        let ns = error as NSError
        if let detail = ns.userInfo[NSLocalizedDescriptionKey] as? String, !detail.isEmpty { return detail }
        // On Linux the code is libxml2's (xmlParserErrors), which differs from XMLParser.ErrorCode's numbering.
        let libxml2Meaning: [Int: String] = [
            4: "document is empty", 5: "extra content at the end of the document", 9: "invalid character",
            39: "attribute value not started", 40: "attribute value not finished", 41: "attribute without value",
            73: "'>' required", 76: "closing tag does not match the open element", 77: "premature end of data in tag",
        ]
        let kind = libxml2Meaning[ns.code].map { ": \($0)" } ?? ""
        return "XML parser error \(ns.code)\(kind) (truncated or not well-formed?)"
    }
}

/// Collects fixes while `XMLParser` walks the document (used on one thread, for one parse).
private final class GPXHandler: NSObject, XMLParserDelegate {
    var builder: TrackBuilder
    var error: RoadSnapError?
    var sawRoot = false
    var trackCount = 0, pointCount = 0, waypointCount = 0
    var parseError: Error?
    var errorLine: Int?
    /// Elements opened and not yet closed, outermost first.
    var openElements: [String] = []

    private var inPoint = false
    private var pointDepth = 0
    private var pointLine = 0
    private var pointLat: String?, pointLon: String?
    private var values: [String: String] = [:]
    private var text = ""
    private var collecting = false
    private static let pointFields: Set<String> = ["ele", "time", "course", "speed", "hdop", "fix"]

    init(name: String) { builder = TrackBuilder(name: name) }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes: [String: String] = [:])
    {
        openElements.append(qName ?? elementName)
        if !sawRoot {
            sawRoot = true
            guard elementName == "gpx" else {
                error = .invalidTrack(path: builder.name, line: parser.lineNumber,
                                      reason: "not a GPX file: root element is <\(qName ?? elementName)>, not <gpx>")
                parser.abortParsing()
                return
            }
            return
        }
        switch elementName {
        case "trk", "rte":
            trackCount += 1
            builder.startSegment()
        case "trkseg":
            builder.startSegment()
        case "trkpt", "rtept":
            inPoint = true
            pointDepth = openElements.count
            pointCount += 1
            pointLine = parser.lineNumber
            pointLat = attributes["lat"]
            pointLon = attributes["lon"]
            values.removeAll(keepingCapacity: true)
        case "wpt":
            waypointCount += 1
        default:
            // ele/time/hdop/fix are direct children; course and speed may sit in extensions (Garmin TPX v2).
            if inPoint, Self.pointFields.contains(elementName),
               openElements.count == pointDepth + 1 || elementName == "course" || elementName == "speed"
            {
                collecting = true
                text = ""
            }
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        if self.parseError == nil {
            self.parseError = parseError
            errorLine = parser.lineNumber > 0 ? parser.lineNumber : nil
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
            if values[elementName] == nil { values[elementName] = String(text.trimmingSpaces) }
            return
        }
        guard inPoint, elementName == "trkpt" || elementName == "rtept" else { return }
        inPoint = false
        switch makeFix() {
        case let .success(fix): builder.add(fix, line: pointLine)
        case let .failure(problem): builder.skip(line: pointLine, "<\(elementName)>: \(problem.reason)")
        }
    }

    private func makeFix() -> Result<Fix, TrackValueError> {
        guard let latText = pointLat, let lonText = pointLon else {
            return .failure(TrackValueError("missing lat or lon attribute"))
        }
        guard let lat = Double(latText.trimmingSpaces), let lon = Double(lonText.trimmingSpaces) else {
            return .failure(TrackValueError("lat=\"\(latText)\" lon=\"\(lonText)\" is not a number pair"))
        }
        let coordinate: GeoCoordinate
        switch TrackBuilder.coordinate(latitude: lat, longitude: lon) {
        case let .success(c): coordinate = c
        case let .failure(e): return .failure(e)
        }
        if values["fix"] == "none" { return .failure(TrackValueError("<fix>none</fix>: the receiver had no fix")) }
        var time: Double?
        if let t = values["time"], !t.isEmpty {
            guard let parsed = TrackTime.parseISO8601(t) else {
                return .failure(TrackValueError("time \"\(t)\" is not ISO 8601"))
            }
            time = parsed
        }
        var numbers: [String: Double] = [:]
        for key in ["ele", "course", "speed", "hdop"] {
            guard let v = values[key], !v.isEmpty else { continue }
            guard let n = Double(v) else { return .failure(TrackValueError("<\(key)> \"\(v)\" is not a number")) }
            numbers[key] = n
        }
        let accuracy = numbers["hdop"].map { $0 * metresPerHDOP }
        if let problem = TrackBuilder.checkOptional(course: numbers["course"], speed: numbers["speed"],
                                                    altitude: numbers["ele"], accuracy: accuracy)
        {
            return .failure(problem)
        }
        return .success(Fix(coordinate: coordinate, time: time, course: numbers["course"].map(normalisedCourse),
                            speed: numbers["speed"], altitude: numbers["ele"], horizontalAccuracy: accuracy))
    }
}
