/// One spoken guidance prompt: what to say, for which step, and how far before it.
public struct Announcement: Hashable, Sendable {
    /// When in the approach to a step the prompt is given.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Long before the maneuver on fast roads ("In 1.5 kilometres, take exit 12 toward Bellevue").
        case early
        /// Shortly before, with the following step when it comes soon after ("In 300 metres, turn right onto Main
        /// Street, then turn left").
        case preparation
        /// At the maneuver ("Turn right now").
        case now
    }

    public var kind: Kind
    /// The sentence to speak.
    public var text: String
    /// The step announced (index in the current leg's steps) and the step itself.
    public var stepIndex: Int
    public var step: RouteStep
    /// Metres from the driver to the maneuver when the prompt was given.
    public var distanceMeters: Double
    /// The distance at which this prompt was due (depends on speed and road class).
    public var triggerDistanceMeters: Double
    /// Fix time of the prompt, seconds since 1970.
    public var time: Double

    public init(kind: Kind, text: String, stepIndex: Int, step: RouteStep, distanceMeters: Double,
                triggerDistanceMeters: Double, time: Double)
    {
        self.kind = kind; self.text = text; self.stepIndex = stepIndex; self.step = step
        self.distanceMeters = distanceMeters; self.triggerDistanceMeters = triggerDistanceMeters; self.time = time
    }
}

/// When prompts are due: each kind at the larger of a distance for the road class and a time at the current speed.
public struct AnnouncementOptions: Hashable, Sendable {
    /// Seconds ahead of the maneuver at the current speed for each kind.
    public var earlySeconds = 60.0, preparationSeconds = 18.0, nowSeconds = 5.0
    /// Least distance of the "now" prompt, metres.
    public var nowMinimumMeters = 25.0
    /// A following step closer than this many seconds (at the road speeds of the route) is joined with "then".
    public var thenSeconds = 12.0
    /// Units of the spoken distances.
    public var units: DistanceUnits = .metric
    /// Whether prompts are produced at all.
    public var isEnabled = true

    public init() {}

    /// Metres of the early and preparation prompts on a road of `roadClass` (the early one only where
    /// the road is fast: motorways, trunks, primaries).
    public static func classDistances(_ roadClass: RoadClass) -> (early: Double?, preparation: Double) {
        switch roadClass {
        case .motorway, .motorwayLink, .trunk, .trunkLink: return (2000, 800)
        case .primary, .primaryLink: return (1000, 400)
        case .secondary, .secondaryLink, .tertiary, .tertiaryLink: return (nil, 300)
        default: return (nil, 150)
        }
    }

    /// Distances of the three prompts at `speed` m/s (nil or negative when unknown) on a road of `roadClass`;
    /// the early one is nil where there is none.
    public func triggerDistances(speed: Double?, roadClass: RoadClass) -> (early: Double?, preparation: Double,
                                                                            now: Double)
    {
        let v = max(0, speed ?? 0)
        let c = Self.classDistances(roadClass)
        // On any road driven faster than 80 km/h, an early prompt as on a primary road.
        let early = c.early ?? (v >= 22 ? 1000 : nil)
        return (early.map { max($0, v * earlySeconds) }, max(c.preparation, v * preparationSeconds),
                max(nowMinimumMeters, v * nowSeconds))
    }
}

/// Plans the prompts of one leg: each step's early, preparation and "now" prompt at most once, in the order the
/// driver reaches their trigger distances; only the most urgent due prompt of a step is given (a driver who
/// starts 100 m before a turn hears "turn right now" type prompts, not a stale "in 2 kilometres"); never a step
/// already passed. `reset` (a new leg or route) plans afresh.
public struct AnnouncementPlanner: Hashable, Sendable {
    public var options: AnnouncementOptions
    /// Per step index of the leg: the kinds already given or skipped (bit per kind).
    private var done: [Int: UInt8] = [:]

    public init(options: AnnouncementOptions = AnnouncementOptions()) { self.options = options }

    /// Forgets what was announced (a new leg or a new route).
    public mutating func reset() { done.removeAll(keepingCapacity: true) }

    private static func bit(_ k: Announcement.Kind) -> UInt8 {
        switch k {
        case .early: return 1
        case .preparation: return 2
        case .now: return 4
        }
    }

    /// The prompts due at `along` metres into `leg` driving at `speed` m/s on a road of `roadClass`, at `time`.
    public mutating func update(leg: RouteLeg, along: Double, speed: Double?, roadClass: RoadClass, time: Double)
        -> [Announcement]
    {
        guard options.isEnabled, !leg.steps.isEmpty else { return [] }
        // The next step ahead (the depart step is never announced).
        guard let k = leg.steps.indices.first(where: { $0 > 0 && leg.steps[$0].distanceFromLegStart > along + 0.5 })
        else { return [] }
        let distance = leg.steps[k].distanceFromLegStart - along
        let t = options.triggerDistances(speed: speed, roadClass: roadClass)
        let given = done[k] ?? 0
        var due: Announcement.Kind?
        if distance <= t.now {
            due = .now
        } else if distance <= t.preparation {
            due = .preparation
        } else if let e = t.early, distance <= e, distance > t.preparation * 1.5 {
            due = .early
        }
        guard let kind = due, given & Self.bit(kind) == 0 else { return [] }
        // The due kind and every earlier kind are done.
        var mark = Self.bit(kind)
        if kind != .early { mark |= Self.bit(.early) }
        if kind == .now { mark |= Self.bit(.preparation) }
        done[k] = given | mark
        let text = Self.text(kind, leg: leg, index: k, distance: distance, options: options)
        return [Announcement(kind: kind, text: text, stepIndex: k, step: leg.steps[k], distanceMeters: distance,
                             triggerDistanceMeters: kind == .now ? t.now : kind == .preparation ? t.preparation
                                 : (t.early ?? 0), time: time)]
    }

    /// The sentence for a prompt of `kind` for step `index` of `leg`, `distance` metres before it.
    public static func text(_ kind: Announcement.Kind, leg: RouteLeg, index: Int, distance: Double,
                            options: AnnouncementOptions) -> String
    {
        let step = leg.steps[index]
        let isDestination = step.maneuver.family == .destination
        switch kind {
        case .now:
            if isDestination { return step.instruction.replacingAhead() }
            return InstructionText.short(step) + " now"
        case .early, .preparation:
            var s = "In \(options.units.spoken(distance)), " + InstructionText.lowercasedFirst(step.instruction)
            if kind == .preparation, index + 1 < leg.steps.count {
                let next = leg.steps[index + 1]
                if next.timeFromLegStart - step.timeFromLegStart <= options.thenSeconds {
                    let then = next.maneuver.family == .destination
                        ? "your destination is ahead" : InstructionText.lowercasedFirst(InstructionText.short(next))
                    s += ", then " + then
                }
            }
            return s
        }
    }
}

extension String {
    /// "Your destination is ahead on your left" -> "Your destination is on your left"; "…is ahead" -> "You have
    /// arrived" (the final prompt at the destination).
    fileprivate func replacingAhead() -> String {
        if self == "Your destination is ahead" { return "You have arrived at your destination" }
        var out = ""
        var rest = Substring(self)
        while let r = rest.firstRange(of: " ahead") {
            out += rest[..<r.lowerBound]
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
