/// A contraction hierarchy over a turn graph (Geisberger et al. 2008, on the edge-based graph so turn costs and
/// restrictions are exact). Nodes are contracted in order of a lazily updated priority (edge difference, contracted
/// neighbours, level); bounded witness searches decide which shortcuts are needed (a missed witness only adds a
/// shortcut, never loses a path). Queries are bidirectional upward searches with stall-on-demand.
final class ContractionHierarchy: Sendable {
    let nodeCount: Int
    /// Upward links `v -> w` (rank w > rank v): `upTarget[upStart[v] ..< upStart[v + 1]]`.
    let upStart: [Int32]
    let upTarget: [Int32]
    let upCost: [Int32]
    let upLink: [Int32]
    /// Downward links seen from below: `u -> v` with rank u > rank v, listed at `v`.
    let downStart: [Int32]
    let downSource: [Int32]
    let downCost: [Int32]
    let downLink: [Int32]
    /// Every link (original turns and shortcuts): tail, head, and the two halves of shortcuts (-1 for turns).
    let linkTail: [Int32]
    let linkHead: [Int32]
    let linkFirst: [Int32]
    let linkSecond: [Int32]
    /// Number of shortcuts added.
    let shortcutCount: Int
    /// Nodes left uncontracted (searched by plain bidirectional Dijkstra).
    let coreSize: Int
    /// Default `coreDegree`.
    static let defaultCoreDegree = 64

    /// Witness searches stop after this many settled nodes (while ordering, and while contracting).
    static let simulationSettleLimit = 60
    static let contractionSettleLimit = 400
    /// Neighbours with at most this many in x out links get their priority recomputed right after a contraction.
    static let eagerUpdateLimit = 16

