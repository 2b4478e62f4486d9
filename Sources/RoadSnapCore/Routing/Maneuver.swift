/// The maneuver of a step: the full set a navigation SDK exposes (66 cases).
public enum Maneuver: String, Hashable, Sendable, CaseIterable {
    case unknown
    case depart
    case destination, destinationLeft, destinationRight
    case straight
    case turnLeft, turnRight, turnKeepLeft, turnKeepRight, turnSlightLeft, turnSlightRight, turnSharpLeft,
         turnSharpRight
    case turnUTurnClockwise, turnUTurnCounterClockwise
    case mergeUnspecified, mergeLeft, mergeRight
    case forkLeft, forkRight
    case onRampUnspecified, onRampLeft, onRampRight, onRampKeepLeft, onRampKeepRight, onRampSlightLeft,
         onRampSlightRight, onRampSharpLeft, onRampSharpRight, onRampUTurnClockwise, onRampUTurnCounterClockwise
    case offRampUnspecified, offRampLeft, offRampRight, offRampKeepLeft, offRampKeepRight, offRampSlightLeft,
         offRampSlightRight, offRampSharpLeft, offRampSharpRight, offRampUTurnClockwise, offRampUTurnCounterClockwise
    case roundaboutClockwise, roundaboutCounterClockwise
    case roundaboutStraightClockwise, roundaboutStraightCounterClockwise
    case roundaboutLeftClockwise, roundaboutLeftCounterClockwise, roundaboutRightClockwise,
         roundaboutRightCounterClockwise
    case roundaboutSlightLeftClockwise, roundaboutSlightLeftCounterClockwise, roundaboutSlightRightClockwise,
         roundaboutSlightRightCounterClockwise
    case roundaboutSharpLeftClockwise, roundaboutSharpLeftCounterClockwise, roundaboutSharpRightClockwise,
         roundaboutSharpRightCounterClockwise
    case roundaboutUTurnClockwise, roundaboutUTurnCounterClockwise
    case roundaboutExitClockwise, roundaboutExitCounterClockwise
    case ferryBoat, ferryTrain
    case nameChange

    /// The maneuver family, for grouping ("turn", "onRamp", "roundabout", …).
    public var family: Family {
        let r = rawValue
        if r.hasPrefix("destination") { return .destination }
        if r.hasPrefix("turnUTurn") { return .uTurn }
        if r.hasPrefix("turn") { return .turn }
        if r.hasPrefix("merge") { return .merge }
        if r.hasPrefix("fork") { return .fork }
        if r.hasPrefix("onRamp") { return .onRamp }
        if r.hasPrefix("offRamp") { return .offRamp }
        if r.hasPrefix("roundabout") { return .roundabout }
        if r.hasPrefix("ferry") { return .ferry }
        switch self {
        case .depart: return .depart
        case .straight: return .straight
        case .nameChange: return .nameChange
        default: return .unknown
        }
    }

    /// Maneuver families.
    public enum Family: String, Hashable, Sendable, CaseIterable {
        case unknown, depart, destination, straight, turn, uTurn, merge, fork, onRamp, offRamp, roundabout, ferry,
             nameChange
    }
}

/// Direction of a turn by its angle, shared by turns, ramps and roundabouts.
enum TurnDirection: Hashable, Sendable {
    case straight, slightLeft, slightRight, left, right, sharpLeft, sharpRight, keepLeft, keepRight, uTurn

    /// Classifies a signed turn angle in degrees (positive = to the right): straight under 20°, slight under 50°,
    /// normal under 130°, sharp under 170°, else a U-turn.
    init(angle: Double) {
        let a = abs(angle)
        switch a {
        case ..<20: self = .straight
        case ..<50: self = angle > 0 ? .slightRight : .slightLeft
        case ..<130: self = angle > 0 ? .right : .left
        case ..<170: self = angle > 0 ? .sharpRight : .sharpLeft
        default: self = .uTurn
        }
    }

    var isLeft: Bool { self == .slightLeft || self == .left || self == .sharpLeft || self == .keepLeft }
    var isRight: Bool { self == .slightRight || self == .right || self == .sharpRight || self == .keepRight }
}

extension Maneuver {
    /// U-turn direction: in right-hand traffic a U-turn swings left, counter-clockwise.
    static func uTurnClockwise(_ side: DrivingSide) -> Bool { side == .left }

    static func turn(_ d: TurnDirection, side: DrivingSide) -> Maneuver {
        switch d {
        case .straight: return .straight
        case .slightLeft: return .turnSlightLeft
        case .slightRight: return .turnSlightRight
        case .left: return .turnLeft
        case .right: return .turnRight
        case .sharpLeft: return .turnSharpLeft
        case .sharpRight: return .turnSharpRight
        case .keepLeft: return .turnKeepLeft
        case .keepRight: return .turnKeepRight
        case .uTurn: return uTurnClockwise(side) ? .turnUTurnClockwise : .turnUTurnCounterClockwise
        }
    }

    static func ramp(on: Bool, _ d: TurnDirection, side: DrivingSide) -> Maneuver {
        let cw = uTurnClockwise(side)
        switch d {
        case .straight: return on ? .onRampUnspecified : .offRampUnspecified
        case .slightLeft: return on ? .onRampSlightLeft : .offRampSlightLeft
        case .slightRight: return on ? .onRampSlightRight : .offRampSlightRight
        case .left: return on ? .onRampLeft : .offRampLeft
        case .right: return on ? .onRampRight : .offRampRight
        case .sharpLeft: return on ? .onRampSharpLeft : .offRampSharpLeft
        case .sharpRight: return on ? .onRampSharpRight : .offRampSharpRight
        case .keepLeft: return on ? .onRampKeepLeft : .offRampKeepLeft
        case .keepRight: return on ? .onRampKeepRight : .offRampKeepRight
        case .uTurn:
            if on { return cw ? .onRampUTurnClockwise : .onRampUTurnCounterClockwise }
            return cw ? .offRampUTurnClockwise : .offRampUTurnCounterClockwise
        }
    }

    static func roundabout(_ d: TurnDirection?, clockwise cw: Bool) -> Maneuver {
        guard let d else { return cw ? .roundaboutClockwise : .roundaboutCounterClockwise }
        switch d {
        case .straight: return cw ? .roundaboutStraightClockwise : .roundaboutStraightCounterClockwise
        case .slightLeft, .keepLeft: return cw ? .roundaboutSlightLeftClockwise : .roundaboutSlightLeftCounterClockwise
        case .slightRight, .keepRight:
            return cw ? .roundaboutSlightRightClockwise : .roundaboutSlightRightCounterClockwise
        case .left: return cw ? .roundaboutLeftClockwise : .roundaboutLeftCounterClockwise
        case .right: return cw ? .roundaboutRightClockwise : .roundaboutRightCounterClockwise
        case .sharpLeft: return cw ? .roundaboutSharpLeftClockwise : .roundaboutSharpLeftCounterClockwise
        case .sharpRight: return cw ? .roundaboutSharpRightClockwise : .roundaboutSharpRightCounterClockwise
        case .uTurn: return cw ? .roundaboutUTurnClockwise : .roundaboutUTurnCounterClockwise
        }
    }
}
