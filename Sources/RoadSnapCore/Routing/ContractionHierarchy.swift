/// A contraction hierarchy over a turn graph (Geisberger et al. 2008, on the edge-based graph so turn costs and
/// restrictions are exact). Nodes are contracted in order of a lazily updated priority (shortcuts added per link
/// removed, turns they stand for per turn removed, level), a node being simulated again only once its neighbourhood
/// changed; witness searches bounded in settled nodes and links followed, stopping once every target is settled,
/// decide which shortcuts are needed (a missed witness only adds a shortcut, never loses a path). Queries are
/// bidirectional upward searches with stall-on-demand.
final class ContractionHierarchy: Sendable {
    let nodeCount: Int
    /// Upward links `v -> w` (rank w > rank v): `upTarget[upStart[v] ..< upStart[v + 1]]`.
    let upStart: MappedArray<Int32>
    let upTarget: MappedArray<Int32>
    let upCost: MappedArray<Int32>
    let upLink: MappedArray<Int32>
    /// Downward links seen from below: `u -> v` with rank u > rank v, listed at `v`.
    let downStart: MappedArray<Int32>
    let downSource: MappedArray<Int32>
    let downCost: MappedArray<Int32>
    let downLink: MappedArray<Int32>
    /// Every link (original turns and shortcuts): tail, head, and the two halves of shortcuts (-1 for turns).
    let linkTail: MappedArray<Int32>
    let linkHead: MappedArray<Int32>
    let linkFirst: MappedArray<Int32>
    let linkSecond: MappedArray<Int32>
    /// Number of shortcuts added.
    let shortcutCount: Int
    /// Nodes left uncontracted (searched by plain bidirectional Dijkstra).
    let coreSize: Int
    /// Default `coreDegree`.
    static let defaultCoreDegree = 128

    /// Witness searches stop after this many settled nodes (while ordering, and while contracting).
    static let simulationSettleLimit = 60
    static let contractionSettleLimit = 400
    /// Neighbours with at most this many in x out links get their priority recomputed right after a contraction.
    static let eagerUpdateLimit = 16
    /// Witness searches follow at most this many links (a missed witness only adds a shortcut).
    static let simulationHopLimit: UInt8 = 8
    static let contractionHopLimit: UInt8 = 32

    /// `coreDegree`: contraction stops when the cheapest node left has more links than this; the nodes left form
    /// a core searched by plain bidirectional Dijkstra (bounds preprocessing on grid-like city centres).
    init(graph g: TurnGraph, coreDegree: Int = ContractionHierarchy.defaultCoreDegree) {
        var c = Contraction(graph: g)
        c.run(coreDegree: coreDegree)
        nodeCount = g.arcCount
        coreSize = c.coreSize
        shortcutCount = c.shortcutCount
        // Each live link belongs to its endpoint contracted first: an upward link of its tail or a downward link
        // of its head; links between core nodes are searched in both directions.
        let n = g.arcCount, rank = c.rank
        var us = [Int32](repeating: 0, count: n + 1), ds = [Int32](repeating: 0, count: n + 1)
        func up(_ l: Int) -> Bool { rank[Int(c.tail[l])] <= rank[Int(c.head[l])] }
        func down(_ l: Int) -> Bool { rank[Int(c.head[l])] <= rank[Int(c.tail[l])] }
        for l in c.tail.indices where c.alive[l] {
            if up(l) { us[Int(c.tail[l]) + 1] += 1 }
            if down(l) { ds[Int(c.head[l]) + 1] += 1 }
        }
        for v in 0..<n { us[v + 1] += us[v]; ds[v + 1] += ds[v] }
        var ut = [Int32](repeating: 0, count: Int(us[n])), uc = ut, ul = ut
        var dsrc = [Int32](repeating: 0, count: Int(ds[n])), dc = dsrc, dl = dsrc
        var uFill = us, dFill = ds
        for l in c.tail.indices where c.alive[l] {
            if up(l) {
                let k = Int(uFill[Int(c.tail[l])]); uFill[Int(c.tail[l])] += 1
                ut[k] = c.head[l]; uc[k] = c.cost[l]; ul[k] = Int32(l)
            }
            if down(l) {
                let k = Int(dFill[Int(c.head[l])]); dFill[Int(c.head[l])] += 1
                dsrc[k] = c.tail[l]; dc[k] = c.cost[l]; dl[k] = Int32(l)
            }
        }
        upStart = MappedArray(us); upTarget = MappedArray(ut); upCost = MappedArray(uc); upLink = MappedArray(ul)
        downStart = MappedArray(ds); downSource = MappedArray(dsrc); downCost = MappedArray(dc); downLink = MappedArray(dl)
        linkTail = MappedArray(c.tail); linkHead = MappedArray(c.head)
        linkFirst = MappedArray(c.first); linkSecond = MappedArray(c.second)
    }