    /// `coreDegree`: contraction stops when the cheapest node left has more links than this; the nodes left form
    /// a core searched by plain bidirectional Dijkstra (bounds preprocessing on grid-like city centres).
    init(graph g: TurnGraph, coreDegree: Int = ContractionHierarchy.defaultCoreDegree) {
        let n = g.arcCount
        nodeCount = n
        var head: [Int32] = [], tail: [Int32] = [], cost: [Int32] = [], first: [Int32] = [], second: [Int32] = []
        var outL = [[Int32]](repeating: [], count: n), inL = [[Int32]](repeating: [], count: n)
        for a in 0..<n {
            for k in Int(g.turnStart[a])..<Int(g.turnStart[a + 1]) {
                let b = Int(g.turnTarget[k])
                let id = Int32(head.count)
                tail.append(Int32(a)); head.append(Int32(b)); cost.append(g.turnCost[k]); first.append(-1)
                second.append(-1)
                outL[a].append(id); inL[b].append(id)
            }
        }
        var contracted = [Bool](repeating: false, count: n)
        var level = [Int32](repeating: 0, count: n)
        var deleted = [Int32](repeating: 0, count: n)
        var upOf = [[Int32]](repeating: [], count: n), downOf = [[Int32]](repeating: [], count: n)
        var witness = SearchLabels(count: n)
        var shortcuts = 0

        // Shortcuts needed to contract v: (from, to, cost, first link, second link).
        func needed(_ v: Int, limit: Int, into result: inout [(Int32, Int32, Int32, Int32, Int32)]) {
            result.removeAll(keepingCapacity: true)
            let outs = outL[v]
            if outs.isEmpty { return }
            var maxOut: Int64 = 0
            for o in outs { maxOut = max(maxOut, Int64(cost[Int(o)])) }
            for i in inL[v] {
                let u = Int(tail[Int(i)])
                if u == v { continue }
                let cin = Int64(cost[Int(i)])
                // Bounded Dijkstra from u, not through v.
                witness.reset()
                witness.improve(u, 0, pred: -1)
                let bound = cin + maxOut
                var settled = 0
                while !witness.heap.isEmpty {
                    let (d, x32) = witness.heap.pop()
                    let x = Int(x32)
                    if d > witness.cost[x] { continue }
                    if d > bound || settled >= limit { break }
                    settled += 1
                    for l in outL[x] {
                        let y = Int(head[Int(l)])
                        if y == v { continue }
                        witness.improve(y, d + Int64(cost[Int(l)]), pred: x32)
                    }
                }
                for o in outs {
                    let w = Int(head[Int(o)])
                    if w == u { continue }
                    let c = cin + Int64(cost[Int(o)])
                    if witness.label(w) <= c { continue }
                    result.append((Int32(u), Int32(w), Int32(clamping: c), i, o))
                }
            }
        }

        var scratch: [(Int32, Int32, Int32, Int32, Int32)] = []
        func priority(_ v: Int) -> Int64 {
            needed(v, limit: Self.simulationSettleLimit, into: &scratch)
            let diff = scratch.count - outL[v].count - inL[v].count
            return Int64(diff) * 4 + Int64(deleted[v]) * 2 + Int64(level[v])
        }

        var queue = NodeHeap()
        var current = [Int64](repeating: 0, count: n)
        for v in 0..<n {
            current[v] = priority(v)
            queue.push(current[v], Int32(v))
        }
        var rank = [Int32](repeating: 0, count: n)
        var nextRank: Int32 = 0
        while !queue.isEmpty {
            let (p, v32) = queue.pop()
            let v = Int(v32)
            if contracted[v] || p != current[v] { continue }
            let fresh = priority(v)
            if fresh > queue.minKey {
                current[v] = fresh
                queue.push(fresh, v32)
                continue
            }
            if inL[v].count + outL[v].count > coreDegree { break }
            // Contract v.
            needed(v, limit: Self.contractionSettleLimit, into: &scratch)
            contracted[v] = true
            rank[v] = nextRank; nextRank += 1
            upOf[v] = outL[v]
            downOf[v] = inL[v]
            var neighbours: [Int] = []
            for i in inL[v] {
                let u = Int(tail[Int(i)])
                outL[u].removeAll { $0 == i }
                neighbours.append(u)
            }
            for o in outL[v] {
                let w = Int(head[Int(o)])
                inL[w].removeAll { $0 == o }
                neighbours.append(w)
            }
            for (u, w, c, a, b) in scratch {
                // Keep the cheaper of an existing link u -> w and the shortcut.
                if let k = outL[Int(u)].firstIndex(where: { head[Int($0)] == w }) {
                    let old = outL[Int(u)][k]
                    if cost[Int(old)] <= c { continue }
                    outL[Int(u)].remove(at: k)
                    inL[Int(w)].removeAll { $0 == old }
                }
                let id = Int32(head.count)
                tail.append(u); head.append(w); cost.append(c); first.append(a); second.append(b)
                outL[Int(u)].append(id); inL[Int(w)].append(id)
                shortcuts += 1
            }
            outL[v] = []; inL[v] = []
            for x in neighbours where !contracted[x] {
                deleted[x] += 1
                level[x] = max(level[x], level[v] + 1)
                // Small neighbourhoods are re-simulated now; big ones lazily when popped (simulations dominate
                // preprocessing where the graph gets dense).
                let np = inL[x].count * outL[x].count <= Self.eagerUpdateLimit ? priority(x) : current[x] + 2
                if np != current[x] { current[x] = np; queue.push(np, Int32(x)) }
            }
        }
        _ = rank
        // The core: every node left keeps all its links in both search directions.
        var core = 0
        for v in 0..<n where !contracted[v] {
            upOf[v] = outL[v]; downOf[v] = inL[v]; core += 1
        }
        coreSize = core
        // Flatten.
        var us: [Int32] = [0], ut: [Int32] = [], uc: [Int32] = [], ul: [Int32] = []
        var ds: [Int32] = [0], dsrc: [Int32] = [], dc: [Int32] = [], dl: [Int32] = []
        for v in 0..<n {
            for l in upOf[v] { ut.append(head[Int(l)]); uc.append(cost[Int(l)]); ul.append(l) }
            us.append(Int32(ut.count))
            for l in downOf[v] { dsrc.append(tail[Int(l)]); dc.append(cost[Int(l)]); dl.append(l) }
            ds.append(Int32(dsrc.count))
        }
        upStart = us; upTarget = ut; upCost = uc; upLink = ul
        downStart = ds; downSource = dsrc; downCost = dc; downLink = dl
        linkTail = tail; linkHead = head; linkFirst = first; linkSecond = second
        shortcutCount = shortcuts
    }

