/// Current traffic speeds per OSM way id (km/h), as read from a traffic feed file.
public struct TrafficFeed: Hashable, Sendable {
    public let speedsKmh: [Int64: Double]

    /// Checks every speed is finite and positive.
    public init(speedsKmh: [Int64: Double]) throws(RoadSnapError) {
        for (way, v) in speedsKmh where !(v.isFinite && v > 0) {
            throw .invalidArgument("traffic speed for way \(way) must be a positive number of km/h, got \(v)")
        }
        self.speedsKmh = speedsKmh
    }

    /// The current speed on an edge's source way, when the feed covers it.
    public func speedKmh(for source: EdgeSourceID) -> Double? {
        switch source {
        case let .osmWay(id), let .number(id): return speedsKmh[id]
        case .string: return nil
        }
    }
}

/// Delay category from traffic against free flow over the remaining route.
///
/// For each remaining piece of road, free-flow time is length / free-flow speed and traffic time is
/// length / min(traffic speed, free-flow speed) where the feed covers the way (free-flow time where it does not).
/// With less than `minimumCoverage` of the remaining length covered the category is `noData`. Otherwise the ratio
/// traffic ETA / free-flow ETA gives: below `mediumRatio` light, below `heavyRatio` medium, else heavy.
public struct DelayClassifier: Hashable, Sendable {
    /// Share of the remaining length the feed must cover (default 0.5).
    public var minimumCoverage = 0.5
    /// ETA ratio from which the delay is medium (default 1.25: a quarter longer than free flow).
    public var mediumRatio = 1.25
    /// ETA ratio from which the delay is heavy (default 1.6).
    public var heavyRatio = 1.6

    public init() {}

    /// Sums one piece of road into the running totals.
    public struct Totals: Hashable, Sendable {
        public var length = 0.0, coveredLength = 0.0, freeFlowTime = 0.0, trafficTime = 0.0
        public init() {}

        /// Adds `length` metres at `freeFlowKmh`, with the feed's `trafficKmh` when it covers the piece.
        public mutating func add(length: Double, freeFlowKmh: Double, trafficKmh: Double?) {
            guard length > 0, freeFlowKmh > 0 else { return }
            let free = length / (freeFlowKmh / 3.6)
            self.length += length
            freeFlowTime += free
            if let trafficKmh {
                coveredLength += length
                trafficTime += length / (min(trafficKmh, freeFlowKmh) / 3.6)
            } else {
                trafficTime += free
            }
        }
    }

    /// The category for summed totals.
    public func category(_ t: Totals) -> DelayCategory {
        guard t.length > 0, t.freeFlowTime > 0, t.coveredLength >= minimumCoverage * t.length else { return .noData }
        let ratio = t.trafficTime / t.freeFlowTime
        if ratio < mediumRatio { return .light }
        if ratio < heavyRatio { return .medium }
        return .heavy
    }
}
