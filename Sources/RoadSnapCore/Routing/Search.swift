import RoadSnapBridge

/// A point on an arc where a search starts or ends: `fraction` of the arc in its travel direction.
struct ArcPlace: Hashable, Sendable {
    var arc: Int
    var fraction: Double
}

/// Start and end labels of one search on a turn graph. A forward label on arc `a` is the cost at the head of
/// `a`; a backward label on arc `p` is the cost from the head of `p` to the target.
struct SearchEnds {
    /// Source arcs with the cost of their remaining part.
    var sources: [(arc: Int32, cost: Int64)] = []
    /// Arcs entering a target arc, with the cost from their head to the target, and the target arc.
    var targets: [(arc: Int32, cost: Int64, target: Int32)] = []
    /// Source and target on the same arc, target ahead: cost, arc.
    var direct: (cost: Int64, arc: Int)?

    init(graph: TurnGraph, from: [ArcPlace], to: [ArcPlace]) {
        func part(_ p: ArcPlace) -> Int64 {
            Int64((Double(graph.arcCost[p.arc]) * min(1, max(0, p.fraction))).rounded())
        }
        for s in from {
            sources.append((Int32(s.arc), Int64(graph.arcCost[s.arc]) - part(s)))
        }
        for t in to {
            let b = t.arc, pt = part(t)
            for k in Int(graph.reverseStart[b])..<Int(graph.reverseStart[b + 1]) {
                targets.append((graph.reverseSource[k], Int64(graph.reverseCost[k]) - Int64(graph.arcCost[b]) + pt,
                                Int32(b)))
            }
            for s in from where s.arc == t.arc && t.fraction >= s.fraction {
                let c = pt - part(s)
                if direct == nil || c < direct!.cost { direct = (c, b) }
            }
        }
    }
}

/// A search result: cost in milliseconds and the arcs from source arc to target arc.
struct SearchPath: Sendable, Equatable {
    var cost: Int64
    var arcs: [Int]
}

/// Binary min-heap of (cost, node) with lazy deletion.
struct NodeHeap {
    var keys: [Int64] = []
    var nodes: [Int32] = []

    var isEmpty: Bool { keys.isEmpty }
    var minKey: Int64 { keys.isEmpty ? Int64.max : keys[0] }
    mutating func removeAll() { keys.removeAll(keepingCapacity: true); nodes.removeAll(keepingCapacity: true) }

    mutating func push(_ key: Int64, _ node: Int32) {
        keys.append(key); nodes.append(node)
        var i = keys.count - 1
        while i > 0 {
            let p = (i - 1) >> 1
            if keys[p] <= key { break }
            keys[i] = keys[p]; nodes[i] = nodes[p]
            i = p
        }
        keys[i] = key; nodes[i] = node
    }

    mutating func pop() -> (Int64, Int32) {
        let top = (keys[0], nodes[0])
        let lastKey = keys.removeLast(), lastNode = nodes.removeLast()
        if keys.isEmpty { return top }
        var i = 0
        let n = keys.count
        while true {
            var c = 2 * i + 1
            if c >= n { break }
            if c + 1 < n, keys[c + 1] < keys[c] { c += 1 }
            if keys[c] >= lastKey { break }
            keys[i] = keys[c]; nodes[i] = nodes[c]
            i = c
        }
        keys[i] = lastKey; nodes[i] = lastNode
        return top
    }
}

/// Labels of one search direction, reset in O(1) by a generation stamp.
struct SearchLabels {
    var cost: [Int64]
    var pred: [Int32]
    var stamp: [UInt32]
    var generation: UInt32 = 1
    var heap = NodeHeap()

    init(count: Int) {
        cost = [Int64](repeating: .max, count: count)
        pred = [Int32](repeating: -1, count: count)
        stamp = [UInt32](repeating: 0, count: count)
    }

    mutating func reset() {
        generation &+= 1
        if generation == 0 {
            for i in stamp.indices { stamp[i] = 0 }
            generation = 1
        }
        heap.removeAll()
    }

    @inline(__always) func label(_ v: Int) -> Int64 { stamp[v] == generation ? cost[v] : .max }

