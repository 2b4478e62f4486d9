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
    public static func jsonObject(_ result: RouteResult, network: RoadNetwork? = nil) -> JSONValue {
        var o: JSONValue = ["status": .string(result.status.rawValue)]
        if !result.message.isEmpty { o["message"] = .string(result.message) }
        if let i = result.waypointIndex { o["waypoint_index"] = .number(i) }
        guard let route = result.route else { return o }
        o["distance_m"] = .number(rounded(route.distance, places: 1))
        o["duration_s"] = .number(rounded(route.duration, places: 1))
        o["driving_side"] = .string(route.drivingSide.rawValue)
        o["legs"] = .array(route.legs.map { leg -> JSONValue in
            [
                "distance_m": .number(rounded(leg.distance, places: 1)),
                "duration_s": .number(rounded(leg.duration, places: 1)),
                "origin": .latLon(leg.snappedOrigin), "destination": .latLon(leg.snappedDestination),
                "geometry": .array(leg.geometry.map(JSONValue.latLon)),
                "segments": .array(leg.segments.map { s -> JSONValue in
                    ["arc": .number(s.arc), "edge": .number(s.edge), "forward": .bool(s.isForward),
                     "from_offset_m": .number(rounded(s.fromOffset, places: 1)),
                     "to_offset_m": .number(rounded(s.toOffset, places: 1)),
                     "duration_s": .number(rounded(s.duration, places: 1)),
                     "distance_from_leg_start_m": .number(rounded(s.distanceFromLegStart, places: 1)),
                     "source_id": .string(network.map { $0.edges[s.edge].sourceID.description } ?? "")]
                }),
                "steps": .array(leg.steps.map(stepObject)),
            ]
        })
        return o
    }

    static func stepObject(_ s: RouteStep) -> JSONValue {
        var o: JSONValue = [
            "step_number": .number(s.stepNumber), "maneuver": .string(s.maneuver.rawValue),
            "instruction": .string(s.instruction), "location": .latLon(s.location),
            "road_name": .string(s.simpleRoadName), "full_road_name": .string(s.fullRoadName),
            "distance_from_prev_step_m": .number(rounded(s.distanceFromPreviousStep, places: 1)),
            "time_from_prev_step_s": .number(rounded(s.timeFromPreviousStep, places: 1)),
            "rounded_distance_from_prev_step_m": .number(s.roundedDistanceFromPreviousStep),
            "rounded_time_from_prev_step_s": .number(s.roundedTimeFromPreviousStep),
            "driving_side": .string(s.drivingSide.rawValue), "roundabout_turn_number": .number(s.roundaboutTurnNumber),
        ]
        if let n = s.exitNumber { o["exit_number"] = .string(n) }
        if let t = s.towards { o["towards"] = .string(t) }
        o["short_instruction"] = .string(InstructionText.short(s))
        o["secondary_text"] = .string(InstructionText.secondary(s))
        if !s.lanes.isEmpty {
            o["lanes"] = .array(s.lanes.map { lane in
                .array(lane.directions.map { ["shape": .string($0.shape.rawValue), "recommended": .bool($0.isRecommended)] })
            })
        }
        return o
    }

    /// GeoJSON FeatureCollection: one LineString per leg (with `edge_ids`, the source ids of the traversed edges
    /// in order, when the network is given), one Point per step.
    public static func geoJSONObject(_ result: RouteResult, network: RoadNetwork? = nil) -> JSONValue {
        var features: [JSONValue] = []
        for (i, leg) in (result.route?.legs ?? []).enumerated() {
            features.append([
                "type": "Feature",
                "geometry": ["type": "LineString", "coordinates": .array(leg.geometry.map(JSONValue.lonLat))],
                "properties": ["leg": .number(i), "distance_m": .number(rounded(leg.distance, places: 1)),
                               "duration_s": .number(rounded(leg.duration, places: 1)),
                               "edge_ids": .array(edgeIDs(leg, network).map { .string($0) })],
            ])
            for s in leg.steps {
                var p = stepObject(s)
                p["location"] = nil
                p["leg"] = .number(i)
                features.append(["type": "Feature", "geometry": ["type": "Point", "coordinates": .lonLat(s.location)],
                                 "properties": p])
            }
        }
        var o: JSONValue = ["type": "FeatureCollection", "features": .array(features)]
        o["status"] = .string(result.status.rawValue)
        if !result.message.isEmpty { o["message"] = .string(result.message) }
        return o
    }

    /// A JSON document as compact text with sorted keys (no final newline): the one JSON writer (`JSONValue`).
    public static func serialize(_ object: JSONValue) -> String { object.compactText() }

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
}
