/// Online, lag-bounded hidden-Markov map matching of a live stream of fixes (Newson & Krumm emissions and
/// transitions, Viterbi forward pass one fix at a time).
///
/// States are directed edges (arcs) near each fix. Emission: Gaussian on the fix-to-road distance, plus a heading
/// term when the fix has a course and moves, plus an optional bonus for arcs of the route being guided. Transition:
/// exponential on |route distance - straight-line distance| with route distances from a small bounded search on the
/// directed graph. With `lag` = 0 every fix is answered at once with the best current state; with `lag` = L the
/// answer for a fix comes L fixes later, taken from the Viterbi path through the L newer fixes. Only the last L + 1
/// layers are kept, and each layer holds at most `maxStates` states within `beam` of its best.
/// Not thread-safe (owns a `Snapper`); one per stream.
public final class OnlineMatcher {
    public struct Options: Hashable, Sendable {
        /// Candidate search radius, metres.
        public var radius = 50.0
        /// GPS noise (metres, 1 sigma); a fix's own larger horizontal accuracy is used instead.
        public var sigma = 5.0
        /// Transition scale, metres.
        public var beta = 6.0
        /// Nearest roads considered per fix (a one-way edge and its reverse twin, one road drawn per direction,
        /// count once).
        public var maxCandidates = 6
        /// Spread of heading error (degrees) when the fix's course is used.
        public var headingSigma = 45.0
        /// The course is used only at or above this speed (m/s) when the fix has a speed.
        public var minimumHeadingSpeed = 1.5
        /// Log-probability bonus of an arc of the guided route.
        public var routeBonus = 2.0
        /// Fixes of delay before a fix's match is final (0: answer at once).
        public var lag = 0
        /// States further than this (log-probability) below a layer's best are dropped.
        public var beam = 14.0
        /// States kept per layer.
        public var maxStates = 6
        /// A time gap (seconds) after which matching restarts without transitions.
        public var maxGap = 60.0

        public init() {}
    }

    /// The matched position of one fix.
    public struct Match: Hashable, Sendable {
        /// The fix this match is for.
        public var fix: Fix
        public var edge: Int
        /// Travelling along the edge's geometry.
        public var isForward: Bool
        /// Metres from the edge's start (geometry direction).
        public var offset: Double
        public var point: LocalPoint
        public var coordinate: GeoCoordinate
        /// Road bearing in the travel direction, degrees.
        public var bearing: Double
        /// Metres from the fix to the matched point.
        public var distance: Double
    }

    struct State {
        var arc: Int32
        /// Metres along the arc in its travel direction.
        var position: Double
        var point: LocalPoint
        var distance: Double
        var bearing: Double
        var score: Double
        var prev: Int32
    }

    struct Layer {
        var fix: Fix
        var point: LocalPoint
        var states: [State]
    }

    public let network: RoadNetwork
    public let snapper: Snapper
    public var options: Options
    /// Per-arc flags of the route being guided (empty for free drive).
    public var routeArcs: [Bool] = []

    private var layers: [Layer] = []
    private var candidates: [SnapCandidate] = []
    private var next: [State] = []
    private var best: [Double] = []
    private var bestPrev: [Int32] = []
    // Bounded search scratch: distances per node valid where stamp == generation.
    private var nodeDistance: [Double]
    private var nodeStamp: [UInt32]
    private var generation: UInt32 = 0
    private var heap: [(Double, Int32)] = []
    /// For a one-way edge, the edge running the same road the other way (networks that draw each direction as its
    /// own edge), else -1: such a pair counts as one candidate road.
    private let reverseTwin: [Int32]

    public init(network: RoadNetwork, options: Options = Options()) throws(RoadSnapError) {
        self.network = network
        self.options = options
        snapper = try Snapper(network: network, maxCandidates: max(2 * options.maxCandidates, 16))
        nodeDistance = [Double](repeating: 0, count: network.nodes.count)
        nodeStamp = [UInt32](repeating: 0, count: network.nodes.count)
        let g = network.graph
        var twin = [Int32](repeating: -1, count: network.edges.count)
        for e in network.edges.indices {
            let forward = RoadGraph.arc(edge: e, forward: true)
            let arc = g.arcTail[forward] >= 0 ? forward : forward + 1
            let reverse = Int(g.reverseArc[arc])
            if reverse >= 0, RoadGraph.edge(ofArc: reverse) != e { twin[e] = Int32(RoadGraph.edge(ofArc: reverse)) }
        }
        reverseTwin = twin
    }

