import CShims

/// A contraction hierarchy as flat `Int32` arrays (built by `HierarchyBuilder.build`; the layout of `rsc_ch_result`
/// in `CShims/include/cshims_ch.h`). Node ids are the input graph's; link ids are the input links in order, then the
/// shortcuts.
///
/// Query-time arrays (all a search and path unpacking read). The search graph is numbered by slot, highest rank
/// first (`slotOfNode`, `nodeOfSlot`: the nodes every query settles lie together):
/// - `upStart` (nodeCount + 1) indexes `upTarget`/`upCost`/`upLink`: links `v -> w` with rank w >= rank v, at v's
///   slot, `upTarget` a slot.
/// - `downStart` (nodeCount + 1) indexes `downSource`/`downCost`/`downLink`: links `u -> v` with rank u >= rank v,
///   at v's slot (searched backward from v), `downSource` a slot.
/// - `linkTail`, `linkHead`, `linkFirst`, `linkSecond` (linkCount): each link's ends and, for a shortcut, the two
///   links it stands for (-1 for an original link), to unpack paths.
/// `linkCost` and `rank` are kept for checks and statistics; queries do not read them.
public struct HierarchyArrays: Sendable {
    public var nodeCount: Int
    public var upStart: [Int32], upTarget: [Int32], upCost: [Int32], upLink: [Int32]
    public var downStart: [Int32], downSource: [Int32], downCost: [Int32], downLink: [Int32]
    public var linkTail: [Int32], linkHead: [Int32], linkCost: [Int32], linkFirst: [Int32], linkSecond: [Int32]
    /// Node -> slot and slot -> node of the search graph (nodeCount each).
    public var slotOfNode: [Int32], nodeOfSlot: [Int32]
    /// Contraction order; `Int32.max` for core nodes.
    public var rank: [Int32]
    /// Shortcuts added; nodes left uncontracted; contraction rounds run.
    public var shortcutCount: Int, coreSize: Int, rounds: Int
}

/// How the contraction orders the nodes (`RSC_CH_ORDER_*` in `cshims_ch.h`).
public enum HierarchyOrder: Hashable, Sendable {
    /// Rounds of independent node sets by witness-search priority while they contract many nodes at once, then a
    /// nested-dissection order (max-flow separators) for the rest, contracted without witness searches and pruned.
    /// Every node is contracted (no core). The default.
    case hybrid
    /// The rounds, then one node at a time by priority; nodes above `coreDegree` links stay a core.
    case greedy
    /// The nested-dissection order for every node.
    case nestedDissection
}

/// Tuning of the contraction (see `rsc_ch_options`); the defaults suit road networks.
public struct HierarchyBuildOptions: Hashable, Sendable {
    /// Nodes with more in + out links than this are not contracted by the rounds; with the greedy order they stay
    /// uncontracted (a core searched by plain Dijkstra), with the hybrid order they go to its nested-dissection top.
    /// 0: no limit.
    public var coreDegree: Int = 128
    /// Node order of the contraction.
    public var order: HierarchyOrder = .hybrid
    /// Witness search bounds (settled nodes, links followed) while ordering and while contracting; 0: C defaults.
    public var simulationSettleLimit = 0, simulationHopLimit = 0
    public var contractionSettleLimit = 0, contractionHopLimit = 0

    public init(coreDegree: Int = 128, order: HierarchyOrder = .hybrid) {
        self.coreDegree = coreDegree
        self.order = order
    }
}

