import RoadSnapBridge

/// Value checks of a compiled map's sections (issue 16). Checksums catch accidental damage, not a file crafted to
/// pass them: every stored value that is later used as an index or a length (node, edge, arc, segment, vertex, link,
/// string and attribute numbers; the start tables of grouped lists; the cell cache) is checked here against the
/// counts it refers to, so a crafted file is refused with an error naming the file, the section and the value
/// instead of trapping (Swift) or reading out of bounds (C). Run at open for `.all` verification, and once, right
/// after the deferred checksums, on first use for `.lazy` verification.
struct CompiledMapValidator {
    let path: String

    private func bad(_ section: CompiledMap.Section, _ what: String) -> RoadSnapError {
        .invalidMap(path: path, reason: "compiled map section \(section) (\(section.rawValue)) \(what): the file is "
            + "damaged or was not written by `roadsnap compile`; compile it again")
    }

    /// Every element of `a` (read as Int) lies in `0 ..< limit` (or is `allowed`, e.g. -1 for "none").
    func indices<T: BinaryInteger>(_ a: MappedArray<T>, _ section: CompiledMap.Section, below limit: Int,
                                   of what: String, allowing allowed: Int? = nil) throws(RoadSnapError)
    {
        let p = a.baseAddress
        for k in 0..<a.count {
            let v = Int(p[k])
            if v >= 0 && v < limit { continue }
            if let allowed, v == allowed { continue }
            throw bad(section, "element \(k) is \(v), outside 0..<\(limit) (\(what))")
        }
    }

    /// `start` is a start table: starts at 0, never decreases, ends at `total` (the length of the lists it indexes).
    func starts<T: BinaryInteger>(_ start: MappedArray<T>, _ section: CompiledMap.Section, total: Int)
        throws(RoadSnapError)
    {
        guard start.count >= 1, Int(start[0]) == 0 else { throw bad(section, "does not start at 0") }
        let p = start.baseAddress
        var previous = 0
        for k in 0..<start.count {
            let v = Int(p[k])
            guard v >= previous else { throw bad(section, "decreases at element \(k) (\(previous) then \(v))") }
            previous = v
        }
        guard previous == total else { throw bad(section, "ends at \(previous), not at its \(total) entries") }
    }

    /// Every element is finite and not negative (lengths, costs).
    func nonNegative<T: BinaryInteger>(_ a: MappedArray<T>, _ section: CompiledMap.Section) throws(RoadSnapError) {
        let p = a.baseAddress
        for k in 0..<a.count where p[k] < 0 { throw bad(section, "element \(k) is negative (\(p[k]))") }
    }

    func nonNegative(_ a: MappedArray<Double>, _ section: CompiledMap.Section) throws(RoadSnapError) {
        let p = a.baseAddress
        for k in 0..<a.count where !(p[k] >= 0 && p[k].isFinite) {
            throw bad(section, "element \(k) is \(p[k]), not a finite length")
        }
    }

    func finite(_ a: MappedArray<Double>, _ section: CompiledMap.Section) throws(RoadSnapError) {
        let p = a.baseAddress
        for k in 0..<a.count where !p[k].isFinite { throw bad(section, "element \(k) is \(p[k]), not finite") }
    }