    /// Forgets the history: the next fix starts a new match.
    public func reset() { layers.removeAll(keepingCapacity: true) }

    /// Feeds one fix. Returns the match that became final (for this fix when `lag` is 0, else for the fix `lag`
    /// positions earlier), nil when none did. `unmatched` is true when no road lies within the radius of the fix;
    /// the history restarts then and the matches it still held come back in `released`.
    public func update(_ fix: Fix) -> (match: Match?, unmatched: Bool, released: [Match]) {
        update(fix, at: snapper.project(fix.coordinate))
    }

    /// `update(_:)` for a fix already projected into the network's local frame (`snapper.project`).
    public func update(_ fix: Fix, at p: LocalPoint) -> (match: Match?, unmatched: Bool, released: [Match]) {
        // Scratch arrays are moved into locals while in use: no exclusivity check per access.
        var found: [SnapCandidate] = []
        swap(&found, &candidates)
        defer { swap(&found, &candidates) }
        found.removeAll(keepingCapacity: true)
        // The nearest `maxCandidates` roads: an edge whose reverse twin is already in counts as the same road.
        let limit = options.maxCandidates
        var roads = 0
        let twin = reverseTwin
        snapper.query.forEachCandidate(near: p, radius: options.radius) { c in
            let t = twin[c.edge]
            if t >= 0, found.contains(where: { $0.edge == Int(t) }) {
                found.append(c)
            } else if roads < limit {
                found.append(c)
                roads += 1
            }
        }
        if found.isEmpty {
            return (nil, true, flush())
        }
        let sigma = max(options.sigma, fix.horizontalAccuracy ?? 0)
        let useHeading: Bool
        if let course = fix.course, course.isFinite, course >= 0 {
            useHeading = (fix.speed ?? options.minimumHeadingSpeed) >= options.minimumHeadingSpeed
        } else {
            useHeading = false
        }
        let graph = network.graph
        var states: [State] = []
        swap(&states, &next)
        states.removeAll(keepingCapacity: true)
        for c in found {
            let length = network.edges[c.edge].length
            for direction in 0..<2 {
                let forward = direction == 0
                let arc = RoadGraph.arc(edge: c.edge, forward: forward)
                guard graph.arcTail[arc] >= 0 else { continue }
                let bearing = forward ? c.bearing : (c.bearing + 180).truncatingRemainder(dividingBy: 360)
                var emission = -0.5 * (c.distance / sigma) * (c.distance / sigma)
                if useHeading, let course = fix.course {
                    let d = bearingDifference(course, bearing) / options.headingSigma
                    emission -= 0.5 * d * d
                }
                if arc < routeArcs.count, routeArcs[arc] { emission += options.routeBonus }
                states.append(State(arc: Int32(arc), position: forward ? c.offset : length - c.offset, point: c.point,
                                    distance: c.distance, bearing: bearing, score: emission, prev: -1))
            }
        }
        // Candidates far less likely than the best one by their emission alone cannot win: drop them early.
        if let top = states.max(by: { $0.score < $1.score })?.score {
            states.removeAll { $0.score < top - options.beam }
        }
        if let last = layers.last, !last.states.isEmpty, transitionsAllowed(from: last.fix, to: fix) {
            connect(from: last, to: p, &states)
        }
        OnlineMatcher.prune(&states, beam: options.beam, maxStates: options.maxStates)
        // Recycle the oldest layer's storage as the next scratch buffer (no allocation per fix).
        if layers.count >= options.lag + 1 {
            next = layers.removeFirst().states
        }
        layers.append(Layer(fix: fix, point: p, states: states))
        guard layers.count == options.lag + 1 else { return (nil, false, []) }
        return (finalMatch(), false, [])
    }

