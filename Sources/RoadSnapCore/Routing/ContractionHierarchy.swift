import RoadSnapBridge

/// A contraction hierarchy over a turn graph (Geisberger et al. 2008, on the edge-based graph so turn costs and
/// restrictions are exact). Preprocessing is `HierarchyBuilder` (C, `CShims/contract.c`): independent node sets
/// (each node the priority minimum within two links) contracted in rounds on the available cores, priority =
/// shortcuts added per link removed + turns they stand for per turn removed + level, witness searches bounded in
/// settled nodes and links followed and avoiding the whole round's set (a missed witness only adds a shortcut, never
/// loses a path); once rounds contract few nodes, the rest (the dense top) is ordered by nested dissection
/// (`CShims/ch_order.c`, max-flow separators) and contracted without witness searches, customizable-CH style, then
/// links that a path through higher nodes undercuts are dropped. Queries are bidirectional upward searches with
/// stall-on-demand, in C (`CShims/ch_query.c`).
///
/// Query-time representation: the flat `Int32` arrays below, nothing else (so they can be stored in a file and used
/// in place). Nodes are turn-graph nodes (arcs); links are the turn graph's turns in `TurnGraph` order (link k is
/// `turnTarget[k]`), then the shortcuts. The search graph is numbered by slot, highest rank first, so that the nodes
/// near the top, which every query settles, lie together (`slotOfNode`, `nodeOfSlot`; the C search maps at its ends).
/// - `upStart` (nodeCount + 1 entries) indexes `upTarget`, `upCost`, `upLink`: the links `v -> w` stored at v's slot,
///   rank w >= rank v, `upTarget` w's slot.
/// - `downStart` (nodeCount + 1) indexes `downSource`, `downCost`, `downLink`: the links `u -> v` stored at v's slot,
///   rank u >= rank v (the backward search follows them from v to u), `downSource` u's slot.
/// - `linkTail`, `linkHead`, `linkFirst`, `linkSecond` (one entry per link): ends of each link and, for a shortcut,
///   the two links it stands for (-1 for a turn); path unpacking reads only these.
/// Links between two core nodes (uncontracted, rank `Int32.max`) are in both lists.
final class ContractionHierarchy: Sendable {
    let nodeCount: Int
    let upStart: MappedArray<Int32>
    let upTarget: MappedArray<Int32>
    let upCost: MappedArray<Int32>
    let upLink: MappedArray<Int32>
    let downStart: MappedArray<Int32>
    let downSource: MappedArray<Int32>
    let downCost: MappedArray<Int32>
    let downLink: MappedArray<Int32>
    let linkTail: MappedArray<Int32>
    let linkHead: MappedArray<Int32>
    let linkFirst: MappedArray<Int32>
    let linkSecond: MappedArray<Int32>
    let slotOfNode: MappedArray<Int32>
    let nodeOfSlot: MappedArray<Int32>
    /// Number of shortcuts added.
    let shortcutCount: Int
    /// Nodes left uncontracted (searched by plain bidirectional Dijkstra).
    let coreSize: Int
    /// Contraction rounds the build ran.
    let rounds: Int
    /// Default `coreDegree`.
    static let defaultCoreDegree = 128

    /// `order`: how nodes are ordered (`HierarchyOrder`; the hybrid default contracts every node). `coreDegree`:
    /// nodes with more links than this are left to the order's top; with `.greedy` they stay uncontracted, a core
    /// searched by plain bidirectional Dijkstra. `control` reports progress, can cancel (then this throws
    /// `.canceled`) and sets the worker threads (0: all cores).
    init(graph g: TurnGraph, coreDegree: Int = ContractionHierarchy.defaultCoreDegree, order: HierarchyOrder = .hybrid,
         control: BuildControl = BuildControl()) throws(RoadSnapError)
    {
        let progress = control.progress.map { report in
            { @Sendable (phase: String, fraction: Double) in report(BuildProgress(phase: phase, fraction: fraction)) }
        }
        let isCanceled = control.cancellation.map { flag in { @Sendable in flag.isCanceled } }
        let h = try native { () throws(NativeFailure) in
            try HierarchyBuilder.build(nodeCount: g.arcCount, starts: Array(g.turnStart), targets: Array(g.turnTarget),
                                       costs: Array(g.turnCost),
                                       options: HierarchyBuildOptions(coreDegree: coreDegree, order: order),
                                       threads: control.threads, progress: progress, isCanceled: isCanceled)
        }
        nodeCount = h.nodeCount
        upStart = MappedArray(h.upStart); upTarget = MappedArray(h.upTarget); upCost = MappedArray(h.upCost)
        upLink = MappedArray(h.upLink)
        downStart = MappedArray(h.downStart); downSource = MappedArray(h.downSource)
        downCost = MappedArray(h.downCost); downLink = MappedArray(h.downLink)
        linkTail = MappedArray(h.linkTail); linkHead = MappedArray(h.linkHead)
        linkFirst = MappedArray(h.linkFirst); linkSecond = MappedArray(h.linkSecond)
        slotOfNode = MappedArray(h.slotOfNode); nodeOfSlot = MappedArray(h.nodeOfSlot)
        shortcutCount = h.shortcutCount
        coreSize = h.coreSize
        rounds = h.rounds
    }

