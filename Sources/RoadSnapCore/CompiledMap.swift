import RoadSnapBridge

/// Compiled maps (`.rsmap`): one file holding everything a session needs, memory-mapped and read in place.
///
/// Sections (fixed-width little-endian arrays, 64-byte aligned, each with its checksum) hold the network (nodes,
/// edge records, geometry in degrees and in the local frame, attribute records, strings, turn restrictions, exit
/// numbers), the matching graph (`RoadGraph`'s arrays, which the C matcher borrows), the segment index with its
/// cell cache (borrowed by the C index; its STRtree is rebuilt on the first query above the cache radius), and the
/// routing data of the default options (arc bearings, turn graph, contraction hierarchy). Opening checks the header
/// and section bounds, verifies the checksums and wraps each section as a `MappedArray`: nothing is decoded per
/// element, and pages are read from disk (and shared with other processes) when first touched.
public enum CompiledMap {
    /// How much of a compiled map is checksummed when it is opened.
    public enum Verification: Hashable, Sendable {
        /// Every section at open (the default).
        case all
        /// The header and section table at open; each section the first time it is requested.
        case lazy
    }

    /// Section ids (stable within a format version).
    enum Section: UInt32, CaseIterable {
        case doubles = 1, ints = 2, sourceName = 3
        case nodes = 10, nodeKeys, edges, shape, localShape, attributes, stringOffsets, stringBytes, restrictions,
             exitNodes, exitRefs
        case outStart = 30, outArcs, inStart, inArcs, arcTail, arcHead, arcLength, reverseArc, restrictionStart,
             restrictionVia, restrictionTo, restrictionMandatory
        case segments = 50, segmentLength, segmentOffset, segmentBearing, segmentEdge, segmentOrig, edgeDirection,
             cellStart, cellItems
        case startBearing = 70, endBearing, startsOnMain, endsOnMain, arcCost, turnStart, turnTarget, turnCost,
             reverseStart, reverseSource, reverseCost
        case upStart = 90, upTarget, upCost, upLink, downStart, downSource, downCost, downLink, linkTail, linkHead,
             linkFirst, linkSecond, slotOfNode, nodeOfSlot