    /// The matches still held back by the lag, oldest first (at the end of a stream, or before a restart).
    public func flush() -> [Match] {
        defer { layers.removeAll(keepingCapacity: true) }
        guard options.lag > 0, !layers.isEmpty else { return [] }
        // When the window is full its oldest layer was answered already.
        let first = layers.count == options.lag + 1 ? 1 : 0
        var result: [Match] = []
        var li = layers.count - 1
        var k = bestIndex(layers[li].states)
        while li >= first, let kk = k {
            let s = layers[li].states[kk]
            result.append(match(s, fix: layers[li].fix))
            li -= 1
            if li >= 0 { k = s.prev >= 0 ? Int(s.prev) : bestIndex(layers[li].states) }
        }
        return result.reversed()
    }

    private func transitionsAllowed(from a: Fix, to b: Fix) -> Bool {
        guard let ta = a.time, let tb = b.time else { return true }
        return tb - ta <= options.maxGap && tb >= ta
    }

    /// Best predecessor for every new state (Viterbi step); leaves emissions alone where no transition exists.
    private func connect(from last: Layer, to p: LocalPoint, _ next: inout [State]) {
        let straight = ((p.x - last.point.x) * (p.x - last.point.x) + (p.y - last.point.y) * (p.y - last.point.y))
            .squareRoot()
        let bound = min(3000, 2 * straight + 60)
        let graph = network.graph
        var best: [Double] = [], bestPrev: [Int32] = []
        swap(&best, &self.best)
        swap(&bestPrev, &self.bestPrev)
        defer {
            swap(&best, &self.best)
            swap(&bestPrev, &self.bestPrev)
        }
        best.removeAll(keepingCapacity: true)
        best.append(contentsOf: repeatElement(-.infinity, count: next.count))
        bestPrev.removeAll(keepingCapacity: true)
        bestPrev.append(contentsOf: repeatElement(-1, count: next.count))
        let prevStates = last.states
        var searchedHead: Int32 = -1, searchedBound = -Double.infinity
        // Previous states best first (prune keeps them sorted): once a state scores below every new state's best
        // so far, no later one can improve any (transitions only lower a score).
        var reached = 0
        var worstBest = -Double.infinity
        for i in prevStates.indices {
            let s = prevStates[i]
            if reached == next.count, s.score < worstBest { break }
            let arc = Int(s.arc)
            let head = graph.arcHead[arc]
            let toEnd = graph.arcLength[arc] - s.position
            var searched = false
            for j in next.indices {
                let t = next[j]
                var route: Double
                let along = t.position - s.position
                if t.arc == s.arc, along >= -max(10, 2 * options.sigma) {
                    route = abs(along)
                } else {
                    // Another arc, or backwards along the same one (only by driving round): the bounded search.
                    if !searched {
                        if searchedHead != head || searchedBound < bound - toEnd {
                            search(from: Int(head), bound: bound - toEnd)
                            searchedHead = head
                            searchedBound = bound - toEnd
                        }
                        searched = true
                    }
                    guard let via = distance(to: Int(graph.arcTail[Int(t.arc)])) else { continue }
                    route = toEnd + via + t.position
                    if route > bound { continue }
                }
                var transition = -abs(route - straight) / options.beta
                if Int(t.arc) >> 1 == arc >> 1, t.arc != s.arc { transition -= 5 }  // U-turn onto the same road
                let score = s.score + transition
                if score > best[j] {
                    if best[j] == -.infinity { reached += 1 }
                    best[j] = score
                    bestPrev[j] = Int32(i)
                }
            }
            if reached == next.count { worstBest = best.min() ?? -.infinity }
        }
        var any = false
        for j in next.indices where best[j] > -.infinity {
            any = true
            next[j].score += best[j]
            next[j].prev = bestPrev[j]
        }
        if !any { return }
        // States no transition reaches cannot follow the previous fix: drop them.
        next.removeAll { $0.prev < 0 }
    }

