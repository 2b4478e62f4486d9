/// English instruction text for steps.
public enum Instructions {
    /// "1st", "2nd", "3rd", "4th", "11th", "21st".
    public static func ordinal(_ n: Int) -> String {
        let suffix: String
        switch (n % 10, n % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(n)\(suffix)"
    }

    /// Compass word for a bearing: north, northeast, …
    public static func compass(_ bearing: Double) -> String {
        let names = ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"]
        var b = bearing.truncatingRemainder(dividingBy: 360)
        if b < 0 { b += 360 }
        return names[Int((b + 22.5) / 45) % 8]
    }

    /// "Head north on Main Street".
    static func depart(bearing: Double, road: String) -> String {
        "Head \(compass(bearing))" + onto(road, "on")
    }

    private static func onto(_ road: String, _ word: String = "onto") -> String {
        road.isEmpty ? "" : " \(word) \(road)"
    }

    /// Instruction for a maneuver leading onto `road`.
    static func text(_ m: Maneuver, road: String, exit: Int, exitNumber: String?, towards: String?) -> String {
        let toward = InstructionText.destinations(towards).map { " toward \($0)" } ?? ""
        switch m {
        case .depart: return "Head" + onto(road, "on")
        case .destination: return "Your destination is ahead"
        case .destinationLeft: return "Your destination is ahead on your left"
        case .destinationRight: return "Your destination is ahead on your right"
        case .straight: return "Continue straight" + onto(road)
        case .turnLeft: return "Turn left" + onto(road)
        case .turnRight: return "Turn right" + onto(road)
        case .turnSlightLeft: return "Turn slightly left" + onto(road)
        case .turnSlightRight: return "Turn slightly right" + onto(road)
        case .turnSharpLeft: return "Turn sharp left" + onto(road)
        case .turnSharpRight: return "Turn sharp right" + onto(road)
        case .turnKeepLeft: return "Keep left" + onto(road) + toward
        case .turnKeepRight: return "Keep right" + onto(road) + toward
        case .turnUTurnClockwise, .turnUTurnCounterClockwise: return "Make a U-turn" + onto(road)
        case .mergeUnspecified: return "Merge" + onto(road)
        case .mergeLeft: return "Merge left" + onto(road)
        case .mergeRight: return "Merge right" + onto(road)
        case .forkLeft: return "At the fork, keep left" + onto(road) + toward
        case .forkRight: return "At the fork, keep right" + onto(road) + toward
        case .ferryBoat: return "Take the ferry" + (road.isEmpty ? "" : " \(road)")
        case .ferryTrain: return "Take the train" + (road.isEmpty ? "" : " \(road)")
        case .nameChange: return "Continue onto \(road.isEmpty ? "the road" : road)"
        case .roundaboutExitClockwise, .roundaboutExitCounterClockwise: return "Exit the roundabout" + onto(road)
        case .unknown: return "Continue" + onto(road)
        default: break
        }
        switch m.family {
        case .roundabout:
            if exit > 0 { return "At the roundabout, take the \(ordinal(exit)) exit" + onto(road) }
            return "Enter the roundabout"
        case .onRamp:
            return "Take the ramp" + rampSide(m) + onto(road) + toward
        case .offRamp:
            if let n = exitNumber { return "Take exit \(n)" + rampSide(m) + onto(road) + toward }
            return "Take the exit" + rampSide(m) + onto(road) + toward
        default:
            return "Continue" + onto(road)
        }
    }

    private static func rampSide(_ m: Maneuver) -> String {
        let r = m.rawValue
        if r.hasSuffix("UTurnClockwise") || r.hasSuffix("UTurnCounterClockwise") { return " and turn around" }
        if r.hasSuffix("Left") { return " on the left" }
        if r.hasSuffix("Right") { return " on the right" }
        return ""
    }
}