    /// The network and matching-graph sections.
    func network(nodes: Int, records: MappedArray<EdgeRecord>, shape: Int, attributes: MappedArray<AttributeRecord>,
                 strings: StringTable, restrictions: MappedArray<RestrictionRecord>, exits: ExitNumbers,
                 graph g: RoadGraph) throws(RoadSnapError)
    {
        let stringCount = strings.offsets.count - 1
        try starts(strings.offsets, .stringOffsets, total: strings.bytes.count)
        func string(_ s: UInt32, _ section: CompiledMap.Section, _ k: Int, _ field: String) throws(RoadSnapError) {
            guard s == StringTable.none || Int(s) < stringCount else {
                throw bad(section, "record \(k) has \(field) string \(s), outside 0..<\(stringCount) (strings)")
            }
        }
        for k in 0..<attributes.count {
            let a = attributes[k]
            try string(a.name, .attributes, k, "name"); try string(a.ref, .attributes, k, "ref")
            try string(a.turn_lanes_forward, .attributes, k, "turn lanes")
            try string(a.turn_lanes_backward, .attributes, k, "turn lanes")
            try string(a.destination, .attributes, k, "destination")
        }
        for e in 0..<records.count {
            let r = records[e]
            guard r.from_node >= 0, Int(r.from_node) < nodes, r.to_node >= 0, Int(r.to_node) < nodes else {
                throw bad(.edges, "edge \(e) joins nodes \(r.from_node) and \(r.to_node), outside 0..<\(nodes)")
            }
            guard r.shape_start >= 0, r.shape_count >= 2, Int(r.shape_start) + Int(r.shape_count) <= shape else {
                throw bad(.edges, "edge \(e) has vertices \(r.shape_start) + \(r.shape_count), outside 0..<\(shape) "
                    + "(at least 2)")
            }
            guard r.attributes >= 0, Int(r.attributes) < attributes.count else {
                throw bad(.edges, "edge \(e) has attributes \(r.attributes), outside 0..<\(attributes.count)")
            }
            guard r.length >= 0, r.length.isFinite else { throw bad(.edges, "edge \(e) has length \(r.length)") }
            guard (-1...1).contains(r.direction), r.source_kind <= 2 else {
                throw bad(.edges, "edge \(e) has direction \(r.direction) and source kind \(r.source_kind)")
            }
            if r.source_kind == 2 {
                guard r.source_value >= 0, r.source_value < Int64(stringCount) else {
                    throw bad(.edges, "edge \(e) has source id string \(r.source_value), outside 0..<\(stringCount)")
                }
            }
        }
        for k in 0..<restrictions.count {
            let r = restrictions[k]
            guard r.from_edge >= 0, Int(r.from_edge) < records.count, r.to_edge >= 0, Int(r.to_edge) < records.count,
                  r.via_node >= 0, Int(r.via_node) < nodes
            else {
                throw bad(.restrictions, "record \(k) (edge \(r.from_edge) via node \(r.via_node) to edge "
                    + "\(r.to_edge)) is outside \(records.count) edges and \(nodes) nodes")
            }
            try string(r.restriction, .restrictions, k, "restriction")
        }
        try indices(exits.nodes, .exitNodes, below: nodes, of: "nodes")
        for k in 1..<max(1, exits.nodes.count) where exits.nodes[k] <= exits.nodes[k - 1] {
            throw bad(.exitNodes, "is not ascending at element \(k)")
        }
        for k in 0..<exits.refs.count { try string(exits.refs[k], .exitRefs, k, "exit number") }

        let arcs = 2 * records.count
        try starts(g.outStart, .outStart, total: g.outArcs.count)
        try indices(g.outArcs, .outArcs, below: arcs, of: "arcs")
        try starts(g.inStart, .inStart, total: g.inArcs.count)
        try indices(g.inArcs, .inArcs, below: arcs, of: "arcs")
        try indices(g.arcTail, .arcTail, below: nodes, of: "nodes", allowing: -1)
        try indices(g.arcHead, .arcHead, below: nodes, of: "nodes", allowing: -1)
        for a in 0..<arcs where (g.arcTail[a] < 0) != (g.arcHead[a] < 0) {
            throw bad(.arcHead, "arc \(a) has a tail \(g.arcTail[a]) but head \(g.arcHead[a])")
        }
        try nonNegative(g.arcLength, .arcLength)
        try indices(g.reverseArc, .reverseArc, below: arcs, of: "arcs", allowing: -1)
        try starts(g.restrictionStart, .restrictionStart, total: g.restrictionVia.count)
        try indices(g.restrictionVia, .restrictionVia, below: nodes, of: "nodes")
        try indices(g.restrictionTo, .restrictionTo, below: records.count, of: "edges")
    }

