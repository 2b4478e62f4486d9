/// Turns a search path into a leg: segments with offsets, geometry, durations and turn-by-turn steps.
struct LegBuilder {
    let router: Router
    let graph: TurnGraph
    /// The network's attribute sets, read once per leg (no lock and no copy of a set per arc looked at).
    let attributeTable: [RoadAttributes]
    private static let unknownAttributes = RoadAttributes(roadClass: .unknown)

    init(router: Router, graph: TurnGraph) {
        self.router = router
        self.graph = graph
        attributeTable = router.network.edges.store.attributeTable()
    }

    var network: RoadNetwork { router.network }
    var geometry: ArcGeometry { router.geometry }
    var side: DrivingSide { router.drivingSide }

    func leg(path: SearchPath, from: PlacedWaypoint, to: PlacedWaypoint, origin: Waypoint,
             destination: Waypoint) -> RouteLeg
    {
        let arcs = path.arcs
        var segments: [LegSegment] = []
        var geo: [GeoCoordinate] = []
        var along = 0.0
        for (i, arc) in arcs.enumerated() {
            let e = arc >> 1, forward = arc & 1 == 0
            let len = network.edges[e].length
            let start = i == 0 ? from.candidate.offset : (forward ? 0 : len)
            let end = i == arcs.count - 1 ? to.candidate.offset : (forward ? len : 0)
            var seconds = withAttributes(arc) {
                CarProfile.seconds($0, edgeLength: len, length: abs(end - start), forward: forward)
            }
            if i > 0, let turn = graph.turnOnly(from: arcs[i - 1], to: arc) { seconds += Double(turn) / 1000 }
            let geometryStart = geo.isEmpty ? 0 : geo.count - 1
            appendPoints(edge: e, from: start, to: end, to: &geo)
            segments.append(LegSegment(arc: arc, fromOffset: start, toOffset: end, duration: seconds,
                                       distanceFromLegStart: along, geometryStart: geometryStart))
            along += abs(end - start)
        }
        let duration = segments.reduce(0) { $0 + $1.duration }
        // The snapped ends as the geometry has them (interpolated on the shape), so both agree exactly.
        var from = from, to = to
        from.snapped = geo[0]; to.snapped = geo[geo.count - 1]
        let steps = StepBuilder(leg: self, segments: segments, from: from, to: to).steps()
        return RouteLeg(origin: origin, destination: destination, snappedOrigin: from.snapped,
                        snappedDestination: to.snapped, geometry: geo, distance: along, duration: duration,
                        steps: steps, segments: segments)
    }

    /// Appends the geometry of edge `e` from offset `from` to offset `to` (reversed when `from > to`) to `geo`,
    /// without its first point when `geo` already ends there (a path's pieces join); no array per edge.
    func appendPoints(edge e: Int, from: Double, to: Double, to geo: inout [GeoCoordinate]) {
        let joined = !geo.isEmpty
        let first = geo.count
        network.forEachPoint(ofEdge: e, from: min(from, to), to: max(from, to)) { geo.append($0) }
        if from > to { geo[first...].reverse() }
        if joined, first < geo.count { geo.remove(at: first) }
    }

    /// `body` applied to arc `arc`'s attribute set, read in place.
    func withAttributes<T>(_ arc: Int, _ body: (RoadAttributes) -> T) -> T {
        let i = network.edges.attributeIndex(arc >> 1)
        return i >= 0 && i < attributeTable.count ? body(attributeTable[i]) : body(Self.unknownAttributes)
    }

    func attributes(_ arc: Int) -> RoadAttributes { withAttributes(arc) { $0 } }

    func roadClass(_ arc: Int) -> RoadClass { withAttributes(arc) { $0.roadClass } }

    func isRoundabout(_ arc: Int) -> Bool { withAttributes(arc) { $0.isRoundabout } }

    /// `name`, else `ref`, else empty.
    func simpleName(_ arc: Int) -> String { withAttributes(arc) { $0.name ?? $0.ref ?? "" } }

    /// "Name (ref)" when both are tagged.
    func fullName(_ arc: Int) -> String {
        withAttributes(arc) { a in
            if let n = a.name, let r = a.ref, n != r { return "\(n) (\(r))" }
            return a.name ?? a.ref ?? ""
        }
    }
}

