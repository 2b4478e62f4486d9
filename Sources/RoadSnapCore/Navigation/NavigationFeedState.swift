/// Values of the turn-by-turn feed that need more than the leg tracker: the remaining time at the traffic feed's
/// speeds, the current speed limit, and the initial state a newly added listener is told.
extension NavigationState {
    /// Seconds from the leg's start to each segment's start (one more entry for the leg's end) at the traffic
    /// feed's speeds where it covers the road (a segment's time scaled by free-flow / traffic speed, never faster
    /// than free flow), the route's own times elsewhere. Cached per leg until the route or the feed changes.
    mutating func trafficCumulativeTimes(leg index: Int) -> [Double] {
        if let cached = environment.trafficTimes[index] { return cached }
        guard let route = guidance.route, index < route.legs.count else { return [0] }
        let leg = route.legs[index]
        var times: [Double] = [0]
        times.reserveCapacity(leg.segments.count + 1)
        for s in leg.segments {
            var seconds = s.duration
            if let feed = environment.trafficFeed {
                let edge = network.edges[s.edge]
                let free = edge.attributes.speedKmh(forward: s.isForward)
                if let traffic = feed.speedKmh(for: edge.sourceID), free > 0, traffic > 0 {
                    seconds *= free / min(traffic, free)
                }
            }
            times.append(times[times.count - 1] + seconds)
        }
        environment.trafficTimes[index] = times
        return times
    }

    /// Seconds to the end of the current leg: the tracker's (free-flow) time, or at traffic speeds with a feed
    /// (the maximum value without a route).
    mutating func remainingTime() -> Double {
        guard let t = guidance.tracker else { return .greatestFiniteMagnitude }
        guard environment.trafficFeed != nil else { return t.remainingTime }
        let times = trafficCumulativeTimes(leg: guidance.legIndex)
        guard times.count == t.leg.segments.count + 1, let total = times.last else { return t.remainingTime }
        guard let p = t.position, p.segment < t.leg.segments.count else { return total }
        let duration = t.leg.segments[p.segment].duration
        let fraction = duration > 0 ? min(1, max(0, (p.timeAlong - t.timeAtSegment[p.segment]) / duration)) : 1
        let at = times[p.segment] + fraction * (times[p.segment + 1] - times[p.segment])
        return max(0, total - at)
    }

    /// The speed limit in km/h of the road the last location is on, in its direction of travel (nil untagged).
    mutating func currentSpeedLimitKmh() -> Double? {
        guard let l = feed.lastLocation, let e = l.edge else { return nil }
        let r = alerts.roadValues(e, network: network)
        return l.isForward ? r.forwardKmh : r.backwardKmh
    }
}

extension NavigationEngine {
    /// Tells a newly added listener the lighting mode and delay category already reported to the others (a
    /// display added mid-drive learns the state without waiting for a change).
    func introduce(_ listener: NavigatorListener) {
        let (lighting, delay) = read { s in
            (s.environment.lightingReported ? s.environment.lightingMode : nil,
             s.environment.delayReported ? s.environment.delayCategory : nil)
        }
        let facade = listeners.withLock { $0.navigatorFacade }
        guard let navigator = facade, lighting != nil || delay != nil else { return }
        let box = UncheckedBox(listener)
        let work = { @Sendable in
            if let lighting { box.value.navigator(navigator, didChangeSuggestedLightingMode: lighting) }
            if let delay { box.value.navigator(navigator, didUpdate: delay) }
        }
        if let listenerQueue { listenerQueue.async(execute: work) } else { work() }
    }
}

/// Holds the reported speed alert severity steady: a higher severity is reported once it has held for `enter`
/// seconds, a lower one once it has held for `release` seconds; a change to or from unknown (no speed or no limit)
/// is immediate. Brief excursions over a threshold (GPS speed noise) then do not flicker the alert.
public struct SeverityHysteresis: Hashable, Sendable {
    /// The severity reported now.
    public private(set) var current: SpeedAlertSeverity = .unknown
    private var candidate: SpeedAlertSeverity?
    private var candidateSince = 0.0

    public init() {}

    private static func rank(_ s: SpeedAlertSeverity) -> Int {
        switch s {
        case .unknown: return -1
        case .notSpeeding: return 0
        case .minor: return 1
        case .major: return 2
        }
    }

    /// The severity to report for the evaluator's `raw` severity at `time` (seconds).
    public mutating func filter(_ raw: SpeedAlertSeverity, time: Double, enter: Double, release: Double)
        -> SpeedAlertSeverity
    {
        if raw == current {
            candidate = nil
            return current
        }
        if raw == .unknown || current == .unknown {
            current = raw
            candidate = nil
            return current
        }
        if candidate != raw {
            candidate = raw
            candidateSince = time
        }
        let wait = Self.rank(raw) > Self.rank(current) ? enter : release
        if time - candidateSince >= wait {
            current = raw
            candidate = nil
        }
        return current
    }
}
