import RoadSnapCore

/// One JSON object per navigation listener event, `event` naming the callback: the turn-by-turn feed a custom
/// display or head unit consumes (`roadsnap navigate` writes one per line).
public enum NavigationEventJSON {
    public static func arrived(_ w: Waypoint) -> [String: Any] {
        var o: [String: Any] = ["event": "didArriveAtWaypoint", "waypoint": coord(w.coordinate)]
        if let t = w.title { o["title"] = t }
        return o
    }

    public static func routeChanged(_ navigator: Navigator) -> [String: Any] {
        let legs = navigator.routeLegs
        return ["event": "navigatorDidChangeRoute", "legs": legs.count,
                "distance_m": round1(legs.reduce(0) { $0 + $1.distance }),
                "duration_s": round1(legs.reduce(0) { $0 + $1.duration })]
    }

    public static func remainingTime(_ t: Double) -> [String: Any] {
        ["event": "didUpdateRemainingTime", "time_s": round1(t)]
    }

    public static func remainingDistance(_ d: Double) -> [String: Any] {
        ["event": "didUpdateRemainingDistance", "distance_m": round1(d)]
    }

    public static func delay(_ c: DelayCategory) -> [String: Any] {
        ["event": "didUpdateDelayCategory", "delay_category": name(c), "value": c.rawValue]
    }

    public static func lighting(_ m: LightingMode) -> [String: Any] {
        ["event": "didChangeSuggestedLightingMode", "lighting_mode": m.rawValue]
    }

    public static func speeding(_ p: Double) -> [String: Any] {
        ["event": "didUpdateSpeedingPercentage", "percentage_above_limit": round1(p)]
    }

    public static func severity(_ s: SpeedAlertSeverity, _ p: Double) -> [String: Any] {
        ["event": "didUpdateSpeedAlertSeverity", "severity": s.rawValue, "percentage_above_limit": round1(p)]
    }

    public static func navInfo(_ i: NavInfo) -> [String: Any] {
        var o: [String: Any] = [
            "event": "didUpdateNavInfo", "nav_state": i.navState.rawValue, "route_changed": i.routeChanged,
            "remaining_step_count": i.remainingSteps.count,
            "remaining_steps": i.remainingSteps.map(remainingStep),
            "rounded_time_to_current_step_s": i.roundedTimeToCurrentStepSeconds,
            "speed_limit_kmh": i.speedLimitKmh.map { round1($0) as Any } ?? JSONNull(),
            "distance_to_current_step_m": round1(i.distanceToCurrentStepMeters),
            "time_to_current_step_s": round1(i.timeToCurrentStepSeconds),
            "rounded_distance_to_current_step_m": i.roundedDistanceToCurrentStepMeters,
            "distance_to_next_destination_m": round1(i.distanceToNextDestinationMeters),
            "time_to_next_destination_s": round1(i.timeToNextDestinationSeconds),
            "distance_to_final_destination_m": round1(i.distanceToFinalDestinationMeters),
            "time_to_final_destination_s": round1(i.timeToFinalDestinationSeconds),
            "rounded_time_to_final_destination_s": i.roundedTimeToFinalDestinationSeconds,
        ]
        if let s = i.currentStep { o["current_step"] = RouteOutput.stepObject(s) }
        return o
    }

    /// One step after the current one: its maneuver, road, instruction and distances.
    static func remainingStep(_ s: RouteStep) -> [String: Any] {
        ["maneuver": s.maneuver.rawValue, "road_name": s.simpleRoadName, "instruction": s.instruction,
         "distance_from_prev_step_m": round1(s.distanceFromPreviousStep),
         "distance_from_leg_start_m": round1(s.distanceFromLegStart),
         "time_from_prev_step_s": round1(s.timeFromPreviousStep)]
    }

    /// A voice prompt: its kind, the sentence, the step's short and secondary text and the distances.
    public static func announcement(_ a: Announcement) -> [String: Any] {
        ["event": "announcement", "kind": a.kind.rawValue, "text": a.text, "step_index": a.stepIndex,
         "maneuver": a.step.maneuver.rawValue, "instruction": a.step.instruction,
         "short_instruction": InstructionText.short(a.step), "secondary_text": InstructionText.secondary(a.step),
         "distance_m": round1(a.distanceMeters), "trigger_distance_m": round1(a.triggerDistanceMeters),
         "time": a.time]
    }

    public static func location(_ l: RoadSnappedLocation, network: RoadNetwork) -> [String: Any] {
        var o: [String: Any] = [
            "event": "didUpdateLocation", "lat": l.coordinate.latitude, "lon": l.coordinate.longitude,
            "time": l.timestamp, "course": round1(l.course), "speed_mps": round1(l.speed),
            "accuracy_m": round1(l.horizontalAccuracy), "on_road": l.isOnRoad,
            "altitude_m": l.altitude.isNaN ? JSONNull() : round1(l.altitude) as Any,
        ]
        if let e = l.edge {
            o["edge_id"] = network.edges[e].sourceID.description
            o["distance_from_fix_m"] = round1(l.distanceFromFix)
        }
        return o
    }

    /// A route request's status, with the reason when it failed.
    public static func routeStatus(_ s: RouteStatus, request: String, message: String = "") -> [String: Any] {
        var o: [String: Any] = ["event": "routeStatus", "request": request, "status": s.rawValue]
        if !message.isEmpty { o["message"] = message }
        return o
    }

    /// One line of sorted-key JSON.
    public static func line(_ object: [String: Any]) -> String {
        (try? RouteOutput.serialize(object)) ?? #"{"event":"error"}"#
    }

    static func name(_ c: DelayCategory) -> String {
        switch c {
        case .noData: return "noData"
        case .heavy: return "heavy"
        case .medium: return "medium"
        case .light: return "light"
        }
    }

    private static func round1(_ v: Double) -> Double { v.isFinite ? rounded(v, places: 1) : -1 }
    private static func coord(_ c: GeoCoordinate) -> [Double] { [c.latitude, c.longitude] }
}