/// Decides the maneuvers along a leg and writes the steps.
struct StepBuilder {
    let leg: LegBuilder
    let segments: [LegSegment]
    let from: PlacedWaypoint
    let to: PlacedWaypoint

    struct Pending {
        var segment: Int
        var maneuver: Maneuver
        var turn: TurnDirection?
        var exit: Int = -1
        var exitNumber: String?
        var lanes: [Lane] = []
        var towards: String?
        /// For roundabouts: the first ring segment (where the step is announced).
        var entry: Int?
    }

    /// Name changes closer than this (metres) to the previous or next step are not announced.
    static let nameChangeGap = 40.0

    func steps() -> [RouteStep] {
        let arcs = segments.map(\.arc)
        var pending: [Pending] = []
        var i = 1
        // Leaving a roundabout the leg started on.
        var startedOnRing = leg.isRoundabout(arcs[0])
        while i < arcs.count {
            let a = arcs[i - 1], b = arcs[i]
            let aOnRing = leg.isRoundabout(a), bOnRing = leg.isRoundabout(b)
            if bOnRing && !aOnRing {
                let ring = { (k: Int) -> Bool in leg.isRoundabout(arcs[k]) }
                var j = i
                while j < arcs.count && ring(j) { j += 1 }
                let exit = roundaboutExit(arcs, entry: i, exitAt: j)
                let cw = clockwise(arcs, entry: i, exitAt: j)
                let dir = j < arcs.count ? TurnDirection(angle: signedAngle(from: leg.geometry.endBearing[a],
                                                                           to: leg.geometry.startBearing[arcs[j]])) : nil
                let seg = j < arcs.count ? j : i
                pending.append(Pending(segment: seg, maneuver: Maneuver.roundabout(dir, clockwise: cw), turn: dir,
                                       exit: j < arcs.count ? exit : -1, entry: i))
                i = j < arcs.count ? j + 1 : arcs.count
                startedOnRing = false
                continue
            }
            if aOnRing && !bOnRing && startedOnRing {
                let cw = clockwise(arcs, entry: 0, exitAt: i)
                pending.append(Pending(segment: i, maneuver: cw ? .roundaboutExitClockwise : .roundaboutExitCounterClockwise,
                                       turn: nil))
                startedOnRing = false
                i += 1
                continue
            }
            if let p = junction(arcs, at: i) { pending.append(p) }
            i += 1
        }
        // Name changes right next to another step (a short tunnel or bridge name) are noise.
        let at = { (k: Int) -> Double in self.segments[k].distanceFromLegStart }
        let total = segments.last.map { $0.distanceFromLegStart + $0.distance } ?? 0
        // And one back to the name last announced is no change at all.
        var kept: [Pending] = []
        var announced = leg.simpleName(arcs[0])
        for (k, p) in pending.enumerated() {
            let name = leg.simpleName(arcs[p.segment])
            if p.maneuver == .nameChange {
                let before = kept.last.map { at($0.segment) } ?? 0
                let after = k + 1 < pending.count ? at(pending[k + 1].segment) : total
                if at(p.segment) - before < Self.nameChangeGap || after - at(p.segment) < Self.nameChangeGap
                    || name == announced { continue }
            }
            announced = name
            kept.append(p)
        }
        return write(collapse(kept, arcs: arcs), arcs: arcs)
    }

    /// Number of the exit taken: ring nodes passed with a road leaving the ring, counting the exit's own node.
    /// Driveways (service roads, destination-only access) do not count as exits unless the route takes one.
    func roundaboutExit(_ arcs: [Int], entry: Int, exitAt j: Int) -> Int {
        let g = leg.network.graph
        var count = 0
        for m in entry..<min(j, arcs.count) {
            let v = Int(g.arcHead[arcs[m]])
            let taken = m + 1 < arcs.count ? arcs[m + 1] : -1
            var hasExit = false
            for k in Int(g.outStart[v])..<Int(g.outStart[v + 1]) {
                let o = Int(g.outArcs[k])
                let a = leg.attributes(o)
                if a.isRoundabout { continue }
                if o == taken || (a.roadClass != .service && a.access != .destination) { hasExit = true; break }
            }
            if hasExit { count += 1 }
        }
        return max(1, count)
    }

