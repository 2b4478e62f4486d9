import RoadSnapCore

/// Route results as text, JSON and GeoJSON.
public enum RouteOutput {
    /// Human-readable turn-by-turn list.
    public static func text(_ result: RouteResult) -> String {
        guard let route = result.route else { return "status: \(result.status.rawValue)\n\(result.message)\n" }
        var s = "status: ok\n"
        s += "distance: \(DisplayRounding.distanceText(route.distance)) (\(Int(route.distance.rounded())) m), "
        s += "time: \(DisplayRounding.timeText(route.duration)) (\(Int(route.duration.rounded())) s), "
        s += "driving side: \(route.drivingSide.rawValue)\n"
        for (i, leg) in route.legs.enumerated() {
            s += "leg \(i + 1): \(Int(leg.distance.rounded())) m, \(Int(leg.duration.rounded())) s, "
            s += "\(leg.steps.count) steps\n"
            for step in leg.steps {
                var line = "  \(step.stepNumber). "
                if step.stepNumber > 0 { line += "[\(DisplayRounding.distanceText(step.distanceFromPreviousStep))] " }
                line += step.instruction
                line += "  (\(step.maneuver.rawValue)"
                if step.roundaboutTurnNumber > 0 { line += ", exit \(step.roundaboutTurnNumber)" }
                if let n = step.exitNumber { line += ", exit number \(n)" }
                line += ")"
                if !step.lanes.isEmpty { line += "  lanes " + lanesText(step.lanes) }
                s += line + "\n"
            }
        }
        return s
    }

    /// Lanes as `[←] [↑*] [↑→*]`-style text with ASCII names: `[left] [through*]`.
    static func lanesText(_ lanes: [Lane]) -> String {
        lanes.map { lane in
            "[" + lane.directions.map { $0.shape.rawValue + ($0.isRecommended ? "*" : "") }.joined(separator: ";") + "]"
        }.joined(separator: " ")
    }

    /// A JSON object of the whole result (status, legs, steps, segments, geometry). With the network, segments
    /// also carry their edge's source id (OSM way id or GeoJSON feature id).
    public static func jsonObject(_ result: RouteResult, network: RoadNetwork? = nil) -> [String: Any] {
        var o: [String: Any] = ["status": result.status.rawValue]
        if !result.message.isEmpty { o["message"] = result.message }
        if let i = result.waypointIndex { o["waypoint_index"] = i }
        guard let route = result.route else { return o }
        o["distance_m"] = rounded(route.distance, places: 1)
        o["duration_s"] = rounded(route.duration, places: 1)
        o["driving_side"] = route.drivingSide.rawValue
        o["legs"] = route.legs.map { leg -> [String: Any] in
            [
                "distance_m": rounded(leg.distance, places: 1), "duration_s": rounded(leg.duration, places: 1),
                "origin": coord(leg.snappedOrigin), "destination": coord(leg.snappedDestination),
                "geometry": leg.geometry.map(coord),
                "segments": leg.segments.map { s -> [String: Any] in
                    ["arc": s.arc, "edge": s.edge, "forward": s.isForward, "from_offset_m": rounded(s.fromOffset, places: 1),
                     "to_offset_m": rounded(s.toOffset, places: 1), "duration_s": rounded(s.duration, places: 1),
                     "distance_from_leg_start_m": rounded(s.distanceFromLegStart, places: 1),
                     "source_id": network.map { $0.edges[s.edge].sourceID.description } ?? ""]
                },
                "steps": leg.steps.map(stepObject),
            ]
        }
        return o
    }

    static func stepObject(_ s: RouteStep) -> [String: Any] {
        var o: [String: Any] = [
            "step_number": s.stepNumber, "maneuver": s.maneuver.rawValue, "instruction": s.instruction,
            "location": coord(s.location), "road_name": s.simpleRoadName, "full_road_name": s.fullRoadName,
            "distance_from_prev_step_m": rounded(s.distanceFromPreviousStep, places: 1),
            "time_from_prev_step_s": rounded(s.timeFromPreviousStep, places: 1),
            "rounded_distance_from_prev_step_m": s.roundedDistanceFromPreviousStep,
            "rounded_time_from_prev_step_s": s.roundedTimeFromPreviousStep,
            "driving_side": s.drivingSide.rawValue, "roundabout_turn_number": s.roundaboutTurnNumber,
        ]
        if let n = s.exitNumber { o["exit_number"] = n }
        if let t = s.towards { o["towards"] = t }
        o["short_instruction"] = InstructionText.short(s)
        o["secondary_text"] = InstructionText.secondary(s)
        if !s.lanes.isEmpty {
            o["lanes"] = s.lanes.map { lane in
                lane.directions.map { ["shape": $0.shape.rawValue, "recommended": $0.isRecommended] as [String: Any] }
            }
        }
        return o
    }