    /// A hierarchy read from stored arrays (a compiled map): `arrays` in the order of `storedArrays`.
    init(nodeCount: Int, shortcutCount: Int, coreSize: Int, rounds: Int, arrays a: [MappedArray<Int32>]) {
        self.nodeCount = nodeCount; self.shortcutCount = shortcutCount; self.coreSize = coreSize; self.rounds = rounds
        upStart = a[0]; upTarget = a[1]; upCost = a[2]; upLink = a[3]
        downStart = a[4]; downSource = a[5]; downCost = a[6]; downLink = a[7]
        linkTail = a[8]; linkHead = a[9]; linkFirst = a[10]; linkSecond = a[11]
        slotOfNode = a[12]; nodeOfSlot = a[13]
    }

    /// The query-time arrays, in the order `init(nodeCount:shortcutCount:coreSize:rounds:arrays:)` takes them.
    var storedArrays: [MappedArray<Int32>] {
        [upStart, upTarget, upCost, upLink, downStart, downSource, downCost, downLink, linkTail, linkHead, linkFirst,
         linkSecond, slotOfNode, nodeOfSlot]
    }

    /// Cheapest path between the ends (same costs as `TurnDijkstra.route`), or nil.
    func route(_ ends: SearchEnds, space: SearchSpace) -> SearchPath? {
        guard let w = space.hierarchySearch, let found = search(ends, w, stop: .atBestMeeting),
              found.best < .max else { return nil }
        guard found.meet >= 0 else { return ends.direct.map { SearchPath(cost: $0.cost, arcs: [$0.arc]) } }
        guard let path = path(meeting: found.meet, w) else { return nil }
        return SearchPath(cost: found.best, arcs: path.arcs)
    }

    /// Where the bidirectional search stops.
    enum SearchStop {
        /// The cheapest path: each side's upward-reachable arcs swept once in rank order (no core), or Dijkstra
        /// stalling on demand until neither frontier can improve the best meeting (a core).
        case atBestMeeting
        /// Past the meeting point: every arc within `bound` of either end is reached with its exact label (swept,
        /// or Dijkstra without stalling until both frontiers pass the bound), for via paths. The arcs reached
        /// forward within the bound are kept (`HierarchySearch.settled`).
        case beyond(bound: Int64)
    }

    /// The one bidirectional search over the hierarchy, in C (`rsc_ch_search_run`: forward upward from the sources,
    /// backward upward from the targets; backward labels keep the target arc reached through `pred` = -2 - target),
    /// used by `route` and `viaPaths`. Returns the best meeting cost (`ends.direct` counted; .max for none) and its arc
    /// (-1: none, or the direct path); nil when the search could not run (out of memory). Labels stay in `w`.
    func search(_ ends: SearchEnds, _ w: HierarchySearch, stop: SearchStop) -> (best: Int64, meet: Int)? {
        let bound: Int64?
        switch stop {
        case .atBestMeeting: bound = nil
        case let .beyond(limit): bound = max(0, limit)
        }
        return w.run(hierarchyNodeCount: nodeCount, upStart: upStart.baseAddress, upTarget: upTarget.baseAddress,
                     upCost: upCost.baseAddress, upLink: upLink.baseAddress, downStart: downStart.baseAddress,
                     downSource: downSource.baseAddress, downCost: downCost.baseAddress,
                     downLink: downLink.baseAddress, slotOfNode: slotOfNode.baseAddress,
                     nodeOfSlot: nodeOfSlot.baseAddress, coreSize: coreSize,
                     sources: ends.sources.map { ($0.arc, $0.cost, -1) },
                     targets: ends.targets.map { ($0.arc, $0.cost, -2 - $0.target) },
                     direct: ends.direct?.cost ?? .max, bound: bound)
    }

    /// The arcs of the path through arc `meet` after `search`: the forward tree's links back to a source arc, the
    /// backward tree's links down to a target-entering arc (unpacked), then the target arc; with the index of
    /// `meet` in it. Nil when the labels do not lead from a source to a target.
    func path(meeting meet: Int, _ w: HierarchySearch) -> (arcs: [Int], meetIndex: Int)? {
        var links: [Int32] = []
        var v = meet
        var steps = 0
        while w.pred(v, backward: false) >= 0, steps < nodeCount {
            let l = w.pred(v, backward: false)
            links.append(l); v = Int(linkTail[Int(l)]); steps += 1
        }
        var arcs = [v]
        for l in links.reversed() { unpack(l, into: &arcs) }
        let meetIndex = arcs.count - 1
        v = meet
        while w.pred(v, backward: true) >= 0, steps < 2 * nodeCount {
            let l = w.pred(v, backward: true)
            unpack(l, into: &arcs); v = Int(linkHead[Int(l)]); steps += 1
        }
        let end = w.pred(v, backward: true)
        guard end <= -2 else { return nil }
        arcs.append(Int(-2 - end))
        return (arcs, meetIndex)
    }

    /// Appends the arcs a link leads through, excluding its tail.
    func unpack(_ l: Int32, into arcs: inout [Int]) {
        if linkFirst[Int(l)] < 0 { arcs.append(Int(linkHead[Int(l)])); return }
        unpack(linkFirst[Int(l)], into: &arcs)
        unpack(linkSecond[Int(l)], into: &arcs)
    }
}