    /// Whether the ring is driven clockwise, from how the path turns on it (driving side when too short to tell).
    func clockwise(_ arcs: [Int], entry: Int, exitAt j: Int) -> Bool {
        var total = 0.0
        let end = min(j, arcs.count)
        for m in entry..<end {
            let a = arcs[m]
            total += signedAngle(from: leg.geometry.startBearing[a], to: leg.geometry.endBearing[a])
            if m + 1 < end { total += leg.geometry.turnAngle(from: a, to: arcs[m + 1]) }
        }
        if abs(total) < 10 { return leg.side == .left }
        return total > 0
    }

    /// What a junction's maneuver reads of a road (no copy of its whole attribute set).
    struct Road {
        let roadClass: RoadClass
        let isFerry: Bool
        let isTrain: Bool
        let destination: String?

        init(_ leg: LegBuilder, _ arc: Int) {
            (roadClass, isFerry, isTrain, destination) = leg.withAttributes(arc) {
                ($0.roadClass, $0.isFerry, $0.isTrain, $0.destination)
            }
        }
    }

    /// The maneuver at the junction between segments `i - 1` and `i`, or nil when the road simply continues.
    func junction(_ arcs: [Int], at i: Int) -> Pending? {
        let a = arcs[i - 1], b = arcs[i]
        let ra = Road(leg, a), rb = Road(leg, b)
        let side = leg.side
        let geo = leg.geometry
        let angle = geo.turnAngle(from: a, to: b)
        var dir = TurnDirection(angle: angle)
        let v = Int(leg.network.graph.arcHead[a])
        // Lane guidance for the direction first found (read only for the steps that have lanes).
        let laneDirection = dir
        var lanes: [Lane] { laneGuidance(arc: a, towards: b, direction: laneDirection) }
        if a >> 1 == b >> 1 {
            return Pending(segment: i, maneuver: .turn(.uTurn, side: side), turn: .uTurn, lanes: lanes)
        }
        if rb.isFerry && (!ra.isFerry || ra.isTrain != rb.isTrain) {
            return Pending(segment: i, maneuver: rb.isTrain ? .ferryTrain : .ferryBoat, turn: nil)
        }
        // Other ways to go at this junction: how many, and of those roughly ahead (near the route's angle) whether
        // all lie right of the route and whether one is of the class the route takes (counted, no array per turn).
        var others = 0, nearAhead = 0
        var allAheadRightOfRoute = true, aheadOfSameClass = false
        let g = leg.graph
        for k in Int(g.turnStart[a])..<Int(g.turnStart[a + 1]) {
            let o = Int(g.turnTarget[k])
            if o == b || o >> 1 == a >> 1 { continue }
            let t = geo.turnAngle(from: a, to: o)
            others += 1
            if abs(t) < 50, abs(t - angle) < 70 {
                nearAhead += 1
                if !(angle < t) { allAheadRightOfRoute = false }
                if leg.roadClass(o) == rb.roadClass { aheadOfSameClass = true }
            }
        }
        let nameA = leg.simpleName(a), nameB = leg.simpleName(b)
        // Keep/fork: another branch also goes roughly ahead, and the route does not simply stay on its road (same
        // name and class, the other branch a different kind of road or the road named).
        let staysOnRoad = ra.roadClass == rb.roadClass && nameA == nameB && (!nameA.isEmpty || !aheadOfSameClass)
        let isFork = abs(angle) < 50 && nearAhead > 0 && !staysOnRoad
        if isFork { dir = allAheadRightOfRoute ? .keepLeft : .keepRight }
        let aHighway = ra.roadClass.isHighway && !ra.roadClass.isLink
        let bHighway = rb.roadClass.isHighway && !rb.roadClass.isLink
        let exitNumber = aHighway ? leg.network.exitNumbers[v] : nil
        if rb.roadClass.isLink && !ra.roadClass.isLink {
            var d = dir
            if d == .straight { d = angle < 0 ? .keepLeft : .keepRight }
            return Pending(segment: i, maneuver: .ramp(on: !aHighway, d, side: side), turn: d,
                           exitNumber: exitNumber, lanes: lanes, towards: rb.destination)
        }
        if ra.roadClass.isLink && bHighway {
            let m: Maneuver = abs(angle) < 1 ? .mergeUnspecified : (angle > 0 ? .mergeLeft : .mergeRight)
            return Pending(segment: i, maneuver: m, turn: nil)
        }
        if isFork {
            let m: Maneuver = aHighway || bHighway || ra.roadClass.isLink
                ? (dir == .keepLeft ? .forkLeft : .forkRight) : .turn(dir, side: side)
            return Pending(segment: i, maneuver: m, turn: dir, exitNumber: exitNumber, lanes: lanes,
                           towards: rb.destination)
        }
        let renamed = nameA != nameB
        let unnamedAhead = nameB.isEmpty
        if others == 0 {
            if !renamed { return nil }
            if abs(angle) >= 50 { return Pending(segment: i, maneuver: .turn(dir, side: side), turn: dir, lanes: lanes) }
            return unnamedAhead ? nil : Pending(segment: i, maneuver: .nameChange, turn: nil)
        }
        if dir == .straight {
            return renamed && !unnamedAhead ? Pending(segment: i, maneuver: .straight, turn: .straight, lanes: lanes) : nil
        }
        // A slight bend that stays on the same named road, no other branch near it: obvious, no instruction.
        if !renamed, !unnamedAhead, dir == .slightLeft || dir == .slightRight { return nil }
        return Pending(segment: i, maneuver: .turn(dir, side: side), turn: dir, lanes: lanes)
    }