    /// A hierarchy read from stored arrays (a compiled map): `arrays` in the order of `storedArrays`.
    init(nodeCount: Int, shortcutCount: Int, coreSize: Int, arrays a: [MappedArray<Int32>]) {
        self.nodeCount = nodeCount; self.shortcutCount = shortcutCount; self.coreSize = coreSize
        upStart = a[0]; upTarget = a[1]; upCost = a[2]; upLink = a[3]
        downStart = a[4]; downSource = a[5]; downCost = a[6]; downLink = a[7]
        linkTail = a[8]; linkHead = a[9]; linkFirst = a[10]; linkSecond = a[11]
    }

    /// The query-time arrays, in the order `init(nodeCount:shortcutCount:coreSize:arrays:)` takes them.
    var storedArrays: [MappedArray<Int32>] {
        [upStart, upTarget, upCost, upLink, downStart, downSource, downCost, downLink, linkTail, linkHead, linkFirst,
         linkSecond]
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

/// Adjacency lists that change during contraction, in one pool: node `v` owns `pool[start[v] ..< start[v] + count[v]]`
/// (link ids) and moves to the pool's end when it outgrows its slot.
struct LinkLists {
    var start: [Int32]
    var count: [Int32]
    var capacity: [Int32]
    var pool: [Int32] = []

    init(nodes: Int) {
        start = [Int32](repeating: 0, count: nodes)
        count = start
        capacity = start
    }

    @inline(__always) func range(_ v: Int) -> Range<Int> { Int(start[v])..<Int(start[v] + count[v]) }

    mutating func append(_ v: Int, _ link: Int32) {
        if count[v] == capacity[v] {
            let grown = max(4, capacity[v] * 2), old = range(v)
            start[v] = Int32(pool.count)
            for k in old { pool.append(pool[k]) }  // (not a slice of `pool`: that would copy the whole pool)
            pool.append(contentsOf: repeatElement(-1, count: Int(grown - count[v])))
            capacity[v] = grown
        }
        pool[Int(start[v] + count[v])] = link
        count[v] += 1
    }

    mutating func remove(_ v: Int, _ link: Int32) {
        for k in range(v) where pool[k] == link {
            count[v] -= 1
            pool[k] = pool[Int(start[v] + count[v])]
            return
        }
    }

    mutating func clear(_ v: Int) { count[v] = 0 }
}

/// Node ordering and contraction of a turn graph (the preprocessing of `ContractionHierarchy`).
struct Contraction {
    let nodeCount: Int
    /// Every link (turns, then shortcuts): tail, head, cost, the two halves of shortcuts (-1 for turns), and
    /// whether it is still part of the hierarchy (false once replaced by a cheaper shortcut).
    var tail: [Int32] = [], head: [Int32] = [], cost: [Int32] = [], first: [Int32] = [], second: [Int32] = []
    var alive: [Bool] = []
    /// Number of turns each link stands for.
    var hopCount: [Int32] = []
    /// Sum of `hopCount` over the shortcuts found by the last `shortcuts(of:)` call.
    var foundHops = 0
    /// Links of the remaining (uncontracted) graph.
    var outs: LinkLists
    var ins: LinkLists
    /// Contraction order; `Int32.max` for core nodes.
    var rank: [Int32]
    var contracted: [Bool]
    var level: [Int32]
    var deleted: [Int32]
    var shortcutCount = 0
    var coreSize = 0
    // Witness search state, reset in O(1) by generation stamps.
    var distance: [Int64]
    var hops: [UInt8]
    var stamp: [UInt32]
    var targetStamp: [UInt32]
    var generation: UInt32 = 0
    var heap = NodeHeap()
    /// Shortcuts of the last `shortcuts(of:)` call: from, to, cost, in-link, out-link.
    var found: [(Int32, Int32, Int32, Int32, Int32)] = []

    init(graph g: TurnGraph) {
        let n = g.arcCount
        nodeCount = n
        outs = LinkLists(nodes: n); ins = LinkLists(nodes: n)
        let links = g.turnTarget.count
        tail.reserveCapacity(links * 3); head.reserveCapacity(links * 3); cost.reserveCapacity(links * 3)
        first.reserveCapacity(links * 3); second.reserveCapacity(links * 3); alive.reserveCapacity(links * 3)
        rank = [Int32](repeating: .max, count: n)
        contracted = [Bool](repeating: false, count: n)
        level = [Int32](repeating: 0, count: n)
        deleted = level
        distance = [Int64](repeating: .max, count: n)
        hops = [UInt8](repeating: 0, count: n)
        stamp = [UInt32](repeating: 0, count: n)
        targetStamp = stamp
        for a in 0..<n {
            for k in Int(g.turnStart[a])..<Int(g.turnStart[a + 1]) {
                addLink(Int32(a), g.turnTarget[k], g.turnCost[k], -1, -1)
            }
        }
    }

    mutating func addLink(_ u: Int32, _ w: Int32, _ c: Int32, _ a: Int32, _ b: Int32) {
        let id = Int32(tail.count)
        tail.append(u); head.append(w); cost.append(c); first.append(a); second.append(b); alive.append(true)
        hopCount.append(a < 0 ? 1 : hopCount[Int(a)] + hopCount[Int(b)])
        outs.append(Int(u), id); ins.append(Int(w), id)
    }

    mutating func nextGeneration() {
        generation &+= 1
        if generation == 0 {
            for i in stamp.indices { stamp[i] = 0; targetStamp[i] = 0 }
            generation = 1
        }
    }

    /// Shortcuts needed to contract `v` (witness searches settle at most `settleLimit` nodes and follow at most
    /// `hopLimit` links); stored in `found` when `collect`, else only counted.
    mutating func shortcuts(of v: Int, settleLimit: Int, hopLimit: UInt8, collect: Bool) -> Int {
        found.removeAll(keepingCapacity: true)
        foundHops = 0
        if outs.count[v] == 0 { return 0 }
        var needed = 0
        var maxOut: Int64 = 0
        for k in outs.range(v) { maxOut = max(maxOut, Int64(cost[Int(outs.pool[k])])) }
        for ki in ins.range(v) {
            let i = ins.pool[ki]
            let u = Int(tail[Int(i)])
            if u == v { continue }
            let cin = Int64(cost[Int(i)])
            nextGeneration()
            let gen = generation
            var targets = 0
            for k in outs.range(v) {
                let w = Int(head[Int(outs.pool[k])])
                if w != u, targetStamp[w] != gen { targetStamp[w] = gen; targets += 1 }
            }
            if targets == 0 { continue }
            // Bounded Dijkstra from u, not through v; stops once every target is settled.
            let bound = cin + maxOut
            heap.removeAll()
            stamp[u] = gen; distance[u] = 0; hops[u] = 0
            heap.push(0, Int32(u))
            var settled = 0
            while !heap.isEmpty {
                let (d, x32) = heap.pop()
                let x = Int(x32)
                if d > distance[x] { continue }
                if d > bound || settled >= settleLimit { break }
                settled += 1
                if targetStamp[x] == gen {
                    targets -= 1
                    if targets == 0 { break }
                }
                let h = hops[x] &+ 1
                if h > hopLimit { continue }
                for k in outs.range(x) {
                    let l = Int(outs.pool[k])
                    let y = Int(head[l])
                    if y == v { continue }
                    let dy = d + Int64(cost[l])
                    if stamp[y] != gen || dy < distance[y] {
                        stamp[y] = gen; distance[y] = dy; hops[y] = h
                        heap.push(dy, Int32(y))
                    }
                }
            }
            for k in outs.range(v) {
                let o = outs.pool[k]
                let w = Int(head[Int(o)])
                if w == u { continue }
                let c = cin + Int64(cost[Int(o)])
                if stamp[w] == gen, distance[w] <= c { continue }
                needed += 1
                foundHops += Int(hopCount[Int(i)] + hopCount[Int(o)])
                if collect { found.append((Int32(u), Int32(w), Int32(clamping: c), i, o)) }
            }
        }
        return needed
    }

    mutating func priority(_ v: Int) -> Int64 {
        let added = shortcuts(of: v, settleLimit: ContractionHierarchy.simulationSettleLimit,
                              hopLimit: ContractionHierarchy.simulationHopLimit, collect: false)
        // Shortcuts added per link removed, turns they stand for per turn removed, and level (RoutingKit's terms).
        var removed = 0, removedHops = 0
        for k in outs.range(v) { removed += 1; removedHops += Int(hopCount[Int(outs.pool[k])]) }
        for k in ins.range(v) { removed += 1; removedHops += Int(hopCount[Int(ins.pool[k])]) }
        return Int64(1000 * added / max(1, removed) + 1000 * foundHops / max(1, removedHops))
            + 1000 * Int64(level[v])
    }

    /// Contracts nodes in order of lazily updated priority until the cheapest left has more than `coreDegree` links.
    mutating func run(coreDegree: Int) {
        let n = nodeCount
        var queue = NodeHeap()
        var current = [Int64](repeating: 0, count: n)
        for v in 0..<n {
            current[v] = priority(v)
            queue.push(current[v], Int32(v))
        }
        var nextRank: Int32 = 0
        var neighbourMark = [Int32](repeating: -1, count: n)
        var stale = [Bool](repeating: false, count: n)
        var neighbours: [Int] = []
        while !queue.isEmpty {
            let (p, v32) = queue.pop()
            let v = Int(v32)
            if contracted[v] || p != current[v] { continue }
            if stale[v] {
                // Neighbourhood changed since the last simulation: simulate again, contract only if still cheapest.
                let fresh = priority(v)
                stale[v] = false
                if fresh > queue.minKey {
                    current[v] = fresh
                    queue.push(fresh, v32)
                    continue
                }
            }
            if Int(ins.count[v] + outs.count[v]) > coreDegree { break }
            _ = shortcuts(of: v, settleLimit: ContractionHierarchy.contractionSettleLimit,
                          hopLimit: ContractionHierarchy.contractionHopLimit, collect: true)
            contracted[v] = true
            rank[v] = nextRank; nextRank += 1
            neighbours.removeAll(keepingCapacity: true)
            for k in ins.range(v) {
                let i = ins.pool[k]
                let u = Int(tail[Int(i)])
                if u == v { continue }
                outs.remove(u, i)
                if neighbourMark[u] != v32 { neighbourMark[u] = v32; neighbours.append(u) }
            }
            for k in outs.range(v) {
                let o = outs.pool[k]
                let w = Int(head[Int(o)])
                if w == v { continue }
                ins.remove(w, o)
                if neighbourMark[w] != v32 { neighbourMark[w] = v32; neighbours.append(w) }
            }
            outs.clear(v); ins.clear(v)
            for (u, w, c, a, b) in found {
                // Keep the cheaper of an existing link u -> w and the shortcut.
                var kept = false
                for k in outs.range(Int(u)) where head[Int(outs.pool[k])] == w {
                    let old = outs.pool[k]
                    if cost[Int(old)] <= c { kept = true; break }
                    outs.remove(Int(u), old); ins.remove(Int(w), old); alive[Int(old)] = false
                    break
                }
                if kept { continue }
                addLink(u, w, c, a, b)
                shortcutCount += 1
            }
            for x in neighbours {
                deleted[x] += 1
                level[x] = max(level[x], level[v] + 1)
                // Small neighbourhoods are re-simulated now; big ones lazily when popped.
                let eager = ins.count[x] * outs.count[x] <= Int32(ContractionHierarchy.eagerUpdateLimit)
                let np = eager ? priority(x) : current[x] + 1
                stale[x] = !eager
                if np != current[x] { current[x] = np; queue.push(np, Int32(x)) }
            }
        }
        coreSize = rank.reduce(0) { $1 == .max ? $0 + 1 : $0 }
    }
}