    /// Cheapest path between the ends (same costs as `TurnDijkstra.route`), or nil.
    func route(_ ends: SearchEnds, space: SearchSpace) -> SearchPath? {
        var f = space.forward, b = space.backward
        space.forward = SearchLabels(count: 0); space.backward = SearchLabels(count: 0)
        defer { space.forward = f; space.backward = b }
        f.reset(); b.reset()
        for s in ends.sources { f.improve(Int(s.arc), s.cost, pred: -1) }
        // Backward labels keep the target arc reached through `pred` = -2 - target.
        for t in ends.targets { b.improve(Int(t.arc), t.cost, pred: -2 - t.target) }
        var best = ends.direct?.cost ?? .max
        var meet = -1
        while true {
            let fk = f.heap.minKey, bk = b.heap.minKey
            if min(fk, bk) >= best { break }
            if fk <= bk {
                let (d, v32) = f.heap.pop()
                let v = Int(v32)
                if d > f.cost[v] { continue }
                let other = b.label(v)
                if other < .max, d + other < best { best = d + other; meet = v }
                // Stall on demand: a higher node reaches v cheaper.
                var stalled = false
                for k in Int(downStart[v])..<Int(downStart[v + 1]) {
                    let u = Int(downSource[k])
                    let du = f.label(u)
                    if du < .max, du + Int64(downCost[k]) < d { stalled = true; break }
                }
                if stalled { continue }
                for k in Int(upStart[v])..<Int(upStart[v + 1]) {
                    f.improve(Int(upTarget[k]), d + Int64(upCost[k]), pred: upLink[k])
                }
            } else {
                let (d, v32) = b.heap.pop()
                let v = Int(v32)
                if d > b.cost[v] { continue }
                let other = f.label(v)
                if other < .max, d + other < best { best = d + other; meet = v }
                var stalled = false
                for k in Int(upStart[v])..<Int(upStart[v + 1]) {
                    let w = Int(upTarget[k])
                    let dw = b.label(w)
                    if dw < .max, dw + Int64(upCost[k]) < d { stalled = true; break }
                }
                if stalled { continue }
                for k in Int(downStart[v])..<Int(downStart[v + 1]) {
                    b.improve(Int(downSource[k]), d + Int64(downCost[k]), pred: downLink[k])
                }
            }
        }
        guard best < .max else { return nil }
        guard meet >= 0 else { return ends.direct.map { SearchPath(cost: $0.cost, arcs: [$0.arc]) } }
        // Forward half: links back to a source arc.
        var links: [Int32] = []
        var v = meet
        while f.pred[v] >= 0 {
            let l = f.pred[v]
            links.append(l)
            v = Int(linkTail[Int(l)])
        }
        var arcs = [v]
        for l in links.reversed() { unpack(l, into: &arcs) }
        // Backward half: links down to a target-entering arc, then the target arc.
        v = meet
        while b.pred[v] >= 0 {
            let l = b.pred[v]
            unpack(l, into: &arcs)
            v = Int(linkHead[Int(l)])
        }
        arcs.append(Int(-2 - b.pred[v]))
        return SearchPath(cost: best, arcs: arcs)
    }

    /// Appends the arcs a link leads through, excluding its tail.
    private func unpack(_ l: Int32, into arcs: inout [Int]) {
        if linkFirst[Int(l)] < 0 { arcs.append(Int(linkHead[Int(l)])); return }
        unpack(linkFirst[Int(l)], into: &arcs)
        unpack(linkSecond[Int(l)], into: &arcs)
    }
}