    /// Lowers the label of `v` (pushing it) when `c` is better.
    @inline(__always) mutating func improve(_ v: Int, _ c: Int64, pred p: Int32) {
        if stamp[v] != generation || c < cost[v] {
            stamp[v] = generation; cost[v] = c; pred[v] = p
            heap.push(c, Int32(v))
        }
    }
}

/// Per-query scratch space (one per concurrent query; handed out by the router's pool), each part made on first use.
final class SearchSpace: @unchecked Sendable {
    let count: Int
    /// Labels of the plain Dijkstra.
    lazy var forward = SearchLabels(count: count)
    /// Generation-stamped marks of target-entering arcs, with an index into `SearchEnds.targets`.
    lazy var targetMark = [UInt32](repeating: 0, count: count)
    lazy var targetFirst = [Int32](repeating: -1, count: count)
    /// The contraction hierarchy's search (C); nil when memory runs out.
    lazy var hierarchySearch: HierarchySearch? = HierarchySearch(nodeCount: count)

    init(count: Int) { self.count = count }
}

/// Plain Dijkstra on the turn graph: the reference for the contraction hierarchy, and the fallback algorithm.
enum TurnDijkstra {
    /// Cheapest path between the ends, or nil when none exists.
    static func route(_ g: TurnGraph, _ ends: SearchEnds, space: SearchSpace) -> SearchPath? {
        var f = space.forward
        space.forward = SearchLabels(count: 0)
        defer { space.forward = f }
        f.reset()
        let gen = f.generation
        // Mark target-entering arcs (targets are few: a linear scan from the first mark is fine).
        for (i, t) in ends.targets.enumerated() where space.targetMark[Int(t.arc)] != gen {
            space.targetMark[Int(t.arc)] = gen; space.targetFirst[Int(t.arc)] = Int32(i)
        }
        var best = ends.direct?.cost ?? .max
        var bestEnd: (arc: Int32, target: Int32)? = nil
        for s in ends.sources { f.improve(Int(s.arc), s.cost, pred: -1) }
        while !f.heap.isEmpty {
            let (d, v32) = f.heap.pop()
            let v = Int(v32)
            if d > f.cost[v] { continue }
            if d >= best { break }
            if space.targetMark[v] == gen {
                for i in Int(space.targetFirst[v])..<ends.targets.count where ends.targets[i].arc == v32 {
                    let c = d + ends.targets[i].cost
                    if c < best { best = c; bestEnd = (v32, ends.targets[i].target) }
                }
            }
            for k in Int(g.turnStart[v])..<Int(g.turnStart[v + 1]) {
                f.improve(Int(g.turnTarget[k]), d + Int64(g.turnCost[k]), pred: v32)
            }
        }
        guard best < .max else { return nil }
        guard let end = bestEnd else { return ends.direct.map { SearchPath(cost: $0.cost, arcs: [$0.arc]) } }
        var arcs = [Int(end.target)]
        var v = end.arc
        while v >= 0 { arcs.append(Int(v)); v = f.pred[Int(v)] }
        arcs.reverse()
        return SearchPath(cost: best, arcs: arcs)
    }

    /// Costs from the sources to the head of every arc (`Int64.max` where unreachable): one-to-all, for tests.
    static func costsToAll(_ g: TurnGraph, sources: [(arc: Int32, cost: Int64)]) -> [Int64] {
        var f = SearchLabels(count: g.arcCount)
        for s in sources { f.improve(Int(s.arc), s.cost, pred: -1) }
        while !f.heap.isEmpty {
            let (d, v32) = f.heap.pop()
            let v = Int(v32)
            if d > f.cost[v] { continue }
            for k in Int(g.turnStart[v])..<Int(g.turnStart[v + 1]) {
                f.improve(Int(g.turnTarget[k]), d + Int64(g.turnCost[k]), pred: v32)
            }
        }
        return (0..<g.arcCount).map { f.label($0) }
    }

    /// Cheapest cost to the ends' targets given one-to-all costs.
    static func cost(to ends: SearchEnds, costs: [Int64]) -> Int64? {
        var best = ends.direct?.cost ?? .max
        for t in ends.targets where costs[Int(t.arc)] < .max { best = min(best, costs[Int(t.arc)] + t.cost) }
        return best < .max ? best : nil
    }
}
