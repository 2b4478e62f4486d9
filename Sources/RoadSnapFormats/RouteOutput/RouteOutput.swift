import Foundation
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
        o["distance_m"] = round1(route.distance)
        o["duration_s"] = round1(route.duration)
        o["driving_side"] = route.drivingSide.rawValue
        o["legs"] = route.legs.map { leg -> [String: Any] in
            [
                "distance_m": round1(leg.distance), "duration_s": round1(leg.duration),
                "origin": coord(leg.snappedOrigin), "destination": coord(leg.snappedDestination),
                "geometry": leg.geometry.map(coord),
                "segments": leg.segments.map { s -> [String: Any] in
                    ["arc": s.arc, "edge": s.edge, "forward": s.isForward, "from_offset_m": round1(s.fromOffset),
                     "to_offset_m": round1(s.toOffset), "duration_s": round1(s.duration),
                     "distance_from_leg_start_m": round1(s.distanceFromLegStart),
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
            "distance_from_prev_step_m": round1(s.distanceFromPreviousStep),
            "time_from_prev_step_s": round1(s.timeFromPreviousStep),
            "rounded_distance_from_prev_step_m": s.roundedDistanceFromPreviousStep,
            "rounded_time_from_prev_step_s": s.roundedTimeFromPreviousStep,
            "driving_side": s.drivingSide.rawValue, "roundabout_turn_number": s.roundaboutTurnNumber,
        ]
        if let n = s.exitNumber { o["exit_number"] = n }
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
                "properties": ["leg": i, "distance_m": round1(leg.distance), "duration_s": round1(leg.duration),
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

    /// Serialises a JSON object (sorted keys, so output is deterministic).
    public static func serialize(_ object: [String: Any]) throws(RoadSnapError) -> String {
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw .internalError("cannot encode route JSON: \(error)")
        }
    }

    /// Writes `text` to `path` atomically (temp file + rename).
    public static func write(_ text: String, to path: String) throws(RoadSnapError) {
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw .unreadableFile(path: path, reason: "cannot write: \(error.localizedDescription)")
        }
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
    private static func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
    private static func coord(_ c: GeoCoordinate) -> [Double] { [c.latitude, c.longitude] }
    private static func lonLat(_ c: GeoCoordinate) -> [Double] { [c.longitude, c.latitude] }
}
