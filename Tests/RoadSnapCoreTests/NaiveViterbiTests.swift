import Foundation
import Testing
import RoadSnapBridge
import RoadSnapCore
import RoadSnapFormats

/// The matching engine (C, `CShims/match*.c`) against a naive Viterbi written here from the model's description alone
/// (issue 13): candidates by scanning every edge's geometry, route distances by a plain Dijkstra per previous state,
/// every state of every layer expanded, no beam, no cache, no joint search. On short cuts of the real sample drive
/// both must choose the same arc and offset for every fix.
@Suite struct NaiveViterbiTests {
    /// The model with the engine's approximations and heuristics off (no beam, exact per-arc searches, no held fixes,
    /// no wider recovery search, no outlier test), which the naive matcher below does not have either.
    static var parameters: MatchParameters {
        var p = MatchParameters()
        p.raiseSigmaToTrack = false
        p.minFixDistance = 0
        p.recoveryRadius = 0
        p.outlierPenalty = 0
        p.beam = 10_000
        p.jointSearchBeam = 10_000
        p.jointSearchInterval = .infinity
        p.maxCandidates = 128
        return p
    }

    /// One hidden state: fix on arc `arc` at `offset` metres from the arc's tail.
    struct State {
        var arc: Int
        var offset: Double
        /// Fix to road, metres.
        var distance: Double
        var emission: Double
        var score = -Double.infinity
        var back = -1
        /// The furthest offset reached on this arc along the chain ending here (falling back behind it costs).
        var peak: Double
        var sameArc = false
    }

    /// Written from the model as documented (cshims_match.h, docs/matching-model.md), sharing no code with the engine.
    struct NaiveMatcher {
        let network: RoadNetwork
        let graph: RoadGraph
        let p: MatchParameters
        /// Every edge's polyline in the local frame.
        let shapes: [[LocalPoint]]

        init(network: RoadNetwork, p: MatchParameters) {
            self.network = network
            self.graph = network.graph
            self.p = p
            shapes = (0..<network.edges.count).map { Array(network.localGeometry(ofEdge: $0)) }
        }

        /// Every road within the radius of (x, y): its nearest point by plain point–segment geometry.
        func layer(x: Double, y: Double) -> [State] {
            var roads: [(edge: Int, distance: Double, offset: Double)] = []
            for (e, g) in shapes.enumerated() {
                var best = Double.infinity, bestOffset = 0.0, along = 0.0
                for k in 0..<(g.count - 1) {
                    let a = g[k], b = g[k + 1]
                    let dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy, len = l2.squareRoot()
                    let t = l2 > 0 ? min(1, max(0, ((x - a.x) * dx + (y - a.y) * dy) / l2)) : 0
                    let d = ((x - a.x - t * dx) * (x - a.x - t * dx) + (y - a.y - t * dy) * (y - a.y - t * dy))
                        .squareRoot()
                    if d < best { best = d; bestOffset = along + t * len }
                    along += len
                }
                if best <= p.radius { roads.append((e, best, bestOffset)) }
            }
            precondition(roads.count <= p.maxCandidates, "more roads than candidates: the engine would cut")
            var states: [State] = []
            for r in roads {
                let z = r.distance / p.sigma, k = p.huber
                let emission = (k > 0 && z > k) ? -(k * z - 0.5 * k * k) : -0.5 * z * z
                for arc in [2 * r.edge, 2 * r.edge + 1] where graph.arcTail[arc] >= 0 {
                    let len = graph.arcLength[arc]
                    let offset = min(len, max(0, arc & 1 == 0 ? r.offset : len - r.offset))
                    states.append(State(arc: arc, offset: offset, distance: r.distance, emission: emission, peak: offset))
                }
            }
            return states
        }

        /// Least (distance + penalty) from the head of `source` to the tail of every arc within `limit`: a plain
        /// Dijkstra over arcs, U-turns back to the node just left costing the penalty, forbidden turns not taken.
        func routes(from source: Int, limit: Double) -> [Int: (distance: Double, penalty: Double)] {
            var best: [Int: (distance: Double, penalty: Double)] = [:]
            var settled = Set<Int>()
            var open: [(key: Double, distance: Double, arc: Int)] = []
            func relax(_ from: Int, _ distance: Double, _ penalty: Double) {
                let head = Int(graph.arcHead[from]), origin = graph.arcTail[from]
                for k in Int(graph.outStart[head])..<Int(graph.outStart[head + 1]) {
                    let c = Int(graph.outArcs[k])
                    var key = distance + penalty
                    if graph.arcHead[c] == origin { key += p.uturnPenalty }
                    guard key <= limit, graph.isTurnAllowed(from: from, to: c), !settled.contains(c) else { continue }
                    if let known = best[c], known.distance + known.penalty <= key { continue }
                    best[c] = (distance, key - distance)
                    open.append((key, distance, c))
                }
            }
            relax(source, 0, 0)
            while let i = open.indices.min(by: { open[$0].key < open[$1].key }) {
                let item = open.remove(at: i)
                guard !settled.contains(item.arc), let b = best[item.arc], b.distance + b.penalty == item.key
                else { continue }
                settled.insert(item.arc)
                relax(item.arc, item.distance + graph.arcLength[item.arc], item.key - item.distance)
            }
            return best.filter { settled.contains($0.key) }
        }

