import CShims

/// Scratch space of one contraction-hierarchy search at a time (`rsc_ch_search` in `CShims/ch_query.c`): the
/// bidirectional upward search runs in C; its labels, predecessors and settled nodes stay readable until the next run.
public final class HierarchySearch: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Nodes of the hierarchies it searches.
    public let nodeCount: Int

    /// Nil when memory runs out.
    public init?(nodeCount: Int) {
        guard nodeCount >= 0, nodeCount <= Int(Int32.max), let h = rsc_ch_search_create(Int32(nodeCount)) else {
            return nil
        }
        handle = h
        self.nodeCount = nodeCount
    }

    deinit { rsc_ch_search_destroy(handle) }

    /// Runs one search on the hierarchy of `hierarchyNodeCount` nodes whose query arrays are given (borrowed for the
    /// call; `slotOfNode` and `nodeOfSlot` both nil when the search graph is numbered by node; `coreSize` the
    /// uncontracted nodes, in the first slots): forward from
    /// `sources`, backward from `targets` (node, cost, predecessor marker), `direct` a cost known without searching
    /// (.max: none).
    /// Each side sweeps its upward-reachable nodes in rank order when there is no core, else runs Dijkstra. `bound`
    /// nil finds the cheapest path; a bound reaches every node within it with its exact labels and keeps those
    /// reached forward. Returns the best meeting cost (.max: none) and node (-1: none),
    /// or nil when the search could not run (out of memory, or arrays of another node count).
    public func run(hierarchyNodeCount: Int, upStart: UnsafePointer<Int32>, upTarget: UnsafePointer<Int32>,
                    upCost: UnsafePointer<Int32>, upLink: UnsafePointer<Int32>, downStart: UnsafePointer<Int32>,
                    downSource: UnsafePointer<Int32>, downCost: UnsafePointer<Int32>,
                    downLink: UnsafePointer<Int32>, slotOfNode: UnsafePointer<Int32>?,
                    nodeOfSlot: UnsafePointer<Int32>?, coreSize: Int,
                    sources: [(node: Int32, cost: Int64, pred: Int32)],
                    targets: [(node: Int32, cost: Int64, pred: Int32)], direct: Int64, bound: Int64?)
        -> (best: Int64, meet: Int)?
    {
        guard hierarchyNodeCount == nodeCount else { return nil }
        var view = rsc_ch_view(node_count: Int32(hierarchyNodeCount), up_start: upStart, up_target: upTarget,
                               up_cost: upCost, up_link: upLink, down_start: downStart, down_source: downSource,
                               down_cost: downCost, down_link: downLink, slot_of: slotOfNode,
                               node_of: nodeOfSlot, core_size: Int32(clamping: coreSize))
        let s = sources.map { rsc_ch_end(node: $0.node, pred: $0.pred, cost: $0.cost) }
        let t = targets.map { rsc_ch_end(node: $0.node, pred: $0.pred, cost: $0.cost) }
        var out = rsc_ch_meeting(best: .max, meet: -1, settled: 0)
        let rc = s.withUnsafeBufferPointer { sp in
            t.withUnsafeBufferPointer { tp in
                rsc_ch_search_run(handle, &view, sp.baseAddress, sp.count, tp.baseAddress, tp.count, direct,
                                  bound ?? -1, &out)
            }
        }
        guard rc == RSC_OK else { return nil }
        return (out.best, Int(out.meet))
    }

    /// The last run's label of `node` in one direction (.max: not reached).
    @inline(__always) public func label(_ node: Int, backward: Bool) -> Int64 {
        rsc_ch_search_label(handle, backward ? 1 : 0, Int32(truncatingIfNeeded: node))
    }

    /// The last run's predecessor of `node` in one direction (-1: not reached).
    @inline(__always) public func pred(_ node: Int, backward: Bool) -> Int32 {
        rsc_ch_search_pred(handle, backward ? 1 : 0, Int32(truncatingIfNeeded: node))
    }

    /// The nodes the last bounded run settled forward, in order.
    public var settled: [Int] {
        var count = 0
        guard let p = rsc_ch_search_settled(handle, &count) else { return [] }
        return (0..<count).map { Int(p[$0]) }
    }
}