    /// The segment index sections (the C index reads them in place, trusting these checks).
    func index(segmentCount n: Int, edges: Int, vertices: MappedArray<Double>, length: MappedArray<Double>,
               offset: MappedArray<Double>, bearing: MappedArray<Double>, segmentEdge: MappedArray<Int32>,
               orig: MappedArray<Int32>, direction: MappedArray<Int8>, cellStart: MappedArray<UInt32>,
               cellItems: MappedArray<Int32>) throws(RoadSnapError)
    {
        try finite(vertices, .segments)
        try nonNegative(length, .segmentLength)
        try nonNegative(offset, .segmentOffset)
        try finite(bearing, .segmentBearing)
        try indices(segmentEdge, .segmentEdge, below: edges, of: "edges")
        try indices(orig, .segmentOrig, below: n, of: "segments")
        for k in 0..<direction.count where !(-1...1).contains(direction[k]) {
            throw bad(.edgeDirection, "element \(k) is \(direction[k]), not -1, 0 or 1")
        }
        try starts(cellStart, .cellStart, total: cellItems.count)
        try indices(cellItems, .cellItems, below: n, of: "segments")
    }

    /// The routing sections; `links` = turns + shortcuts. Returns nil when they hold a value out of range (the
    /// router then rebuilds them from the network, as for a damaged checksum).
    static func routing(arcs: Int, turnGraph t: TurnGraph, hierarchy a: [MappedArray<Int32>], shortcuts: Int) -> Bool {
        let v = CompiledMapValidator(path: "")
        do {
            try v.starts(t.turnStart, .turnStart, total: t.turnTarget.count)
            try v.indices(t.turnTarget, .turnTarget, below: arcs, of: "arcs")
            try v.starts(t.reverseStart, .reverseStart, total: t.reverseSource.count)
            try v.indices(t.reverseSource, .reverseSource, below: arcs, of: "arcs")
            try v.nonNegative(t.arcCost, .arcCost)
            try v.nonNegative(t.turnCost, .turnCost)
            try v.nonNegative(t.reverseCost, .reverseCost)
            guard shortcuts >= 0, shortcuts <= Int(Int32.max) - t.turnTarget.count else { return false }
            let links = t.turnTarget.count + shortcuts
            // up: start, target, cost, link; down: start, source, cost, link; then tail, head, first, second.
            let s = CompiledMap.Section.hierarchy
            for base in [0, 4] {
                guard a[base].count == arcs + 1, a[base + 1].count == a[base + 2].count,
                      a[base + 1].count == a[base + 3].count else { return false }
                try v.starts(a[base], s[base], total: a[base + 1].count)
                try v.indices(a[base + 1], s[base + 1], below: arcs, of: "arcs")
                try v.nonNegative(a[base + 2], s[base + 2])
                try v.indices(a[base + 3], s[base + 3], below: links, of: "links")
            }
            for k in 8...11 where a[k].count != links { return false }
            // The search graph's numbering: two permutations, each the other's inverse.
            guard a[12].count == arcs, a[13].count == arcs else { return false }
            try v.indices(a[12], .slotOfNode, below: arcs, of: "slots")
            try v.indices(a[13], .nodeOfSlot, below: arcs, of: "arcs")
            for node in 0..<arcs where Int(a[13][Int(a[12][node])]) != node { return false }
            try v.indices(a[8], .linkTail, below: arcs, of: "arcs")
            try v.indices(a[9], .linkHead, below: arcs, of: "arcs")
            // A shortcut stands for two earlier links (so unpacking a path ends); a turn has none.
            for k in 0..<links {
                let first = Int(a[10][k]), second = Int(a[11][k])
                if first < 0 && second < 0 { continue }
                guard first >= 0, first < k, second >= 0, second < k else { return false }
            }
            return true
        } catch { return false }
    }
}

/// Work run once, on first need, by whichever thread asks first (the others wait for it); a failure is not
/// remembered, so every later call runs it again and throws again.
final class DeferredCheck: Sendable {
    private let done = Locked(false)
    private let work: @Sendable () throws(RoadSnapError) -> Void

    init(_ work: @escaping @Sendable () throws(RoadSnapError) -> Void) { self.work = work }

    func run() throws(RoadSnapError) {
        try done.withLock { (done: inout Bool) throws(RoadSnapError) in
            if done { return }
            try work()
            done = true
        }
    }
}
