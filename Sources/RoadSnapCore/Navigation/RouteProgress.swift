import RoadSnapBridge

/// Where a road-snapped location lies along a leg: the segment, metres and seconds from the leg's start.
struct LegPosition: Hashable, Sendable {
    var segment: Int
    var distanceAlong: Double
    var timeAlong: Double
}

/// Progress tracking on one leg of a route: finds the location's place on the leg's segments (searching forward
/// from the last place, so that loops through the same edge are taken in order) and what remains.
struct LegTracker {
    let leg: RouteLeg
    /// Seconds from the leg start to each segment's start; one more entry for the leg's end.
    let timeAtSegment: [Double]
    /// Arcs of the leg, flagged per arc id, for route-biased matching.
    private(set) var position: LegPosition?

    /// The leg's destination on the road, in the network's local frame (nil for a leg without segments whose
    /// destination PROJ refused).
    let destinationPoint: LocalPoint?

    init(leg: RouteLeg, destinationPoint: LocalPoint?) {
        self.leg = leg
        self.destinationPoint = destinationPoint
        var times: [Double] = [0]
        times.reserveCapacity(leg.segments.count + 1)
        for s in leg.segments { times.append(times[times.count - 1] + s.duration) }
        timeAtSegment = times
    }

    /// Places an on-road location (edge, direction, offset) on the leg, looking from the last place up to
    /// `lookahead` segments ahead (and one behind). Nil when the location is not on the leg there, unless it has
    /// been on an earlier segment for `confirmBehind` locations in a row: then the place moves back there.
    mutating func locate(edge: Int, isForward: Bool, offset: Double, lookahead: Int = 40,
                         tolerance: Double = 10, confirmBehind: Int = 2) -> LegPosition?
    {
        let arc = RoadGraph.arc(edge: edge, forward: isForward)
        let start = max(0, (position?.segment ?? 0) - 1)
        let end = position == nil ? leg.segments.count : min(leg.segments.count, start + lookahead)
        for k in start..<max(start, end) {
            guard let p = place(arc: arc, isForward: isForward, offset: offset, segment: k, tolerance: tolerance)
            else { continue }
            // Never step backwards along the leg by more than the tolerance (GPS noise at a standstill).
            if let old = position, p.distanceAlong < old.distanceAlong - tolerance, k <= old.segment { continue }
            position = p
            behindCount = 0
            return p
        }
        // Not at the place or ahead: on a segment behind it means the place is ahead of the driver (one wrong
        // answer moved it there, e.g. a lag-0 match on the leg's road the other way where the leg comes back along
        // it). Confirmed by `confirmBehind` locations in a row, the place moves back to the nearest such segment.
        guard position != nil, start > 0 else { return nil }
        for k in stride(from: start - 1, through: 0, by: -1) {
            guard let p = place(arc: arc, isForward: isForward, offset: offset, segment: k, tolerance: tolerance)
            else { continue }
            behindCount += 1
            guard behindCount >= confirmBehind else { return nil }
            position = p
            behindCount = 0
            return p
        }
        behindCount = 0
        return nil
    }

    /// Locations in a row found only on a segment behind the place (see `locate`).
    private var behindCount = 0

    /// The place on segment `k` of a location on `arc` at `offset` (within `tolerance` of the segment), or nil.
    private func place(arc: Int, isForward: Bool, offset: Double, segment k: Int, tolerance: Double) -> LegPosition? {
        let s = leg.segments[k]
        guard s.arc == arc else { return nil }
        let lo = min(s.fromOffset, s.toOffset) - tolerance, hi = max(s.fromOffset, s.toOffset) + tolerance
        guard offset >= lo, offset <= hi else { return nil }
        let into = s.metresInto(atEdgeOffset: offset)
        let fraction = s.distance > 0 ? into / s.distance : 1
        return LegPosition(segment: k, distanceAlong: s.distanceFromLegStart + into,
                           timeAlong: timeAtSegment[k] + fraction * s.duration)
    }

    /// The leg's segment on `edge` nearest the place (by metres along the leg) for a location on that edge: metres
    /// from the leg's start to the location along it, and whether the location runs against it. Nil when the leg
    /// does not use the edge.
    func nearestSegment(edge: Int, isForward: Bool, offset: Double) -> (along: Double, against: Bool)? {
        let here = position?.distanceAlong ?? 0
        var best: (along: Double, against: Bool)?
        for s in leg.segments where s.edge == edge {
            let along = s.distanceFromLegStart + s.metresInto(atEdgeOffset: offset)
            if best.map({ abs(along - here) < abs($0.along - here) }) ?? true {
                best = (along, s.isForward != isForward)
            }
        }
        return best
    }

    /// Forgets the place (a new leg or route).
    mutating func reset() { position = nil; behindCount = 0 }

    var remainingDistance: Double { max(0, leg.distance - (position?.distanceAlong ?? 0)) }
    var remainingTime: Double { max(0, leg.duration - (position?.timeAlong ?? 0)) }