    /// Lanes of `turn:lanes` on the arriving arc, with the lanes for the maneuver's direction recommended.
    func laneGuidance(arc a: Int, towards b: Int, direction: TurnDirection) -> [Lane] {
        guard let raw = leg.withAttributes(a, { a & 1 == 0 ? $0.turnLanesForward : $0.turnLanesBackward }),
              raw.contains("|") || !raw.isEmpty
        else { return [] }
        let parsed: [[LaneShape]] = raw.split(separator: "|", omittingEmptySubsequences: false).map { lane in
            lane.split(separator: ";", omittingEmptySubsequences: false).map { Self.shape(String($0).trimmed) }
        }
        let want: [[LaneShape]]
        switch direction {
        case .straight: want = [[.straight], [.unknown]]
        case .slightLeft: want = [[.slightLeft], [.normalLeft, .straight]]
        case .slightRight: want = [[.slightRight], [.normalRight, .straight]]
        case .left: want = [[.normalLeft], [.slightLeft, .sharpLeft]]
        case .right: want = [[.normalRight], [.slightRight, .sharpRight]]
        case .sharpLeft: want = [[.sharpLeft], [.normalLeft]]
        case .sharpRight: want = [[.sharpRight], [.normalRight]]
        case .keepLeft: want = [[.slightLeft], [.normalLeft, .straight]]
        case .keepRight: want = [[.slightRight], [.normalRight, .straight]]
        case .uTurn: want = [[.uTurnLeft, .uTurnRight], [.sharpLeft, .sharpRight]]
        }
        var chosen: Set<LaneShape> = []
        // Unmarked lanes (`none`, empty) are the fallback: they go wherever the marked lanes do not.
        for tier in want + [[.unknown]] where chosen.isEmpty {
            if parsed.contains(where: { $0.contains(where: tier.contains) }) { chosen = Set(tier) }
        }
        var lanes = parsed.map { shapes in
            Lane(directions: shapes.map { LaneDirection(shape: $0, isRecommended: chosen.contains($0)) })
        }
        // Keeping left or right with "through" lanes on both sides: only the lanes on that side.
        if direction == .keepLeft || direction == .keepRight, chosen.contains(.straight) {
            let idx = lanes.indices.filter { lanes[$0].isRecommended }
            if idx.count > 1 {
                let keep = direction == .keepLeft ? idx.first! : idx.last!
                for k in idx where k != keep {
                    lanes[k].directions = lanes[k].directions.map { LaneDirection(shape: $0.shape, isRecommended: false) }
                }
            }
        }
        return lanes
    }

    /// Lane arrow of one `turn:lanes` value.
    static func shape(_ v: String) -> LaneShape {
        switch v {
        case "through", "merge_to_left", "merge_to_right": return .straight
        case "left": return .normalLeft
        case "right": return .normalRight
        case "slight_left": return .slightLeft
        case "slight_right": return .slightRight
        case "sharp_left": return .sharpLeft
        case "sharp_right": return .sharpRight
        case "reverse": return .uTurnLeft
        default: return .unknown
        }
    }

