import Foundation
import RoadSnapCore

/// Map-matching results as GeoJSON, CSV, GPX or OSRM-compatible match JSON.
public enum MatchOutput {
    public enum Format: String, Sendable, CaseIterable {
        case geojson, csv, gpx, osrm

        /// File extension for outputs of this format.
        public var fileExtension: String {
            switch self {
            case .geojson: return "geojson"
            case .csv: return "csv"
            case .gpx: return "gpx"
            case .osrm: return "json"
            }
        }
    }

    /// Renders `result` (of `track` on `network`) in `format`.
    public static func render(_ result: MatchResult, track: Track, network: RoadNetwork, format: Format) -> String {
        switch format {
        case .geojson: return geojson(result, track: track, network: network)
        case .csv: return csv(result, track: track, network: network)
        case .gpx: return gpx(result, track: track)
        case .osrm: return osrm(result, track: track, network: network)
        }
    }

    /// Renders and writes atomically (temporary file, then rename).
    public static func write(_ result: MatchResult, track: Track, network: RoadNetwork, format: Format,
                             to path: String) throws(RoadSnapError)
    {
        try AtomicFile.write(render(result, track: track, network: network, format: format), to: path)
    }

    static func json(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func position(_ c: GeoCoordinate) -> [Double] { [c.longitude, c.latitude] }

    static func r3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }

    /// One LineString per sub-match (`edge_ids`, `length_m`, `duration_s`, `confidence`, `first_fix`, `last_fix`),
    /// then one Point per input fix (`fix_index`, `time`, `matched`, `edge_id`, `distance_m`, `offset_m`).
    public static func geojson(_ result: MatchResult, track: Track, network: RoadNetwork) -> String {
        var features: [[String: Any]] = []
        for (k, sub) in result.subMatches.enumerated() {
            var props: [String: Any] = [
                "sub_match": k,
                "edge_ids": result.edgeSourceIDs(of: sub, in: network).map(SnapOutput.jsonID),
                "length_m": r3(sub.length),
                "confidence": r3(sub.confidence),
                "first_fix": sub.firstFix,
                "last_fix": sub.lastFix,
                "matched_fixes": sub.matchedFixCount,
            ]
            props["duration_s"] = sub.duration.map { r3($0) as Any } ?? NSNull()
            var coords = sub.geometry.map(position)
            if coords.count == 1 { coords.append(coords[0]) }  // a LineString needs two positions
            features.append(["type": "Feature", "properties": props,
                             "geometry": ["type": "LineString", "coordinates": coords]])
        }
        for (i, fix) in track.fixes.enumerated() {
            let m = i < result.fixes.count ? result.fixes[i] : nil
            var props: [String: Any] = ["fix_index": i, "matched": m != nil]
            props["time"] = fix.time.map { SnapOutput.isoTime($0) as Any } ?? NSNull()
            let point: GeoCoordinate
            if let m {
                props["edge_id"] = SnapOutput.jsonID(network.edges[m.edge].sourceID)
                props["distance_m"] = r3(m.distance)
                props["offset_m"] = r3(m.offset)
                props["forward"] = m.forward
                props["sub_match"] = m.subMatch
                props["raw_position"] = position(fix.coordinate)
                point = m.coordinate
            } else {
                props["edge_id"] = NSNull()
                props["distance_m"] = NSNull()
                props["offset_m"] = NSNull()
                point = fix.coordinate
            }
            features.append(["type": "Feature", "properties": props,
                             "geometry": ["type": "Point", "coordinates": position(point)]])
        }
        return json(["type": "FeatureCollection", "features": features])
    }

    /// One row per input fix.
    public static func csv(_ result: MatchResult, track: Track, network: RoadNetwork) -> String {
        var out = "fix_index,time,lat,lon,matched,sub_match,edge_id,forward,matched_lat,matched_lon,distance_m,offset_m\n"
        for (i, fix) in track.fixes.enumerated() {
            let time = fix.time.map { SnapOutput.isoTime($0) } ?? ""
            out += "\(i),\(time),\(fix.coordinate.latitude),\(fix.coordinate.longitude),"
            if i < result.fixes.count, let m = result.fixes[i] {
                out += "true,\(m.subMatch),\(csvField(network.edges[m.edge].sourceID.description)),\(m.forward),"
                out += "\(m.coordinate.latitude),\(m.coordinate.longitude),\(r3(m.distance)),\(r3(m.offset))\n"
            } else {
                out += "false,,,,,,,\n"
            }
        }
        return out
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
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
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<gpx version=\"1.1\" creator=\"roadsnap\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        out += "  <trk>\n    <name>\(xmlEscaped(track.name)) (matched)</name>\n"
        for sub in result.subMatches {
            out += "    <trkseg>\n"
            for c in sub.geometry { out += "      <trkpt lat=\"\(c.latitude)\" lon=\"\(c.longitude)\"></trkpt>\n" }
            out += "    </trkseg>\n"
        }
        out += "  </trk>\n</gpx>\n"
        return out
    }

    /// OSRM `match` service response: `code`, `matchings` (confidence, distance, duration, GeoJSON geometry, legs)
    /// and `tracepoints` (null for fixes not matched), so OSRM clients can switch.
    public static func osrm(_ result: MatchResult, track: Track, network: RoadNetwork) -> String {
        var matchings: [[String: Any]] = []
        var waypointIndex = [Int](repeating: 0, count: track.fixes.count)
        for (k, sub) in result.subMatches.enumerated() {
            var legs: [[String: Any]] = []
            var previous: (Int, MatchedFix)? = nil
            var w = 0
            for i in sub.firstFix...sub.lastFix {
                guard i < result.fixes.count, let m = result.fixes[i], m.subMatch == k else { continue }
                waypointIndex[i] = w
                w += 1
                if let (j, p) = previous {
                    let distance = max(0, m.along - p.along)
                    let duration = legDuration(from: j, to: i, distance: distance, on: m.edge, track: track,
                                               network: network)
                    legs.append(["distance": r3(distance), "duration": r3(duration), "weight": r3(duration),
                                 "summary": "", "steps": [Any]()])
                }
                previous = (i, m)
            }
            let duration = legs.reduce(0.0) { $0 + ($1["duration"] as? Double ?? 0) }
            var coords = sub.geometry.map(position)
            if coords.count == 1 { coords.append(coords[0]) }
            matchings.append([
                "confidence": r3(sub.confidence), "distance": r3(sub.length), "duration": r3(duration),
                "weight": r3(duration), "weight_name": "duration", "legs": legs,
                "geometry": ["type": "LineString", "coordinates": coords],
            ])
        }
        var tracepoints: [Any] = []
        for (i, fix) in track.fixes.enumerated() {
            guard i < result.fixes.count, let m = result.fixes[i] else { tracepoints.append(NSNull()); continue }
            _ = fix
            tracepoints.append([
                "location": position(m.coordinate), "name": network.edges[m.edge].attributes.name ?? "",
                "distance": r3(m.distance), "hint": "", "matchings_index": m.subMatch,
                "waypoint_index": waypointIndex[i], "alternatives_count": 0,
            ] as [String: Any])
        }
        let code = result.subMatches.isEmpty ? "NoMatch" : "Ok"
        var doc: [String: Any] = ["code": code, "tracepoints": tracepoints, "matchings": matchings]
        if result.subMatches.isEmpty { doc["message"] = "Could not match the trace." }
        return json(doc)
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