        static let names: [UInt32: String] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, "\($0)") })
        static let hierarchy: [Section] = [.upStart, .upTarget, .upCost, .upLink, .downStart, .downSource, .downCost,
                                           .downLink, .linkTail, .linkHead, .linkFirst, .linkSecond, .slotOfNode,
                                           .nodeOfSlot]
    }

    /// Positions in the `doubles` and `ints` sections.
    private enum D: Int, CaseIterable {
        case centerLatitude, centerLongitude, minLatitude, minLongitude, maxLatitude, maxLongitude, cacheRadius, cell,
             gx0, gy0
    }
    private enum I: Int, CaseIterable {
        case nodeCount, edgeCount, segmentCount, nx, ny, nonemptyCells, cellItemCount, drivingSide, hasRouting,
             turnNodes, shortcuts, coreSize, rounds
    }

    /// Writes `network` to `path` as a compiled map (through a temporary file renamed into place). `sourcePath` is
    /// the map it was read from: its size and hash are stored so a changed source is noticed (nil when the network
    /// was built in memory). `routing` (the default) includes the default options' contraction hierarchy.
    /// `control` reports progress (phases "hashing the source map", the hierarchy build's "turn graph",
    /// "priorities", "contracting", "search graph", then "writing") and can cancel (this then throws `.canceled`
    /// and leaves no file behind); its thread count applies to the contraction.
    public static func compile(_ network: RoadNetwork, to path: String, sourcePath: String?, routing: Bool = true,
                               control: BuildControl = BuildControl()) throws(RoadSnapError)
    {
        func progress(_ phase: String, _ fraction: Double) {
            control.progress?(BuildProgress(phase: phase, fraction: fraction))
        }
        guard network.compiled == nil else {
            throw .invalidArgument("\(network.sourceName) is already a compiled map; compile from the source map")
        }
        var source: (size: UInt64, hash: UInt64) = (0, 0)
        if let sourcePath {
            progress("hashing the source map", 0)
            guard let s = Checksum.hash(filePath: sourcePath) else {
                throw .unreadableFile(path: sourcePath, reason: "cannot read it to record its hash")
            }
            source = s
        }
        var prepared: (geometry: ArcGeometry, profile: PreparedProfile, side: DrivingSide)?
        if routing {
            let router = try Router(network: network, algorithm: .contractionHierarchy, control: control)
            prepared = (router.geometry, router.profile(RoutingOptions()), router.drivingSide)
        }
        try control.checkCanceled("compiling \(path)")
        progress("writing", 0)
        let w = try native { () throws(NativeFailure) in try CompiledMapWriter(path: path) }
        let view = try native { () throws(NativeFailure) in try network.index.exportView() }
        var doubles = [Double](repeating: 0, count: D.allCases.count)
        doubles[D.centerLatitude.rawValue] = network.frameCenter.latitude
        doubles[D.centerLongitude.rawValue] = network.frameCenter.longitude
        doubles[D.minLatitude.rawValue] = network.bounds.minLatitude
        doubles[D.minLongitude.rawValue] = network.bounds.minLongitude
        doubles[D.maxLatitude.rawValue] = network.bounds.maxLatitude
        doubles[D.maxLongitude.rawValue] = network.bounds.maxLongitude
        doubles[D.cacheRadius.rawValue] = view.cache_radius
        doubles[D.cell.rawValue] = view.cell
        doubles[D.gx0.rawValue] = view.gx0
        doubles[D.gy0.rawValue] = view.gy0
        var ints = [Int64](repeating: 0, count: I.allCases.count)
        ints[I.nodeCount.rawValue] = Int64(network.graph.nodeCount)
        ints[I.edgeCount.rawValue] = Int64(network.edges.count)
        ints[I.segmentCount.rawValue] = Int64(view.segment_count)
        ints[I.nx.rawValue] = Int64(view.nx)
        ints[I.ny.rawValue] = Int64(view.ny)
        ints[I.nonemptyCells.rawValue] = Int64(view.nonempty_cells)
        ints[I.cellItemCount.rawValue] = Int64(view.cell_item_count)
        if let p = prepared, let ch = p.profile.hierarchy {
            ints[I.drivingSide.rawValue] = p.side == .left ? 1 : (p.side == .right ? 2 : 0)
            ints[I.hasRouting.rawValue] = 1
            ints[I.turnNodes.rawValue] = Int64(ch.nodeCount)
            ints[I.shortcuts.rawValue] = Int64(ch.shortcutCount)
            ints[I.coreSize.rawValue] = Int64(ch.coreSize)
            ints[I.rounds.rawValue] = Int64(ch.rounds)
        }
        try native { () throws(NativeFailure) in
            try w.add(id: Section.doubles.rawValue, doubles)
            try w.add(id: Section.ints.rawValue, ints)
            try w.add(id: Section.sourceName.rawValue, Array((sourcePath ?? network.sourceName).utf8))
            try w.add(id: Section.nodes.rawValue, network.nodes)
            try w.add(id: Section.nodeKeys.rawValue, network.nodeKeys)
            try w.add(id: Section.edges.rawValue, network.edges.store.records)
            try w.add(id: Section.shape.rawValue, network.shape)
            try w.add(id: Section.localShape.rawValue, network.localShape)
            try w.add(id: Section.attributes.rawValue, network.edges.store.attributeRecords)
            try w.add(id: Section.stringOffsets.rawValue, network.strings.offsets)
            try w.add(id: Section.stringBytes.rawValue, network.strings.bytes)
            try w.add(id: Section.restrictions.rawValue, network.turnRestrictions.records)
            try w.add(id: Section.exitNodes.rawValue, network.exitNumbers.nodes)
            try w.add(id: Section.exitRefs.rawValue, network.exitNumbers.refs)
            let g = network.graph
            try w.add(id: Section.outStart.rawValue, g.outStart)
            try w.add(id: Section.outArcs.rawValue, g.outArcs)
            try w.add(id: Section.inStart.rawValue, g.inStart)
            try w.add(id: Section.inArcs.rawValue, g.inArcs)
            try w.add(id: Section.arcTail.rawValue, g.arcTail)
            try w.add(id: Section.arcHead.rawValue, g.arcHead)
            try w.add(id: Section.arcLength.rawValue, g.arcLength)
            try w.add(id: Section.reverseArc.rawValue, g.reverseArc)
            try w.add(id: Section.restrictionStart.rawValue, g.restrictionStart)
            try w.add(id: Section.restrictionVia.rawValue, g.restrictionVia)
            try w.add(id: Section.restrictionTo.rawValue, g.restrictionTo)
            try w.add(id: Section.restrictionMandatory.rawValue, g.restrictionMandatory)
            let n = view.segment_count
            try w.add(id: Section.segments.rawValue, bytes: view.segments, count: 4 * n, elementSize: 8)
            try w.add(id: Section.segmentLength.rawValue, bytes: view.length, count: n, elementSize: 8)
            try w.add(id: Section.segmentOffset.rawValue, bytes: view.offset, count: n, elementSize: 8)
            try w.add(id: Section.segmentBearing.rawValue, bytes: view.bearing, count: n, elementSize: 8)
            try w.add(id: Section.segmentEdge.rawValue, bytes: view.edge, count: n, elementSize: 4)
            try w.add(id: Section.segmentOrig.rawValue, bytes: view.orig, count: n, elementSize: 4)
            try w.add(id: Section.edgeDirection.rawValue, bytes: view.edge_direction, count: view.edge_count, elementSize: 1)
            try w.add(id: Section.cellStart.rawValue, bytes: view.cell_start, count: view.cell_count + 1, elementSize: 4)
            try w.add(id: Section.cellItems.rawValue, bytes: view.cell_items, count: view.cell_item_count, elementSize: 4)
            if let p = prepared, let ch = p.profile.hierarchy {
                try w.add(id: Section.startBearing.rawValue, p.geometry.startBearing)
                try w.add(id: Section.endBearing.rawValue, p.geometry.endBearing)
                try w.add(id: Section.startsOnMain.rawValue, p.geometry.startsOnMain)
                try w.add(id: Section.endsOnMain.rawValue, p.geometry.endsOnMain)
                let t = p.profile.graph
                try w.add(id: Section.arcCost.rawValue, t.arcCost)
                try w.add(id: Section.turnStart.rawValue, t.turnStart)
                try w.add(id: Section.turnTarget.rawValue, t.turnTarget)
                try w.add(id: Section.turnCost.rawValue, t.turnCost)
                try w.add(id: Section.reverseStart.rawValue, t.reverseStart)
                try w.add(id: Section.reverseSource.rawValue, t.reverseSource)
                try w.add(id: Section.reverseCost.rawValue, t.reverseCost)
                for (s, a) in zip(Section.hierarchy, ch.storedArrays) { try w.add(id: s.rawValue, a) }
            }
        }
        try control.checkCanceled("compiling \(path)")
        try native { () throws(NativeFailure) in try w.finish(sourceSize: source.size, sourceHash: source.hash) }
        progress("writing", 1)
    }

    /// Opens a compiled map file. `verification` `.all` checksums every section now. `.lazy` (for very large maps)
    /// checks the header, section table and bounds now; the network, graph and index sections are checksummed once,
    /// when the first query context (`Snapper`, `MapMatcher`, `MatchGraph`, `Router`, navigator) is made - a damaged
    /// section then makes that throw (a router answers `.internalError`) - or by `RoadNetwork.verifyStorage()`; the
    /// routing sections when a router first reads them (a damaged one is rebuilt from the network instead).
    public static func open(path: String, verification: CompiledMap.Verification = .all) throws(RoadSnapError)
        -> RoadNetwork
    {
        let memory = try native { () throws(NativeFailure) in try MappedMemory(path: path) }
        return try open(memory: memory, name: path, verification: verification)
    }

    /// Opens a compiled map held in memory (`bytes` must stay valid and unchanged while the network lives, and be
    /// 64-byte aligned). `name` names it in messages.
    public static func open(bytes: UnsafeRawPointer, size: Int, name: String,
                            verification: CompiledMap.Verification = .all) throws(RoadSnapError) -> RoadNetwork
    {
        guard Int(bitPattern: bytes) % compiledMapAlignment == 0 else {
            throw .invalidArgument("\(name): a compiled map in memory must start at a 64-byte aligned address")
        }
        return try open(memory: MappedMemory(borrowing: bytes, size: size), name: name, verification: verification)
    }

    static func open(memory: MappedMemory, name: String, verification: CompiledMap.Verification)
        throws(RoadSnapError) -> RoadNetwork
    {
        let file = try native { () throws(NativeFailure) in
            try CompiledMapFile(memory: memory, path: name, verifyAll: verification == .all,
                                sectionNames: Section.names)
        }
        func bad(_ reason: String) -> RoadSnapError { .invalidMap(path: name, reason: reason) }
        // With lazy verification only the small header sections are verified now; the rest are verified (once)
        // before the first query context reads them (`RoadNetwork.verifyStorage`).
        let lazy = verification == .lazy
        var deferred: [UInt32] = []
        func a<T>(_ s: Section, _ t: T.Type = T.self) throws(RoadSnapError) -> MappedArray<T> {
            if lazy { deferred.append(s.rawValue) }
            return try native { () throws(NativeFailure) in try file.array(s.rawValue, verify: !lazy) }
        }
        let doubles: MappedArray<Double> = try native { () throws(NativeFailure) in
            try file.array(Section.doubles.rawValue)
        }
        let ints: MappedArray<Int64> = try native { () throws(NativeFailure) in try file.array(Section.ints.rawValue) }
        guard doubles.count == D.allCases.count, ints.count == I.allCases.count else {
            throw bad("compiled map has a malformed header section")
        }
        func d(_ k: D) -> Double { doubles[k.rawValue] }
        func i(_ k: I) -> Int { Int(ints[k.rawValue]) }
        // Counts are used in arithmetic and as C sizes below: each fits an Int32, the cell grid too.
        for k in I.allCases where !(0...Int64(Int32.max)).contains(ints[k.rawValue]) {
            throw bad("compiled map section ints (2) holds \(k) = \(ints[k.rawValue]), outside 0...\(Int32.max)")
        }
        guard i(.nx) >= 1, i(.ny) >= 1, i(.nx) * i(.ny) < Int(Int32.max), i(.nonemptyCells) <= i(.nx) * i(.ny),
              i(.segmentCount) >= 1, i(.segmentCount) < Int(Int32.max) / 4
        else {
            throw bad("compiled map section ints (2) holds an impossible segment index (\(i(.segmentCount)) segments, "
                + "\(i(.nx)) x \(i(.ny)) cells, \(i(.nonemptyCells)) non-empty)")
        }
        let nodes: MappedArray<GeoCoordinate> = try a(.nodes)
        let records: MappedArray<EdgeRecord> = try a(.edges)
        let shape: MappedArray<GeoCoordinate> = try a(.shape)
        let localShape: MappedArray<LocalPoint> = try a(.localShape)
        let nodeKeys: MappedArray<Int64> = try a(.nodeKeys)
        guard nodes.count == i(.nodeCount), records.count == i(.edgeCount), records.count > 0,
              nodeKeys.count == nodes.count, localShape.count == shape.count
        else { throw bad("compiled map sections disagree on the number of nodes, edges or vertices") }
        let strings = StringTable(offsets: try a(.stringOffsets), bytes: try a(.stringBytes))
        guard strings.offsets.count >= 1 else { throw bad("compiled map string table is malformed") }
        let store = EdgeStore(records: records, attributeRecords: try a(.attributes), strings: strings)
        let edges = EdgeTable(store: store)
        let restrictions = TurnRestrictionTable(records: try a(.restrictions), strings: strings)
        let exits = ExitNumbers(nodes: try a(.exitNodes), refs: try a(.exitRefs), strings: strings)
        guard exits.nodes.count == exits.refs.count else { throw bad("compiled map exit numbers are malformed") }
        let graph = RoadGraph(
            nodeCount: nodes.count, outStart: try a(.outStart), outArcs: try a(.outArcs), inStart: try a(.inStart),
            inArcs: try a(.inArcs), arcTail: try a(.arcTail), arcHead: try a(.arcHead), arcLength: try a(.arcLength),
            reverseArc: try a(.reverseArc), restrictionStart: try a(.restrictionStart),
            restrictionVia: try a(.restrictionVia), restrictionTo: try a(.restrictionTo),
            restrictionMandatory: try a(.restrictionMandatory))
        let arcs = 2 * records.count
        guard graph.outStart.count == nodes.count + 1, graph.inStart.count == nodes.count + 1,
              graph.arcTail.count == arcs, graph.arcHead.count == arcs, graph.arcLength.count == arcs,
              graph.reverseArc.count == arcs, graph.restrictionStart.count == records.count + 1,
              graph.outArcs.count == Int(graph.outStart[nodes.count]), graph.inArcs.count == Int(graph.inStart[nodes.count]),
              graph.restrictionVia.count == Int(graph.restrictionStart[records.count]),
              graph.restrictionTo.count == graph.restrictionVia.count,
              graph.restrictionMandatory.count == graph.restrictionVia.count
        else { throw bad("compiled map graph sections are inconsistent") }
        let segments: MappedArray<Double> = try a(.segments)
        let length: MappedArray<Double> = try a(.segmentLength), offset: MappedArray<Double> = try a(.segmentOffset)
        let bearing: MappedArray<Double> = try a(.segmentBearing)
        let segEdge: MappedArray<Int32> = try a(.segmentEdge), orig: MappedArray<Int32> = try a(.segmentOrig)
        let direction: MappedArray<Int8> = try a(.edgeDirection)
        let cellStart: MappedArray<UInt32> = try a(.cellStart), cellItems: MappedArray<Int32> = try a(.cellItems)
        let n = i(.segmentCount)
        guard segments.count == 4 * n, length.count == n, offset.count == n, bearing.count == n, segEdge.count == n,
              orig.count == n, direction.count == records.count, cellStart.count == i(.nx) * i(.ny) + 1,
              cellItems.count == i(.cellItemCount)
        else { throw bad("compiled map segment index sections are inconsistent") }
        var view = IndexView()
        view.segment_count = n; view.edge_count = records.count
        view.nx = i(.nx); view.ny = i(.ny); view.cell_count = i(.nx) * i(.ny)
        view.cell_item_count = cellItems.count; view.nonempty_cells = i(.nonemptyCells)
        view.cache_radius = d(.cacheRadius); view.cell = d(.cell); view.gx0 = d(.gx0); view.gy0 = d(.gy0)
        view.segments = segments.baseAddress; view.length = length.baseAddress; view.offset = offset.baseAddress
        view.bearing = bearing.baseAddress; view.edge = segEdge.baseAddress; view.orig = orig.baseAddress
        view.edge_direction = direction.baseAddress; view.cell_start = cellStart.baseAddress
        view.cell_items = cellItems.baseAddress
        // Values used as indices or lengths are checked against the counts (checksums do not stop a crafted file):
        // now, or for a lazily verified map once, after the deferred checksums, before the first query context.
        let validator = CompiledMapValidator(path: name)
        let exitsCopy = exits, shapeCount = shape.count
        let attributes = store.attributeRecords, restrictionRecords = restrictions.records
        let validate = { @Sendable () throws(RoadSnapError) in
            try validator.network(nodes: nodes.count, records: records, shape: shapeCount, attributes: attributes,
                                  strings: strings, restrictions: restrictionRecords, exits: exitsCopy, graph: graph)
            try validator.index(segmentCount: n, edges: records.count, vertices: segments, length: length,
                                offset: offset, bearing: bearing, segmentEdge: segEdge, orig: orig,
                                direction: direction, cellStart: cellStart, cellItems: cellItems)
        }
        let deferredCheck: DeferredCheck?
        if lazy {
            let pending = deferred
            deferredCheck = DeferredCheck { () throws(RoadSnapError) in
                for id in pending { try native { () throws(NativeFailure) in try file.verify(id) } }
                try validate()
            }
        } else {
            try validate()
            deferredCheck = nil
        }
        let index: SegmentIndex
        do { index = try SegmentIndex(borrowing: view, owner: memory) } catch {
            throw bad("compiled map segment index is inconsistent: \(error)")
        }
        let bounds = GeoBoundingBox(minLatitude: d(.minLatitude), minLongitude: d(.minLongitude),
                                    maxLatitude: d(.maxLatitude), maxLongitude: d(.maxLongitude))
        let center = GeoCoordinate(uncheckedLatitude: d(.centerLatitude), longitude: d(.centerLongitude))
        guard center.latitude.isFinite, center.longitude.isFinite, abs(center.latitude) <= 90,
              abs(center.longitude) <= 180
        else { throw bad("compiled map frame centre is not a valid coordinate") }
        return RoadNetwork(nodes: nodes, nodeKeys: nodeKeys, exitNumbers: exits, edges: edges, shape: shape,
                           localShape: localShape, turnRestrictions: restrictions, bounds: bounds,
                           frameCenter: center, graph: graph, index: index, sourceName: name, strings: strings,
                           compiled: file, deferredCheck: deferredCheck)
    }

    /// The source map a compiled network was made from: its path as given to `compile`, and its size and hash then.
    public static func source(of network: RoadNetwork) -> (path: String, size: UInt64, hash: UInt64)? {
        guard let file = network.compiled,
              let bytes = try? file.array(Section.sourceName.rawValue, of: UInt8.self) else { return nil }
        return (String(decoding: bytes, as: UTF8.self), file.sourceSize, file.sourceHash)
    }

    /// Whether a compiled network's source map has changed since it was compiled (nil: not compiled, compiled from
    /// memory, or the source cannot be read).
    public static func isStale(_ network: RoadNetwork) -> Bool? {
        guard let s = source(of: network), s.size != 0 || s.hash != 0,
              let now = Checksum.hash(filePath: s.path) else { return nil }
        return now.size != s.size || now.hash != s.hash
    }

    /// Bytes of a compiled network's file by part: network (nodes, edges, geometry, attributes, strings,
    /// restrictions), graph (matching graph), index (segments and cell cache), routing (bearings, turn graph,
    /// hierarchy); nil for a network built from a source map.
    public static func sizeBreakdown(of network: RoadNetwork) -> [(part: String, bytes: Int)]? {
        guard let sizes = network.compiled?.sectionSizes else { return nil }
        var parts: [(part: String, bytes: Int)] = [("network", 0), ("graph", 0), ("index", 0), ("routing", 0)]
        for (id, bytes) in sizes {
            let k = id < 30 ? 0 : (id < 50 ? 1 : (id < 70 ? 2 : 3))
            parts[k].bytes += bytes
        }
        return parts
    }

    /// Whether a network was opened from a compiled map holding the default options' routing hierarchy.
    public static func hasStoredHierarchy(_ network: RoadNetwork) -> Bool {
        network.compiled?.has(Section.upStart.rawValue) ?? false
    }

    /// Whether the file at `path` starts like a compiled map.
    public static func isCompiledMap(path: String) -> Bool { CompiledMapFile.looksCompiled(path: path) }

    // MARK: routing data for Router

    static func storedGeometry(of network: RoadNetwork) -> ArcGeometry? {
        guard let file = network.compiled, file.has(Section.startBearing.rawValue) else { return nil }
        do {
            let g = ArcGeometry(startBearing: try file.array(Section.startBearing.rawValue),
                                endBearing: try file.array(Section.endBearing.rawValue),
                                startsOnMain: try file.array(Section.startsOnMain.rawValue),
                                endsOnMain: try file.array(Section.endsOnMain.rawValue))
            let arcs = 2 * network.edges.count
            guard g.startBearing.count == arcs, g.endBearing.count == arcs, g.startsOnMain.count == network.edges.count,
                  g.endsOnMain.count == network.edges.count else { return nil }
            return g
        } catch { return nil }
    }

    static func storedProfile(of network: RoadNetwork, drivingSide: DrivingSide) -> PreparedProfile? {
        guard let file = network.compiled, let ints = try? file.array(Section.ints.rawValue, of: Int64.self),
              ints.count == I.allCases.count, ints[I.hasRouting.rawValue] == 1 else { return nil }
        let side: DrivingSide = ints[I.drivingSide.rawValue] == 1 ? .left : (ints[I.drivingSide.rawValue] == 2 ? .right : .none)
        guard side == drivingSide else { return nil }
        do {
            func a(_ s: Section) throws(RoadSnapError) -> MappedArray<Int32> {
                try native { () throws(NativeFailure) in try file.array(s.rawValue) }
            }
            let arcs = 2 * network.edges.count
            let t = TurnGraph(arcCount: arcs, arcCost: try a(.arcCost), turnStart: try a(.turnStart),
                              turnTarget: try a(.turnTarget), turnCost: try a(.turnCost),
                              reverseStart: try a(.reverseStart), reverseSource: try a(.reverseSource),
                              reverseCost: try a(.reverseCost))
            var arrays: [MappedArray<Int32>] = []
            for s in Section.hierarchy { arrays.append(try a(s)) }
            guard t.arcCost.count == arcs, t.turnStart.count == arcs + 1, t.reverseStart.count == arcs + 1,
                  t.turnTarget.count == Int(t.turnStart[arcs]), t.turnCost.count == t.turnTarget.count,
                  t.reverseSource.count == t.turnTarget.count, t.reverseCost.count == t.turnTarget.count,
                  Int(ints[I.turnNodes.rawValue]) == arcs, arrays[0].count == arcs + 1, arrays[4].count == arcs + 1,
                  CompiledMapValidator.routing(arcs: arcs, turnGraph: t, hierarchy: arrays,
                                               shortcuts: Int(ints[I.shortcuts.rawValue]))
            else { return nil }
            let ch = ContractionHierarchy(nodeCount: arcs, shortcutCount: Int(ints[I.shortcuts.rawValue]),
                                          coreSize: Int(ints[I.coreSize.rawValue]),
                                          rounds: Int(ints[I.rounds.rawValue]), arrays: arrays)
            return PreparedProfile(graph: t, hierarchy: ch)
        } catch { return nil }
    }
}