    private func write(_ pending: [Pending], arcs: [Int]) -> [RouteStep] {
        var steps: [RouteStep] = []
        var timeAt: [Double] = [0]
        for s in segments { timeAt.append(timeAt[timeAt.count - 1] + s.duration) }
        var lastDistance = 0.0, lastTime = 0.0
        func add(_ maneuver: Maneuver, segment: Int, location: GeoCoordinate, distance: Double, time: Double,
                 nameArc: Int, text: String, lanes: [Lane] = [], exit: Int = -1, exitNumber: String? = nil)
        {
            steps.append(RouteStep(
                stepNumber: steps.count, maneuver: maneuver, location: location, simpleRoadName: leg.simpleName(nameArc),
                fullRoadName: leg.fullName(nameArc), instruction: text,
                distanceFromPreviousStep: distance - lastDistance, timeFromPreviousStep: time - lastTime,
                distanceFromLegStart: distance, timeFromLegStart: time, drivingSide: leg.side, lanes: lanes,
                exitNumber: exitNumber, roundaboutTurnNumber: exit, segmentIndex: segment))
            lastDistance = distance; lastTime = time
        }
        // Depart.
        let first = arcs[0]
        let departBearing = first & 1 == 0 ? from.candidate.bearing : (from.candidate.bearing + 180)
            .truncatingRemainder(dividingBy: 360)
        add(.depart, segment: 0, location: from.snapped, distance: 0, time: 0, nameArc: first,
            text: Instructions.depart(bearing: departBearing, road: leg.simpleName(first)))
        for p in pending {
            let seg = segments[p.segment]
            let arc = arcs[p.segment]
            let node = Int(leg.network.graph.arcTail[arc])
            let location = leg.network.nodes[node]
            var distance = seg.distanceFromLegStart
            var time = timeAt[p.segment]
            if p.maneuver.family == .roundabout, p.exit > 0 {
                // Announced at the ring's entry: back up to where the ring starts.
                let k = p.entry ?? p.segment
                distance = segments[k].distanceFromLegStart; time = timeAt[k]
                let entryNode = Int(leg.network.graph.arcTail[arcs[k]])
                // Leaving on the road the ring was entered from: stay on it, or turn around on it.
                let entered = k > 0 ? leg.simpleName(arcs[k - 1]) : ""
                let sameRoad = !entered.isEmpty && entered == leg.simpleName(arc)
                let text = p.turn == .uTurn || (sameRoad && k > 0 && arcs[k - 1] >> 1 == arc >> 1)
                    ? InstructionText.roundabout(exit: p.exit, road: leg.simpleName(arc), turnsAround: true)
                    : sameRoad ? InstructionText.roundabout(exit: p.exit, road: leg.simpleName(arc), turnsAround: false)
                    : Instructions.text(p.maneuver, road: leg.simpleName(arc), exit: p.exit, exitNumber: nil, towards: nil)
                add(p.maneuver, segment: p.segment, location: leg.network.nodes[entryNode], distance: distance,
                    time: time, nameArc: arc, text: text, exit: p.exit)
                continue
            }
            add(p.maneuver, segment: p.segment, location: location, distance: distance, time: time, nameArc: arc,
                text: Instructions.text(p.maneuver, road: leg.simpleName(arc), exit: p.exit, exitNumber: p.exitNumber,
                                        towards: p.towards),
                lanes: p.lanes, exit: p.exit, exitNumber: p.exitNumber)
            steps[steps.count - 1].towards = InstructionText.destinations(p.towards)
        }
        // Destination: which side the waypoint lies on.
        let lastArc = arcs[arcs.count - 1]
        var arrive = Maneuver.destination
        if to.candidate.distance > 3 {
            let bearing = lastArc & 1 == 0 ? to.candidate.bearing : to.candidate.bearing + 180
            let rad = bearing * Double.pi / 180
            let cross = RSMath.sin(rad) * (to.point.y - to.candidate.point.y)
                - RSMath.cos(rad) * (to.point.x - to.candidate.point.x)
            arrive = cross > 0 ? .destinationLeft : .destinationRight
        }
        let total = segments.last.map { $0.distanceFromLegStart + $0.distance } ?? 0
        add(arrive, segment: segments.count - 1, location: to.snapped, distance: total, time: timeAt[timeAt.count - 1],
            nameArc: lastArc, text: Instructions.text(arrive, road: "", exit: -1, exitNumber: nil, towards: nil))
        return steps
    }
}
