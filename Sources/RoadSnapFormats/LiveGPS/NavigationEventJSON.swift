import RoadSnapCore

/// One JSON object per navigation listener event, `event` naming the callback: the turn-by-turn feed a custom
/// display or head unit consumes (`roadsnap navigate` writes one per line).
public enum NavigationEventJSON {
    public static func arrived(_ w: Waypoint) -> JSONValue {
        var o: JSONValue = ["event": "didArriveAtWaypoint", "waypoint": .latLon(w.coordinate)]
        if let t = w.title { o["title"] = .string(t) }
        return o
    }

    /// A raw fix the session skipped (PROJ could not project it into the map's frame), with the reason.
    public static func skippedFix(_ fix: Fix, error: RoadSnapError) -> JSONValue {
        ["event": "didSkipFix", "fix": .latLon(fix.coordinate), "reason": .string(error.description)]
    }

    public static func routeChanged(_ navigator: Navigator) -> JSONValue {
        let legs = navigator.routeLegs
        return ["event": "navigatorDidChangeRoute", "legs": .number(legs.count),
                "distance_m": round1(legs.reduce(0) { $0 + $1.distance }),
                "duration_s": round1(legs.reduce(0) { $0 + $1.duration })]
    }

    public static func remainingTime(_ t: Double) -> JSONValue {
        ["event": "didUpdateRemainingTime", "time_s": round1(t)]
    }

    public static func remainingDistance(_ d: Double) -> JSONValue {
        ["event": "didUpdateRemainingDistance", "distance_m": round1(d)]
    }

    public static func delay(_ c: DelayCategory) -> JSONValue {
        ["event": "didUpdateDelayCategory", "delay_category": .string(name(c)), "value": .number(c.rawValue)]
    }

    public static func lighting(_ m: LightingMode) -> JSONValue {
        ["event": "didChangeSuggestedLightingMode", "lighting_mode": .string(m.rawValue)]
    }

    public static func speeding(_ p: Double) -> JSONValue {
        ["event": "didUpdateSpeedingPercentage", "percentage_above_limit": round1(p)]
    }

    public static func severity(_ s: SpeedAlertSeverity, _ p: Double) -> JSONValue {
        ["event": "didUpdateSpeedAlertSeverity", "severity": .string(s.rawValue), "percentage_above_limit": round1(p)]
    }

    public static func navInfo(_ i: NavInfo) -> JSONValue {
        var o: JSONValue = [
            "event": "didUpdateNavInfo", "nav_state": .string(i.navState.rawValue), "route_changed": .bool(i.routeChanged),
            "remaining_step_count": .number(i.remainingSteps.count),
            "remaining_steps": .array(i.remainingSteps.map(remainingStep)),
            "rounded_time_to_current_step_s": .number(i.roundedTimeToCurrentStepSeconds),
            "speed_limit_kmh": i.speedLimitKmh.map { round1($0) } ?? .null,
            "distance_to_current_step_m": round1(i.distanceToCurrentStepMeters),
            "time_to_current_step_s": round1(i.timeToCurrentStepSeconds),
            "rounded_distance_to_current_step_m": .number(i.roundedDistanceToCurrentStepMeters),
            "distance_to_next_destination_m": round1(i.distanceToNextDestinationMeters),
            "time_to_next_destination_s": round1(i.timeToNextDestinationSeconds),
            "distance_to_final_destination_m": round1(i.distanceToFinalDestinationMeters),
            "time_to_final_destination_s": round1(i.timeToFinalDestinationSeconds),
            "rounded_time_to_final_destination_s": .number(i.roundedTimeToFinalDestinationSeconds),
        ]
        if let s = i.currentStep { o["current_step"] = RouteOutput.stepObject(s) }
        return o
    }

    /// One step after the current one: its maneuver, road, instruction and distances.
    static func remainingStep(_ s: RouteStep) -> JSONValue {
        ["maneuver": .string(s.maneuver.rawValue), "road_name": .string(s.simpleRoadName),
         "instruction": .string(s.instruction),
         "distance_from_prev_step_m": round1(s.distanceFromPreviousStep),
         "distance_from_leg_start_m": round1(s.distanceFromLegStart),
         "time_from_prev_step_s": round1(s.timeFromPreviousStep)]
    }

    /// A voice prompt: its kind, the sentence, the step's short and secondary text and the distances.
    public static func announcement(_ a: Announcement) -> JSONValue {
        ["event": "announcement", "kind": .string(a.kind.rawValue), "text": .string(a.text),
         "step_index": .number(a.stepIndex),
         "maneuver": .string(a.step.maneuver.rawValue), "instruction": .string(a.step.instruction),
         "short_instruction": .string(InstructionText.short(a.step)),
         "secondary_text": .string(InstructionText.secondary(a.step)),
         "distance_m": round1(a.distanceMeters), "trigger_distance_m": round1(a.triggerDistanceMeters),
         "time": .number(a.time)]
    }

    public static func location(_ l: RoadSnappedLocation, network: RoadNetwork) -> JSONValue {
        var o: JSONValue = [
            "event": "didUpdateLocation", "lat": .number(l.coordinate.latitude), "lon": .number(l.coordinate.longitude),
            "time": .number(l.timestamp), "course": round1(l.course), "speed_mps": round1(l.speed),
            "accuracy_m": round1(l.horizontalAccuracy), "on_road": .bool(l.isOnRoad),
            "altitude_m": l.altitude.isNaN ? .null : round1(l.altitude),
        ]
        if let e = l.edge {
            o["edge_id"] = .string(network.edges[e].sourceID.description)
            o["distance_from_fix_m"] = round1(l.distanceFromFix)
        }
        return o
    }

    /// A route request's status, with the reason when it failed.
    public static func routeStatus(_ s: RouteStatus, request: String, message: String = "") -> JSONValue {
        var o: JSONValue = ["event": "routeStatus", "request": .string(request), "status": .string(s.rawValue)]
        if !message.isEmpty { o["message"] = .string(message) }
        return o
    }

    /// One line of sorted-key JSON (no final newline).
    public static func line(_ object: JSONValue) -> String { object.compactText() }

    static func name(_ c: DelayCategory) -> String {
        switch c {
        case .noData: return "noData"
        case .heavy: return "heavy"
        case .medium: return "medium"
        case .light: return "light"
        }
    }

    /// Rounded to 0.1, and -1 for a value not known (not finite).
    static func round1(_ v: Double) -> JSONValue { .number(v.isFinite ? rounded(v, places: 1) : -1) }
}