        /// The best chain over all fixes, or nil when some fix has no candidate or no reachable state.
        func match(x: [Double], y: [Double], t: [Double]) -> [State]? {
            var layers: [[State]] = []
            for f in x.indices {
                var cur = layer(x: x[f], y: y[f])
                guard !cur.isEmpty else { return nil }
                guard let prev = layers.last else {
                    for j in cur.indices { cur[j].score = cur[j].emission }
                    layers.append(cur)
                    continue
                }
                let gc = ((x[f] - x[f - 1]) * (x[f] - x[f - 1]) + (y[f] - y[f - 1]) * (y[f] - y[f - 1])).squareRoot()
                let dt = t[f] - t[f - 1]
                var bound = max(p.distanceFactor * gc, gc + p.searchFloor)
                if dt >= 0, p.maxSpeed > 0 { bound = min(bound, gc + p.maxSpeed * max(dt, 1)) }
                let beta = p.beta + p.betaPerSecond * max(dt - 1, 0)
                let tolerance = max(p.backwardTolerance, 3 * p.sigma)
                func consider(_ j: Int, _ i: Int, _ route: Double, _ penalty: Double, sameArc: Bool) {
                    let s = prev[i].score - (abs(route - gc) + penalty) / beta
                    if s > cur[j].score { cur[j].score = s; cur[j].back = i; cur[j].sameArc = sameArc }
                }
                for i in prev.indices where prev[i].score > -.infinity {
                    let a = prev[i].arc, o = prev[i].offset, remaining = graph.arcLength[a] - o
                    for j in cur.indices where cur[j].arc == a {
                        // Along the same arc: falling back is noise up to the tolerance, a reversal beyond it.
                        let back = o - cur[j].offset
                        let over = max(back - tolerance, prev[i].peak - cur[j].offset - 2 * tolerance)
                        if abs(back) <= bound {
                            consider(j, i, abs(back), over > 0 ? p.uturnPenalty + over : 0, sameArc: true)
                        }
                    }
                    let reverse = Int(graph.reverseArc[a])
                    for j in cur.indices where reverse >= 0 && cur[j].arc == reverse {
                        // Turning round in place onto the same road the other way.
                        let here = graph.arcLength[a] - o
                        if cur[j].offset >= here - tolerance, abs(cur[j].offset - here) <= bound {
                            consider(j, i, abs(cur[j].offset - here), p.uturnPenalty, sameArc: false)
                        }
                    }
                    let need = bound - remaining
                    guard need >= 0 else { continue }
                    let reached = routes(from: a, limit: need)
                    for j in cur.indices {
                        guard let r = reached[cur[j].arc] else { continue }
                        let d = remaining + r.distance + cur[j].offset
                        if d <= bound { consider(j, i, d, r.penalty, sameArc: false) }
                    }
                }
                var nearest = Double.infinity, nearestReached = Double.infinity
                for j in cur.indices {
                    if cur[j].sameArc, cur[j].back >= 0 { cur[j].peak = max(cur[j].peak, prev[cur[j].back].peak) }
                    nearest = min(nearest, cur[j].distance)
                    if cur[j].score > -.infinity {
                        cur[j].score += cur[j].emission
                        nearestReached = min(nearestReached, cur[j].distance)
                    }
                }
                guard nearestReached - nearest <= p.disconnectMargin * p.sigma else { return nil }
                layers.append(cur)
            }
            guard var end = layers.last?.indices.max(by: { layers.last![$0].score < layers.last![$1].score })
            else { return nil }
            var chain: [State] = []
            for l in layers.indices.reversed() {
                chain.append(layers[l][end])
                end = layers[l][end].back
            }
            return chain.reversed()
        }
    }

    /// Cuts of the sample drive (Newson & Krumm, Samples/) of 20 fixes taken every 5th and every 15th fix (5 s and
    /// 15 s apart): the fast engine and the naive matcher choose the same arc and offset for every fix wherever the
    /// engine matched the cut whole; most cuts qualify.
    @Test(arguments: [5, 15]) func engineEqualsNaiveViterbiOnRealCuts(every: Int) throws {
        let network = try TestData.bellevue()
        let graph = try MatchGraph(network: network)
        let engine = try MatchEngine(graph: graph, query: try SegmentQuery(index: network.index, capacity: 256))
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        let frame = try network.makeFrame()
        let naive = NaiveMatcher(network: network, p: Self.parameters)
        var cuts = 0, compared = 0, fixes = 0, differing: [String] = []
        for start in stride(from: 0, to: track.fixes.count - 20 * every, by: 150) {
            let cut = stride(from: start, to: start + 20 * every, by: every).map { track.fixes[$0] }
            var x: [Double] = [], y: [Double] = []
            try frame.forward(latitudes: cut.map(\.coordinate.latitude), longitudes: cut.map(\.coordinate.longitude),
                          x: &x, y: &y)
            let t = cut.map { $0.time ?? .nan }
            cuts += 1
            try engine.run(parameters: Self.parameters.engine, x: x, y: y, time: t, course: nil, speed: nil)
            let fast = engine.fixes
            guard engine.subMatches.count == 1, fast.allSatisfy({ $0.arc >= 0 }) else { continue }
            compared += 1
            guard let chain = naive.match(x: x, y: y, t: t) else {
                differing.append("cut at \(start): the naive matcher found no chain")
                continue
            }
            for (k, (a, b)) in zip(fast, chain).enumerated() {
                fixes += 1
                if a.arc != b.arc || abs(a.offset - b.offset) > 1e-6 {
                    differing.append("fix \(start + every * k): engine arc \(a.arc) at \(a.offset), naive \(b.arc) at \(b.offset)")
                }
            }
        }
        #expect(compared >= cuts * 3 / 4, "\(compared) of \(cuts) cuts matched whole")
        #expect(fixes >= 20 * 6)
        #expect(differing.isEmpty, "\(differing.count) differences: \(differing.prefix(10))")
    }
}
