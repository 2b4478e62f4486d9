import RoadSnapCore

/// Map-matching results as newline-delimited JSON, one line per track (the streaming output of
/// `roadsnap match --input ndjson --format ndjson`; the schema is in docs/streaming.md):
///
///     {"id":"a","status":"ok","line":1,"fixes":1410,"matched":1398,"sub_matches":[{"index":0,"edge_ids":[...],
///      "length_m":..,"duration_s":..,"confidence":..,"first_fix":0,"last_fix":1409,"matched_fixes":..,
///      "geometry":"<polyline6>"}],"fix_results":[[row,edge_id,sub_match,offset_m,distance_m,lat,lon],...],
///      "skipped":[{"row":3,"reason":"..."}]}
///     {"id":"b","status":"error","line":2,"error":"..."}
///
/// Fix numbers (`first_fix`, `last_fix`, the first value of a `fix_results` entry, `row`) are input rows: indices
/// into the line's `fixes` array. `fix_results` holds one entry per usable fix; an unmatched fix is `[row, null]`.
public enum NDJSONMatchOutput {
    /// How sub-match geometries are written.
    public enum Geometry: String, Sendable, CaseIterable {
        /// Google's encoded polyline, 5 decimals (lat, lon).
        case polyline
        /// Encoded polyline with 6 decimals (OSRM's and Valhalla's `polyline6`).
        case polyline6
        /// An array of [lon, lat] positions (GeoJSON order).
        case coordinates
    }

    /// One result line (with its newline) for the track read from input line `line`.
    public static func line(id idJSON: String, line: Int, result: MatchResult, track: Track, network: RoadNetwork,
                            geometry: Geometry, perFix: Bool = true) -> [UInt8]
    {
        var out: [UInt8] = []
        out.reserveCapacity(128 + (perFix ? 72 : 0) * track.fixes.count
            + result.subMatches.reduce(0) { $0 + 16 * $1.geometry.count })
        func key(_ k: String) { out.append(contentsOf: k.utf8) }
        func number(_ v: Double) { JSONValue.writeNumber(v, into: &out) }
        key(#"{"id":"#); key(idJSON)
        key(#","status":"ok","line":"#); key(String(line))
        key(#","fixes":"#); key(String(track.fixes.count))
        key(#","matched":"#); key(String(result.matchedCount))
        key(#","sub_matches":["#)
        for (k, sub) in result.subMatches.enumerated() {
            if k > 0 { key(",") }
            key(#"{"index":"#); key(String(k))
            key(#","edge_ids":"#)
            JSONValue.array(result.edgeSourceIDs(of: sub, in: network).map(MatchOutput.id)).write(into: &out)
            key(#","length_m":"#); number(rounded(sub.length, places: 3))
            key(#","duration_s":"#)
            if let d = sub.duration { number(rounded(d, places: 3)) } else { key("null") }
            key(#","confidence":"#); number(rounded(sub.confidence, places: 3))
            key(#","first_fix":"#); key(String(MatchOutput.inputRow(track, sub.firstFix)))
            key(#","last_fix":"#); key(String(MatchOutput.inputRow(track, sub.lastFix)))
            key(#","matched_fixes":"#); key(String(sub.matchedFixCount))
            key(#","geometry":"#)
            var points = sub.geometry
            if points.count == 1 { points.append(points[0]) }
            switch geometry {
            case .polyline, .polyline6:
                var encoded: [UInt8] = []
                encodePolyline(points, precision: geometry == .polyline ? 1e5 : 1e6, into: &encoded)
                key("\"")
                for b in encoded {  // '\\' is the one character of the alphabet (63...126) JSON escapes
                    if b == UInt8(ascii: "\\") { out.append(b) }
                    out.append(b)
                }
                key("\"")
            case .coordinates:
                key("[")
                for (j, c) in points.enumerated() {
                    if j > 0 { key(",") }
                    key("["); number(c.longitude); key(","); number(c.latitude); key("]")
                }
                key("]")
            }
            key("}")
        }
        key("]")
        if perFix {
            key(#","fix_results":["#)
            for i in track.fixes.indices {
                if i > 0 { key(",") }
                key("["); key(String(MatchOutput.inputRow(track, i)))
                if i < result.fixes.count, let m = result.fixes[i] {
                    key(",")
                    MatchOutput.id(network.edges[m.edge].sourceID).write(into: &out)
                    key(","); key(String(m.subMatch))
                    key(","); number(rounded(m.offset, places: 3))
                    key(","); number(rounded(m.distance, places: 3))
                    key(","); number(m.coordinate.latitude)
                    key(","); number(m.coordinate.longitude)
                } else {
                    key(",null")
                }
                key("]")
            }
            key("]")
        }
        key(#","skipped":"#)
        skipped(track, into: &out)
        key("}\n")
        return out
    }

    /// The error line for input line `line` (its `id` as JSON text when known, else null).
    public static func errorLine(id idJSON: String?, line: Int, error: RoadSnapError,
                                 skippedFrom track: Track? = nil) -> [UInt8]
    {
        var out: [UInt8] = []
        out.append(contentsOf: #"{"id":"#.utf8)
        out.append(contentsOf: (idJSON ?? "null").utf8)
        out.append(contentsOf: #","status":"error","line":"#.utf8)
        out.append(contentsOf: String(line).utf8)
        out.append(contentsOf: #","error":"#.utf8)
        JSONValue.writeString(error.description, into: &out)
        if let track {
            out.append(contentsOf: #","skipped":"#.utf8)
            skipped(track, into: &out)
        }
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// `[{"row":R,"reason":"..."}]` from the track's skipped problems; the row is read from the reason's
    /// `fix R:` prefix that `NDJSONTrackReader` writes (null for other problems).
    static func skipped(_ track: Track, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (k, problem) in track.skipped.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            var reason = problem.description
            if case let .invalidTrack(_, _, r) = problem { reason = r }
            var row: Int?
            if reason.hasPrefix("fix "), let colon = reason.firstIndex(of: ":") {
                row = Int(reason[reason.index(reason.startIndex, offsetBy: 4)..<colon])
                if row != nil { reason = String(reason[reason.index(after: colon)...].drop { $0 == " " }) }
            }
            out.append(contentsOf: #"{"row":"#.utf8)
            out.append(contentsOf: (row.map(String.init) ?? "null").utf8)
            out.append(contentsOf: #","reason":"#.utf8)
            JSONValue.writeString(reason, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    /// Google's encoded polyline algorithm (latitude then longitude, deltas, zig-zag, 5-bit groups + 63).
    public static func encodePolyline(_ points: [GeoCoordinate], precision: Double, into out: inout [UInt8]) {
        var lastLat = 0, lastLon = 0
        func encode(_ v: Int) {
            var z = v < 0 ? ~(v << 1) : v << 1
            while z >= 0x20 {
                out.append(UInt8((0x20 | (z & 0x1F)) + 63))
                z >>= 5
            }
            out.append(UInt8(z + 63))
        }
        for p in points {
            let lat = Int((p.latitude * precision).rounded()), lon = Int((p.longitude * precision).rounded())
            encode(lat - lastLat)
            encode(lon - lastLon)
            lastLat = lat
            lastLon = lon
        }
    }
}