    /// Bounded Dijkstra over nodes from `source` (turn restrictions are not applied: this measures distance).
    /// The scratch arrays are moved into locals for the loop so that no exclusivity check runs per access.
    private func search(from source: Int, bound: Double) {
        generation &+= 1
        if generation == 0 {
            for k in nodeStamp.indices { nodeStamp[k] = 0 }
            generation = 1
        }
        let gen = generation
        var distance: [Double] = [], stamp: [UInt32] = [], queue: [(Double, Int32)] = []
        swap(&distance, &nodeDistance)
        swap(&stamp, &nodeStamp)
        swap(&queue, &heap)
        defer {
            swap(&distance, &nodeDistance)
            swap(&stamp, &nodeStamp)
            swap(&queue, &heap)
        }
        let graph = network.graph
        queue.removeAll(keepingCapacity: true)
        distance[source] = 0
        stamp[source] = gen
        guard bound >= 0 else { return }
        OnlineMatcher.heapPush(&queue, (0, Int32(source)))
        graph.outStart.withUnsafeBufferPointer { outStart in
            graph.outArcs.withUnsafeBufferPointer { outArcs in
                graph.arcHead.withUnsafeBufferPointer { arcHead in
                    graph.arcLength.withUnsafeBufferPointer { arcLength in
                        while let (d, n) = OnlineMatcher.heapPop(&queue) {
                            let node = Int(n)
                            if d > distance[node] { continue }
                            var k = Int(outStart[node])
                            let end = Int(outStart[node + 1])
                            while k < end {
                                let arc = Int(outArcs[k])
                                let h = Int(arcHead[arc])
                                let nd = d + arcLength[arc]
                                if nd <= bound, stamp[h] != gen || nd < distance[h] {
                                    stamp[h] = gen
                                    distance[h] = nd
                                    OnlineMatcher.heapPush(&queue, (nd, Int32(h)))
                                }
                                k += 1
                            }
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private func distance(to node: Int) -> Double? { nodeStamp[node] == generation ? nodeDistance[node] : nil }

    private static func heapPush(_ heap: inout [(Double, Int32)], _ e: (Double, Int32)) {
        heap.append(e)
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if heap[parent].0 <= heap[i].0 { break }
            heap.swapAt(parent, i)
            i = parent
        }
    }

    private static func heapPop(_ heap: inout [(Double, Int32)]) -> (Double, Int32)? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if heap.isEmpty { return top }
        heap[0] = last
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, heap[l].0 < heap[m].0 { m = l }
            if r < heap.count, heap[r].0 < heap[m].0 { m = r }
            if m == i { break }
            heap.swapAt(m, i)
            i = m
        }
        return top
    }

    /// Keeps the best states within the beam, renormalised so the best scores 0.
    private static func prune(_ next: inout [State], beam: Double, maxStates: Int) {
        guard let top = next.max(by: { $0.score < $1.score })?.score else { return }
        for k in next.indices { next[k].score -= top }
        // Best first (the next step relies on it); `prev` indices point into the previous layer, so reordering
        // this one is safe.
        next.sort { $0.score > $1.score }
        if let cut = next.firstIndex(where: { $0.score < -beam }) { next.removeLast(next.count - cut) }
        if next.count > maxStates { next.removeLast(next.count - maxStates) }
    }

    private func bestIndex(_ states: [State]) -> Int? {
        states.indices.max { states[$0].score < states[$1].score }
    }

    /// The state of the oldest held layer on the best path through the newest one.
    private func finalMatch() -> Match? {
        guard var k = bestIndex(layers[layers.count - 1].states) else { return nil }
        var li = layers.count - 1
        while li > 0 {
            let prev = layers[li].states[k].prev
            if prev < 0 { break }
            k = Int(prev)
            li -= 1
        }
        // A restart inside the window: answer the oldest layer with its own best state.
        if li > 0, let own = bestIndex(layers[0].states) { return match(layers[0].states[own], fix: layers[0].fix) }
        return match(layers[0].states[k], fix: layers[0].fix)
    }

    private func match(_ s: State, fix: Fix) -> Match {
        let g = snapper.frame.inverse(s.point)
        let edge = Int(s.arc) >> 1
        let forward = Int(s.arc) & 1 == 0
        let length = network.edges[edge].length
        return Match(fix: fix, edge: edge, isForward: forward, offset: forward ? s.position : length - s.position,
                     point: s.point, coordinate: GeoCoordinate(uncheckedLatitude: g.latitude, longitude: g.longitude),
                     bearing: s.bearing, distance: s.distance)
    }
}