    /// Index of the next maneuver ahead: the first step beyond the position (the destination step at the end).
    var currentStepIndex: Int {
        let along = position?.distanceAlong ?? 0
        for (i, s) in leg.steps.enumerated() where s.distanceFromLegStart > along + 0.5 { return i }
        return max(0, leg.steps.count - 1)
    }

    /// The point of the leg nearest `p` (in the network's local frame) among the segments near the current place
    /// (`window` segments from just behind it): metres from `p` to it and from the leg's start to it along the leg.
    func nearestPlace(_ p: LocalPoint, network: RoadNetwork, window: Int = 30) -> (distance: Double, along: Double) {
        guard !leg.segments.isEmpty else { return (.infinity, 0) }
        let first = max(0, (position?.segment ?? 0) - 2)
        let last = min(leg.segments.count, first + window)
        var best = Double.infinity, bestAlong = 0.0
        for k in first..<last {
            let s = leg.segments[k]
            let pts = network.localGeometry(ofEdge: s.edge)
            var i = pts.startIndex, offset = 0.0
            while i + 1 < pts.endIndex {
                let a = pts[i], b = pts[i + 1]
                let dx = b.x - a.x, dy = b.y - a.y
                let len2 = dx * dx + dy * dy, len = len2.squareRoot()
                let t = len2 > 0 ? max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2)) : 0
                let x = a.x + t * dx - p.x, y = a.y + t * dy - p.y
                let d = (x * x + y * y).squareRoot()
                if d < best {
                    // Where the foot lies on the segment's part of the edge (clamped to it).
                    best = d
                    bestAlong = s.distanceFromLegStart + s.metresInto(atEdgeOffset: offset + t * len)
                }
                offset += len
                i += 1
            }
        }
        return (best, bestAlong)
    }
}

/// The local-frame polyline of a leg, with cumulative distance and the speed (m/s) of each piece: what the
/// simulator drives along.
struct SimulationPath {
    var points: [LocalPoint] = []
    /// Metres from the start to each point.
    var along: [Double] = []
    /// Speed on the piece from point i to i + 1, m/s.
    var speeds: [Double] = []

    var length: Double { along.last ?? 0 }

    init() {}

    /// The path along the legs' segments; each segment's speed is its distance over its duration.
    init<C: Collection>(legs: C, network: RoadNetwork) where C.Element == RouteLeg {
        for s in legs.lazy.flatMap(\.segments) {
            let speed = s.duration > 0 && s.distance > 0 ? s.distance / s.duration : 10
            let piece = SimulationPath.slice(network: network, edge: s.edge, from: s.fromOffset, to: s.toOffset)
            for (i, p) in piece.enumerated() {
                if i == 0, let last = points.last, (last.x - p.x) * (last.x - p.x) + (last.y - p.y) * (last.y - p.y) < 1e-6 {
                    continue
                }
                append(p, speed: speed)
            }
            if !speeds.isEmpty { speeds[speeds.count - 1] = speed }
        }
        if points.count == 1 { append(points[0], speed: 0) }
    }

    private mutating func append(_ p: LocalPoint, speed: Double) {
        if let last = points.last {
            let d = ((p.x - last.x) * (p.x - last.x) + (p.y - last.y) * (p.y - last.y)).squareRoot()
            along.append(along[along.count - 1] + d)
            speeds.append(speed)
        } else {
            along.append(0)
        }
        points.append(p)
    }

    /// Points of edge `e` from offset `from` to offset `to` (reversed when `from > to`), local frame.
    static func slice(network: RoadNetwork, edge e: Int, from: Double, to: Double) -> [LocalPoint] {
        var out: [LocalPoint] = []
        network.forEachLocalPoint(ofEdge: e, from: min(from, to), to: max(from, to)) { out.append($0) }
        return from <= to ? out : out.reversed()
    }

    /// Position, course (degrees) and speed (m/s) at `d` metres along.
    func state(at d: Double) -> (point: LocalPoint, course: Double, speed: Double) {
        guard points.count >= 2 else { return (points.first ?? LocalPoint(x: 0, y: 0), 0, 0) }
        let target = max(0, min(d, length))
        var lo = 0, hi = along.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if along[mid] <= target { lo = mid } else { hi = mid }
        }
        // Skip zero-length pieces for the course.
        var k = lo
        while k + 1 < points.count - 1, along[k + 1] - along[k] < 1e-6 { k += 1 }
        let a = points[k], b = points[k + 1]
        let len = along[k + 1] - along[k]
        let t = len > 0 ? (target - along[k]) / len : 0
        let p = LocalPoint(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
        return (p, localBearing(from: a, to: b), speeds[k])
    }
}

extension LegSegment {
    /// Metres from the segment's start to edge offset `offset` in its driving direction, clamped to the segment.
    func metresInto(atEdgeOffset offset: Double) -> Double {
        min(distance, max(0, isForward ? offset - fromOffset : fromOffset - offset))
    }
}