    /// GeoJSON FeatureCollection: one LineString per leg (with `edge_ids`, the source ids of the traversed edges
    /// in order, when the network is given), one Point per step.
    public static func geoJSONObject(_ result: RouteResult, network: RoadNetwork? = nil) -> [String: Any] {
        var features: [[String: Any]] = []
        for (i, leg) in (result.route?.legs ?? []).enumerated() {
            features.append([
                "type": "Feature",
                "geometry": ["type": "LineString", "coordinates": leg.geometry.map(lonLat)],
                "properties": ["leg": i, "distance_m": rounded(leg.distance, places: 1), "duration_s": rounded(leg.duration, places: 1),
                               "edge_ids": edgeIDs(leg, network)] as [String: Any],
            ])
            for s in leg.steps {
                var p = stepObject(s)
                p.removeValue(forKey: "location")
                p["leg"] = i
                features.append(["type": "Feature", "geometry": ["type": "Point", "coordinates": lonLat(s.location)],
                                 "properties": p])
            }
        }
        var o: [String: Any] = ["type": "FeatureCollection", "features": features]
        o["status"] = result.status.rawValue
        if !result.message.isEmpty { o["message"] = result.message }
        return o
    }

    /// Serialises a JSON object (sorted keys, so output is deterministic). The bytes are those Foundation's
    /// `JSONSerialization` with `.sortedKeys` wrote before (tested against it): see `JSONObjectWriter`.
    public static func serialize(_ object: [String: Any]) throws(RoadSnapError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        try JSONObjectWriter.write(object, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes `text` to `path` atomically (temporary file in the same folder, fsync, rename).
    public static func write(_ text: String, to path: String) throws(RoadSnapError) {
        try AtomicFile.write(text, to: path)
    }

    /// Source ids of the traversed edges in order, a way split into several edges listed once per run.
    private static func edgeIDs(_ leg: RouteLeg, _ network: RoadNetwork?) -> [String] {
        guard let network else { return leg.segments.map { "\($0.edge)" } }
        var ids: [String] = []
        for s in leg.segments {
            let id = network.edges[s.edge].sourceID.description
            if ids.last != id { ids.append(id) }
        }
        return ids
    }
    private static func coord(_ c: GeoCoordinate) -> [Double] { [c.latitude, c.longitude] }
    static func lonLat(_ c: GeoCoordinate) -> [Double] { [c.longitude, c.latitude] }
}

/// The JSON null in a `[String: Any]` document (what `NSNull` was).
public struct JSONNull: Sendable, Hashable {
    public init() {}
}

/// Writes `[String: Any]` documents (String, Bool, integers, Double, arrays, dictionaries, `JSONNull`) as compact
/// JSON the way Foundation's `JSONSerialization` with `.sortedKeys` does on Linux, so outputs stay byte-identical:
/// keys in case-insensitive order (punctuation before digits before letters), `/` escaped as `\/`, doubles in Swift's
/// shortest form with a trailing `.0` dropped. A non-finite double is written as null.
enum JSONObjectWriter {
    static func write(_ value: Any, into out: inout [UInt8]) throws(RoadSnapError) {
        switch value {
        case let s as String: writeString(s, into: &out)
        case let b as Bool: out.append(contentsOf: (b ? "true" : "false").utf8)
        case let i as Int: out.append(contentsOf: String(i).utf8)
        case let d as Double: writeNumber(d, into: &out)
        case let i as any BinaryInteger: out.append(contentsOf: String(describing: i).utf8)
        case let f as Float: writeNumber(Double(f), into: &out)
        case is JSONNull: out.append(contentsOf: "null".utf8)
        case let o as [String: Any]:
            out.append(UInt8(ascii: "{"))
            for (k, key) in o.keys.sorted(by: keyPrecedes).enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                try write(o[key]!, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case let a as [Any]:
            out.append(UInt8(ascii: "["))
            for (k, element) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                try write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        default:
            // An Optional boxed in Any: null, or its value.
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else {
                throw .internalError("cannot encode a \(type(of: value)) as JSON")
            }
            guard let wrapped = mirror.children.first?.value else {
                out.append(contentsOf: "null".utf8)
                return
            }
            try write(wrapped, into: &out)
        }
    }

    static func writeNumber(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else { out.append(contentsOf: "null".utf8); return }
        var text = d.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        out.append(contentsOf: text.utf8)
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "/"): out.append(contentsOf: #"\/"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 15)])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// JSONSerialization's key order for the keys RoadSnap writes: ASCII letters compared case-insensitively,
    /// punctuation before digits before letters, a prefix before the longer key.
    static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        func rank(_ c: UInt8) -> (Int, UInt8) {
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): return (2, c)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return (2, c + 32)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return (1, c)
            case 0x80...: return (3, c)
            default: return (0, c)
            }
        }
        var i = a.utf8.makeIterator(), j = b.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return false
            case (nil, _): return true
            case (_, nil): return false
            case let (x?, y?):
                let rx = rank(x), ry = rank(y)
                if rx != ry { return rx < ry }
            }
        }
    }
}
