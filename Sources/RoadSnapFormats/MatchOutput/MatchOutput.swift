import RoadSnapCore

/// Map-matching results as GeoJSON, CSV, GPX or OSRM-compatible match JSON.
public enum MatchOutput {
    public enum Format: String, Sendable, CaseIterable {
        case geojson, csv, gpx, osrm
        /// A self-contained HTML page with the map picture (issue 14; Pictures/MatchReport.swift).
        case html

        /// File extension for outputs of this format.
        public var fileExtension: String {
            switch self {
            case .geojson: return "geojson"
            case .csv: return "csv"
            case .gpx: return "gpx"
            case .osrm: return "json"
            case .html: return "html"
            }
        }
    }

    /// Renders `result` (of `track` on `network`) in `format`; the HTML picture draws `areas` (water, buildings) too.
    public static func render(_ result: MatchResult, track: Track, network: RoadNetwork, format: Format,
                              areas: MapAreas? = nil) -> String {
        let out = ChunkedOutput()
        write(result, track: track, network: network, format: format, areas: areas, into: out)
        return out.text
    }

    /// Renders into `out` record by record (`render` keeps it all; a file or standard output gets it in chunks):
    /// the one renderer of each format.
    public static func write(_ result: MatchResult, track: Track, network: RoadNetwork, format: Format,
                             areas: MapAreas? = nil, into out: ChunkedOutput) {
        switch format {
        case .geojson: geojson(result, track: track, network: network, into: out)
        case .csv: csv(result, track: track, network: network, into: out)
        case .gpx: gpx(result, track: track, into: out)
        case .osrm: osrm(result, track: track, network: network, into: out)
        case .html: out.append(MatchReport.html(result, track: track, network: network, areas: areas))
        }
    }

    /// Renders and writes atomically (temporary file, then rename), streamed in chunks.
    public static func write(_ result: MatchResult, track: Track, network: RoadNetwork, format: Format,
                             areas: MapAreas? = nil, to path: String) throws(RoadSnapError)
    {
        try AtomicFile.stream(to: path) { out in
            write(result, track: track, network: network, format: format, areas: areas, into: out)
        }
    }

    /// Seconds since the epoch as ISO 8601 UTC (`2009-01-17T20:45:25Z`, milliseconds when not whole; "" beyond
    /// ±1e11 s). The one writer is `TrackTime.iso8601`, checked against Foundation's formatter in the tests.
    public static func isoTime(_ t: Double) -> String { TrackTime.iso8601(t) }

    /// The input row of fix `i` (`Track.rows`): what every format writes as `fix_index`, so results join back to the
    /// input even when rows were skipped.
    @inline(__always)
    static func inputRow(_ track: Track, _ i: Int) -> Int { i < track.rows.count ? Int(track.rows[i]) : i }

    /// One LineString per sub-match (`edge_ids`, `length_m`, `duration_s`, `confidence`, `first_fix`, `last_fix`),
    /// then one Point per input fix (`fix_index`, `time`, `matched`, `edge_id`, `distance_m`, `offset_m`). Fix
    /// numbers (`fix_index`, `first_fix`, `last_fix`) are input rows (`Track.rows`), skipped rows leaving gaps.
    /// The sub-match features go through the JSON tree; the per-fix Points, the bulk of the file, are written
    /// directly with their keys in sorted order (the one path: tested against Foundation reading and rewriting it,
    /// and field by field against the result).
    public static func geojson(_ result: MatchResult, track: Track, network: RoadNetwork) -> String {
        let out = ChunkedOutput()
        geojson(result, track: track, network: network, into: out)
        return out.text
    }