/// Builds contraction hierarchies with the C preprocessing (`rsc_ch_build`: independent node sets contracted in
/// rounds on the available cores, then by default a nested-dissection order for the dense top).
public enum HierarchyBuilder {
    /// Contracts the graph whose links leaving node v are `targets/costs[starts[v] ..< starts[v + 1]]`.
    /// Progress goes to `progress` as (phase, fraction of it done) with phases "priorities", "contracting",
    /// "search graph"; once `isCanceled` returns true the build throws `.canceled("routing hierarchy")`. `threads`
    /// 0 uses every core. Costs must be >= 0. (Core's `BuildControl` supplies all three.)
    package static func build(nodeCount: Int, starts: [Int32], targets: [Int32], costs: [Int32],
                              options: HierarchyBuildOptions = HierarchyBuildOptions(), threads: Int = 0,
                              progress: (@Sendable (String, Double) -> Void)? = nil,
                              isCanceled: (@Sendable () -> Bool)? = nil) throws(NativeFailure) -> HierarchyArrays
    {
        guard nodeCount >= 0, nodeCount < Int(Int32.max), starts.count == nodeCount + 1,
              targets.count == costs.count, Int(starts[nodeCount]) == targets.count
        else {
            throw .invalidArgument("hierarchy input: \(nodeCount) nodes need \(nodeCount + 1) link starts ending at "
                                   + "the link count (got \(starts.count) starts, \(targets.count) targets, "
                                   + "\(costs.count) costs)")
        }
        let context = BuildContext(progress: progress, isCanceled: isCanceled)
        var raw = rsc_ch_options()
        raw.core_degree = Int32(clamping: options.coreDegree)
        raw.threads = Int32(clamping: threads)
        raw.simulation_settle_limit = Int32(clamping: options.simulationSettleLimit)
        raw.simulation_hop_limit = Int32(clamping: options.simulationHopLimit)
        raw.contraction_settle_limit = Int32(clamping: options.contractionSettleLimit)
        raw.contraction_hop_limit = Int32(clamping: options.contractionHopLimit)
        switch options.order {
        case .hybrid: raw.order = RSC_CH_ORDER_HYBRID
        case .greedy: raw.order = RSC_CH_ORDER_GREEDY
        case .nestedDissection: raw.order = RSC_CH_ORDER_ND
        }
        if progress != nil {
            raw.progress = { user, phase, fraction in
                guard let user else { return }
                let ctx = Unmanaged<BuildContext>.fromOpaque(user).takeUnretainedValue()
                ctx.progress?(phase.map { String(cString: $0) } ?? "", fraction)
            }
        }
        if isCanceled != nil {
            raw.is_canceled = { user in
                guard let user else { return 0 }
                let ctx = Unmanaged<BuildContext>.fromOpaque(user).takeUnretainedValue()
                return ctx.isCanceled?() == true ? 1 : 0
            }
        }
        var result = rsc_ch_result()
        let status: Int32 = withExtendedLifetime(context) {
            raw.user = Unmanaged.passUnretained(context).toOpaque()
            return starts.withUnsafeBufferPointer { s in
                targets.withUnsafeBufferPointer { t in
                    costs.withUnsafeBufferPointer { c in
                        rsc_ch_build(Int32(nodeCount), s.baseAddress, t.baseAddress, c.baseAddress, &raw, &result)
                    }
                }
            }
        }
        defer { rsc_ch_result_free(&result) }
        switch status {
        case RSC_OK: break
        case RSC_ECANCELED: throw .canceled("routing hierarchy")
        case RSC_ENOMEM: throw .internalError("out of memory while building the routing hierarchy")
        case RSC_EINVAL: throw .invalidArgument("routing hierarchy input: a link target out of range or a negative cost")
        default: throw .internalError("routing hierarchy build failed (code \(status))")
        }
        func copy(_ p: UnsafeMutablePointer<Int32>?, _ n: Int32) -> [Int32] {
            guard let p, n > 0 else { return [] }
            return Array(UnsafeBufferPointer(start: p, count: Int(n)))
        }
        let n1 = Int32(nodeCount + 1)
        return HierarchyArrays(
            nodeCount: nodeCount,
            upStart: copy(result.up_start, n1), upTarget: copy(result.up_target, result.up_count),
            upCost: copy(result.up_cost, result.up_count), upLink: copy(result.up_link, result.up_count),
            downStart: copy(result.down_start, n1), downSource: copy(result.down_source, result.down_count),
            downCost: copy(result.down_cost, result.down_count), downLink: copy(result.down_link, result.down_count),
            linkTail: copy(result.link_tail, result.link_count), linkHead: copy(result.link_head, result.link_count),
            linkCost: copy(result.link_cost, result.link_count), linkFirst: copy(result.link_first, result.link_count),
            linkSecond: copy(result.link_second, result.link_count),
            slotOfNode: copy(result.slot_of, Int32(nodeCount)), nodeOfSlot: copy(result.node_of, Int32(nodeCount)),
            rank: copy(result.rank, Int32(nodeCount)),
            shortcutCount: Int(result.shortcut_count), coreSize: Int(result.core_size), rounds: Int(result.rounds))
    }
}

/// The callbacks a running C build calls back into (kept alive by `build` for the call's duration).
private final class BuildContext: @unchecked Sendable {
    let progress: (@Sendable (String, Double) -> Void)?
    let isCanceled: (@Sendable () -> Bool)?
    init(progress: (@Sendable (String, Double) -> Void)?, isCanceled: (@Sendable () -> Bool)?) {
        self.progress = progress
        self.isCanceled = isCanceled
    }
}