    static func geojson(_ result: MatchResult, track: Track, network: RoadNetwork, into stream: ChunkedOutput) {
        stream.append(#"{"features":["#)
        for (k, sub) in result.subMatches.enumerated() {
            if k > 0 { stream.append(UInt8(ascii: ",")) }
            subMatchFeature(k, sub, result: result, track: track, network: network).write(into: &stream.bytes)
            stream.chunkDone()
        }
        for i in track.fixes.indices {
            if i > 0 || !result.subMatches.isEmpty { stream.append(UInt8(ascii: ",")) }
            geojsonPoint(i, result: result, track: track, network: network, into: &stream.bytes)
            stream.chunkDone()
        }
        stream.append("],\"type\":\"FeatureCollection\"}\n")
    }

    /// The Point feature of fix `i`, its keys in sorted order.
    private static func geojsonPoint(_ i: Int, result: MatchResult, track: Track, network: RoadNetwork,
                                     into out: inout [UInt8]) {
            let fix = track.fixes[i]
            let m = i < result.fixes.count ? result.fixes[i] : nil
            func number(_ v: Double) { JSONValue.writeNumber(v, into: &out) }
            func key(_ k: String) { out.append(contentsOf: k.utf8) }  // k holds its quotes, colon and comma
            let point = m?.coordinate ?? fix.coordinate
            key(#"{"geometry":{"coordinates":["#)
            number(point.longitude); key(","); number(point.latitude)
            key(#"],"type":"Point"},"properties":{"distance_m":"#)
            if let m { number(rounded(m.distance, places: 3)) } else { key("null") }
            key(#","edge_id":"#)
            if let m { id(network.edges[m.edge].sourceID).write(into: &out) } else { key("null") }
            key(#","fix_index":"#); out.append(contentsOf: String(inputRow(track, i)).utf8)
            if let m { key(#","forward":"#); key(m.forward ? "true" : "false") }
            key(#","matched":"#); key(m != nil ? "true" : "false")
            key(#","offset_m":"#)
            if let m { number(rounded(m.offset, places: 3)) } else { key("null") }
            if let m {
                key(#","raw_position":["#)
                number(fix.coordinate.longitude); key(","); number(fix.coordinate.latitude)
                key(#"],"sub_match":"#); out.append(contentsOf: String(m.subMatch).utf8)
            }
            key(#","time":"#)
            if let t = fix.time { JSONValue.writeString(isoTime(t), into: &out) } else { key("null") }
            key(#"},"type":"Feature"}"#)
    }

    /// One sub-match's LineString feature.
    static func subMatchFeature(_ k: Int, _ sub: SubMatch, result: MatchResult, track: Track, network: RoadNetwork)
        -> JSONValue
    {
        let props: JSONValue = [
            "sub_match": .number(k),
            "edge_ids": .array(result.edgeSourceIDs(of: sub, in: network).map(id)),
            "length_m": .number(rounded(sub.length, places: 3)),
            "duration_s": sub.duration.map { .number(rounded($0, places: 3)) } ?? .null,
            "confidence": .number(rounded(sub.confidence, places: 3)),
            "first_fix": .number(inputRow(track, sub.firstFix)),
            "last_fix": .number(inputRow(track, sub.lastFix)),
            "matched_fixes": .number(sub.matchedFixCount),
        ]
        return ["type": "Feature", "properties": props, "geometry": line(sub.geometry)]
    }

    /// A source id as JSON: a number when it is one.
    static func id(_ id: EdgeSourceID) -> JSONValue {
        switch id {
        case let .osmWay(n), let .number(n): return .int(n)
        case let .string(s): return .string(s)
        }
    }

    static func position(_ c: GeoCoordinate) -> JSONValue { [.number(c.longitude), .number(c.latitude)] }

    /// A GeoJSON LineString (a lone point is repeated: a LineString needs two positions).
    static func line(_ points: [GeoCoordinate]) -> JSONValue {
        var coords = points.map(position)
        if coords.count == 1 { coords.append(coords[0]) }
        return ["type": "LineString", "coordinates": .array(coords)]
    }

    /// One row per input fix.
    public static func csv(_ result: MatchResult, track: Track, network: RoadNetwork) -> String {
        let out = ChunkedOutput()
        csv(result, track: track, network: network, into: out)
        return out.text
    }

    static func csv(_ result: MatchResult, track: Track, network: RoadNetwork, into out: ChunkedOutput) {
        out.append("fix_index,time,lat,lon,matched,sub_match,edge_id,forward,matched_lat,matched_lon,distance_m,offset_m\n")
        for (i, fix) in track.fixes.enumerated() {
            let time = fix.time.map { isoTime($0) } ?? ""
            out.append("\(inputRow(track, i)),\(time),\(fix.coordinate.latitude),\(fix.coordinate.longitude),")
            if i < result.fixes.count, let m = result.fixes[i] {
                out.append("true,\(m.subMatch),\(csvField(network.edges[m.edge].sourceID.description)),\(m.forward),")
                out.append("\(m.coordinate.latitude),\(m.coordinate.longitude),\(rounded(m.distance, places: 3)),\(rounded(m.offset, places: 3))\n")
            } else {
                out.append("false,,,,,,,\n")
            }
            out.chunkDone()
        }
    }

    static func csvField(_ s: String) -> String {
        // By bytes: "\r\n" is one Character, equal to neither "\r" nor "\n".
        guard s.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 })
        else { return s }
        var quoted = "\""
        for ch in s {
            if ch == "\"" { quoted += "\"\"" } else { quoted.append(ch) }
        }
        return quoted + "\""
    }

    static func xmlEscaped(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// GPX 1.1 with one track segment per sub-match along the matched path.
    public static func gpx(_ result: MatchResult, track: Track) -> String {
        let out = ChunkedOutput()
        gpx(result, track: track, into: out)
        return out.text
    }

    static func gpx(_ result: MatchResult, track: Track, into out: ChunkedOutput) {
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        out.append("<gpx version=\"1.1\" creator=\"roadsnap\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n")
        out.append("  <trk>\n    <name>\(xmlEscaped(track.name)) (matched)</name>\n")
        for sub in result.subMatches {
            out.append("    <trkseg>\n")
            for c in sub.geometry {
                out.append("      <trkpt lat=\"\(c.latitude)\" lon=\"\(c.longitude)\"></trkpt>\n")
                out.chunkDone()
            }
            out.append("    </trkseg>\n")
        }
        out.append("  </trk>\n</gpx>\n")
    }

    /// OSRM `match` service response: `code`, `matchings` (confidence, distance, duration, GeoJSON geometry, legs)
    /// and `tracepoints` (null for fixes not matched), so OSRM clients can switch.
    public static func osrm(_ result: MatchResult, track: Track, network: RoadNetwork) -> String {
        let out = ChunkedOutput()
        osrm(result, track: track, network: network, into: out)
        return out.text
    }

    /// Streams the document `osrmDocument` builds, matching by matching and tracepoint by tracepoint, with the
    /// same bytes (keys in sorted order: `code`, `matchings`, `message`, `tracepoints`).
    static func osrm(_ result: MatchResult, track: Track, network: RoadNetwork, into out: ChunkedOutput) {
        var last = -1
        for i in track.fixes.indices {
            let r = inputRow(track, i)
            guard r > last else {
                // Rows not increasing (no reader makes such a track): the tree, where a later fix's row wins.
                out.append(osrmDocument(result, track: track, network: network).text())
                return
            }
            last = r
        }
        out.append(#"{"code":"#)
        out.append(result.subMatches.isEmpty ? #""NoMatch""# : #""Ok""#)
        out.append(#","matchings":["#)
        for (k, sub) in result.subMatches.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            osrmMatching(k, sub, result: result, track: track, network: network, into: out)
            out.chunkDone()
        }
        out.append("]")
        if result.subMatches.isEmpty { out.append(#","message":"Could not match the trace.""#) }
        out.append(#","tracepoints":["#)
        // A fix's waypoint index: its place among its sub-match's matched fixes (those in the sub-match's range).
        var waypoints = [Int](repeating: 0, count: result.subMatches.count)
        var row = 0
        for i in track.fixes.indices {
            let r = inputRow(track, i)
            while row < r {
                out.append(row > 0 ? ",null" : "null")
                row += 1
            }
            if row > 0 { out.append(UInt8(ascii: ",")) }
            if i < result.fixes.count, let m = result.fixes[i] {
                var w = 0
                if m.subMatch >= 0, m.subMatch < waypoints.count,
                   result.subMatches[m.subMatch].firstFix <= i, i <= result.subMatches[m.subMatch].lastFix
                {
                    w = waypoints[m.subMatch]
                    waypoints[m.subMatch] += 1
                }
                osrmTracepoint(m, waypoint: w, network: network).write(into: &out.bytes)
            } else {
                out.append("null")
            }
            row += 1
            out.chunkDone()
        }
        out.append("]}\n")
    }

    /// Calls `body` for each matched fix of matching `k` in order, with its waypoint index and the leg from the
    /// previous one (nil for the first).
    static func osrmLegs(_ k: Int, _ sub: SubMatch, result: MatchResult, track: Track, network: RoadNetwork,
                         _ body: (_ fix: Int, _ waypoint: Int, _ leg: JSONValue?, _ duration: Double) -> Void)
    {
        var previous: (Int, MatchedFix)? = nil
        var w = 0
        for i in sub.firstFix...sub.lastFix {
            guard i < result.fixes.count, let m = result.fixes[i], m.subMatch == k else { continue }
            var leg: JSONValue? = nil
            var legDuration = 0.0
            if let (j, p) = previous {
                let distance = max(0, m.along - p.along)
                let duration = Self.legDuration(from: j, to: i, distance: distance, on: m.edge, track: track,
                                                network: network)
                legDuration = rounded(duration, places: 3)
                leg = ["distance": .number(rounded(distance, places: 3)), "duration": .number(legDuration),
                       "weight": .number(legDuration), "summary": "", "steps": []]
            }
            body(i, w, leg, legDuration)
            w += 1
            previous = (i, m)
        }
    }

    /// Matching `k` (confidence, distance, duration, geometry, legs between its matched fixes, weight), written leg
    /// by leg, keys in sorted order (the `osrmDocument` tree's bytes).
    static func osrmMatching(_ k: Int, _ sub: SubMatch, result: MatchResult, track: Track, network: RoadNetwork,
                             into out: ChunkedOutput)
    {
        var total = 0.0
        osrmLegs(k, sub, result: result, track: track, network: network) { _, _, _, d in total += d }
        func number(_ v: Double) { JSONValue.number(v).write(into: &out.bytes) }
        out.append(#"{"confidence":"#); number(rounded(sub.confidence, places: 3))
        out.append(#","distance":"#); number(rounded(sub.length, places: 3))
        out.append(#","duration":"#); number(rounded(total, places: 3))
        out.append(#","geometry":"#); line(sub.geometry).write(into: &out.bytes)
        out.append(#","legs":["#)
        var first = true
        osrmLegs(k, sub, result: result, track: track, network: network) { _, _, leg, _ in
            guard let leg else { return }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            leg.write(into: &out.bytes)
            out.chunkDone()
        }
        out.append(#"],"weight":"#); number(rounded(total, places: 3))
        out.append(#","weight_name":"duration"}"#)
    }

    /// The tracepoint of a matched fix.
    static func osrmTracepoint(_ m: MatchedFix, waypoint: Int, network: RoadNetwork) -> JSONValue {
        [
            "location": position(m.coordinate), "name": .string(network.edges[m.edge].attributes.name ?? ""),
            "distance": .number(rounded(m.distance, places: 3)), "hint": "", "matchings_index": .number(m.subMatch),
            "waypoint_index": .number(waypoint), "alternatives_count": 0,
        ]
    }

    /// The OSRM response as one tree (what `osrm` streams; kept for tracks whose rows are not increasing and for the
    /// tests that check the JSON writer against Foundation).
    static func osrmDocument(_ result: MatchResult, track: Track, network: RoadNetwork) -> JSONValue {
        var matchings: [JSONValue] = []
        var waypointIndex = [Int](repeating: 0, count: track.fixes.count)
        for (k, sub) in result.subMatches.enumerated() {
            var legs: [JSONValue] = []
            var total = 0.0
            osrmLegs(k, sub, result: result, track: track, network: network) { i, w, leg, duration in
                waypointIndex[i] = w
                if let leg { legs.append(leg) }
                total += duration
            }
            matchings.append([
                "confidence": .number(rounded(sub.confidence, places: 3)), "distance": .number(rounded(sub.length, places: 3)),
                "duration": .number(rounded(total, places: 3)), "weight": .number(rounded(total, places: 3)), "weight_name": "duration",
                "legs": .array(legs), "geometry": line(sub.geometry),
            ])
        }
        // One tracepoint per input row (OSRM gives one per input coordinate): null for rows skipped or not matched.
        let rowCount = track.fixes.indices.reduce(0) { max($0, inputRow(track, $1) + 1) }
        var tracepoints = [JSONValue](repeating: .null, count: rowCount)
        for i in track.fixes.indices {
            guard i < result.fixes.count, let m = result.fixes[i] else { continue }
            tracepoints[inputRow(track, i)] = osrmTracepoint(m, waypoint: waypointIndex[i], network: network)
        }
        var doc: [String: JSONValue] = ["code": result.subMatches.isEmpty ? "NoMatch" : "Ok",
                                        "tracepoints": .array(tracepoints), "matchings": .array(matchings)]
        if result.subMatches.isEmpty { doc["message"] = "Could not match the trace." }
        return JSONValue.object(doc)
    }

    /// Seconds between fixes `a` and `b`: their time difference when both have one, else the distance at the road's
    /// speed.
    static func legDuration(from a: Int, to b: Int, distance: Double, on edge: Int, track: Track,
                            network: RoadNetwork) -> Double
    {
        if let t0 = track.fixes[a].time, let t1 = track.fixes[b].time { return max(0, t1 - t0) }
        let kmh = network.edges[edge].attributes.speedKmh(forward: true)
        return kmh > 0 ? distance / (kmh / 3.6) : 0
    }
}
