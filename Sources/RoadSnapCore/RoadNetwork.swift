import RoadSnapBridge

/// A road between two junctions: one piece of a way, with its geometry, direction and attributes. A value read
/// from the network's edge records (the attributes and a string source id are decoded when asked for).
public struct RoadEdge: Hashable, Sendable {
    /// The edge's index in the network.
    public let index: Int
    /// Graph node indices at the geometry's start and end.
    public let fromNode: Int
    public let toNode: Int
    /// Geometry: `shape[shapeStart ..< shapeStart + shapeCount]` of the network (at least 2 points).
    public let shapeStart: Int
    public let shapeCount: Int
    /// Length in metres (in the map's local metric frame, within a few ppm of the geodesic length for city maps).
    public let length: Double
    public let direction: TravelDirection
    private let attributeIndex: Int32
    private let sourceKind: UInt8
    private let sourceValue: Int64
    private let store: EdgeStore

    init(index: Int, record r: EdgeRecord, store: EdgeStore) {
        self.index = index
        fromNode = Int(r.from_node); toNode = Int(r.to_node)
        shapeStart = Int(r.shape_start); shapeCount = Int(r.shape_count)
        length = r.length
        direction = TravelDirection(rawValue: r.direction) ?? .both
        attributeIndex = r.attributes
        sourceKind = r.source_kind
        sourceValue = r.source_value
        self.store = store
    }

    /// The source way or feature; several edges share it when a way is split at junctions.
    public var sourceID: EdgeSourceID {
        var r = EdgeRecord()
        r.source_kind = sourceKind
        r.source_value = sourceValue
        return store.sourceID(r)
    }

    /// Tagged attributes (shared by the edges of one way).
    public var attributes: RoadAttributes { store.attributes(attributeIndex) }

    /// Whether the edge may be travelled in its geometry direction (`forward`) or against it.
    @inlinable
    public func allows(forward: Bool) -> Bool {
        direction == .both || (forward ? direction == .forward : direction == .backward)
    }

    public var shapeRange: Range<Int> { shapeStart..<(shapeStart + shapeCount) }

    public static func == (a: RoadEdge, b: RoadEdge) -> Bool {
        a.index == b.index && a.fromNode == b.fromNode && a.toNode == b.toNode && a.shapeStart == b.shapeStart
            && a.shapeCount == b.shapeCount && a.length == b.length && a.direction == b.direction
            && a.sourceID == b.sourceID && a.attributes == b.attributes
    }

    public func hash(into h: inout Hasher) {
        h.combine(index); h.combine(fromNode); h.combine(toNode); h.combine(length)
    }
}

/// A turn restriction at a junction: from one edge, through a node, onto another edge.
public struct TurnRestriction: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        /// `no_*`: this turn is forbidden.
        case prohibitive
        /// `only_*`: from `fromEdge` at `viaNode`, this is the only turn allowed.
        case mandatory
    }
    public var fromEdge: Int
    public var viaNode: Int
    public var toEdge: Int
    public var kind: Kind
    /// The OSM value, e.g. `no_left_turn`.
    public var restriction: String

    public init(fromEdge: Int, viaNode: Int, toEdge: Int, kind: Kind, restriction: String) {
        self.fromEdge = fromEdge; self.viaNode = viaNode; self.toEdge = toEdge; self.kind = kind
        self.restriction = restriction
    }
}

/// A polyline road as read from a source, before splitting at junctions.
public struct RoadWay: Hashable, Sendable {
    public var sourceID: EdgeSourceID
    public var coordinates: [GeoCoordinate]
    /// Identity of each vertex for topology (OSM node ids); nil to join vertices by identical coordinates.
    public var nodeKeys: [Int64]?
    public var direction: TravelDirection
    public var attributes: RoadAttributes

    public init(sourceID: EdgeSourceID, coordinates: [GeoCoordinate], nodeKeys: [Int64]? = nil,
                direction: TravelDirection, attributes: RoadAttributes)
    {
        self.sourceID = sourceID; self.coordinates = coordinates; self.nodeKeys = nodeKeys
        self.direction = direction; self.attributes = attributes
    }
}

/// A turn restriction as tagged on ways and a node, before it is resolved to edges.
public struct WayTurnRestriction: Hashable, Sendable {
    public var fromWay: Int64
    public var viaNodeKey: Int64
    public var toWay: Int64
    public var restriction: String
    public init(fromWay: Int64, viaNodeKey: Int64, toWay: Int64, restriction: String) {
        self.fromWay = fromWay; self.viaNodeKey = viaNodeKey; self.toWay = toWay; self.restriction = restriction
    }
}

/// An immutable, directed road network in one local metric frame, with its segment index. Thread-safe to share.
///
/// Its arrays are fixed-width values read in place: from heap buffers when the network is built from a map, or
/// from the mapping of a compiled map (`CompiledMap`), which opens without decoding anything per element.
public final class RoadNetwork: Sendable {
    /// Junction and dead-end positions (graph nodes).
    public let nodes: MappedArray<GeoCoordinate>
    /// OSM node id of each graph node (or a synthetic key for GeoJSON networks).
    public let nodeKeys: MappedArray<Int64>
    /// Exit numbers tagged on motorway junction nodes, by graph node.
    public let exitNumbers: ExitNumbers
    public let edges: EdgeTable
    /// Every edge's geometry, concatenated (see `RoadEdge.shapeStart`).
    public let shape: MappedArray<GeoCoordinate>
    /// `shape` projected into the local frame.
    public let localShape: MappedArray<LocalPoint>
    public let turnRestrictions: TurnRestrictionTable
    public let bounds: GeoBoundingBox
    /// Centre of the local transverse Mercator frame.
    public let frameCenter: GeoCoordinate
    /// Directed adjacency (arcs) for routing and matching.
    public let graph: RoadGraph
    /// The GEOS-backed segment index (cell cache radius `indexCacheRadius`).
    public let index: SegmentIndex
    /// Source file name, for messages.
    public let sourceName: String
    let strings: StringTable
    /// The compiled map this network was opened from (its routing sections are read by `Router`), if any.
    let compiled: CompiledMapFile?
    /// A lazily verified compiled map's checksums and value checks, run once before first use.
    let deferredCheck: DeferredCheck?

    /// Default largest search radius served from the index's cell cache, metres.
    public static let defaultIndexCacheRadius = 50.0

    init(nodes: MappedArray<GeoCoordinate>, nodeKeys: MappedArray<Int64>, exitNumbers: ExitNumbers, edges: EdgeTable,
         shape: MappedArray<GeoCoordinate>, localShape: MappedArray<LocalPoint>,
         turnRestrictions: TurnRestrictionTable, bounds: GeoBoundingBox, frameCenter: GeoCoordinate, graph: RoadGraph,
         index: SegmentIndex, sourceName: String, strings: StringTable, compiled: CompiledMapFile?,
         deferredCheck: DeferredCheck? = nil)
    {
        self.deferredCheck = deferredCheck
        self.nodes = nodes; self.nodeKeys = nodeKeys; self.exitNumbers = exitNumbers; self.edges = edges
        self.shape = shape; self.localShape = localShape; self.turnRestrictions = turnRestrictions
        self.bounds = bounds; self.frameCenter = frameCenter; self.graph = graph; self.index = index
        self.sourceName = sourceName; self.strings = strings; self.compiled = compiled
    }

    /// Builds a network from ways: splits them at shared vertices, projects, indexes, resolves restrictions.
    public convenience init(ways: [RoadWay], restrictions: [WayTurnRestriction] = [], exitRefs: [Int64: String] = [:],
                            sourceName: String, indexCacheRadius: Double = RoadNetwork.defaultIndexCacheRadius)
        throws(RoadSnapError)
    {
        let usable = ways.filter { $0.coordinates.count >= 2 }
        guard let bounds = GeoBoundingBox(covering: usable.lazy.flatMap { $0.coordinates }) else {
            throw .noDrivableRoads(path: sourceName)
        }
        let frameCenter = bounds.center
        let frame = try native { () throws(NativeFailure) in
            try LocalFrame(centerLatitude: frameCenter.latitude, centerLongitude: frameCenter.longitude)
        }

        // Vertex identity: node keys when given, else the coordinate rounded to 1e-7 degrees.
        func key(_ way: RoadWay, _ i: Int) -> Int64 {
            if let keys = way.nodeKeys { return keys[i] }
            let c = way.coordinates[i]
            let la = Int64((c.latitude * 1e7).rounded()), lo = Int64((c.longitude * 1e7).rounded())
            return (la << 32) ^ (lo & 0xffff_ffff) ^ Int64.min
        }
        var uses: [Int64: Int] = [:]
        for way in usable {
            for i in way.coordinates.indices {
                let k = key(way, i)
                // Ends always split; an interior vertex splits when used twice or more.
                uses[k, default: 0] += (i == 0 || i == way.coordinates.count - 1) ? 2 : 1
            }
        }
        var nodeOf: [Int64: Int] = [:]
        var nodes: [GeoCoordinate] = []
        var nodeKeys: [Int64] = []
        func node(_ k: Int64, _ c: GeoCoordinate) -> Int {
            if let n = nodeOf[k] { return n }
            nodeOf[k] = nodes.count
            nodes.append(c)
            nodeKeys.append(k)
            return nodes.count - 1
        }
        var strings = StringTableBuilder()
        var attributeIDs: [RoadAttributes: Int32] = [:]
        var attributeList: [RoadAttributes] = []
        var attributeRecords: [AttributeRecord] = []
        var records: [EdgeRecord] = []
        var shape: [GeoCoordinate] = []
        var edgesOfWay: [EdgeSourceID: [Int]] = [:]
        for way in usable {
            let attributeID: Int32
            if let id = attributeIDs[way.attributes] {
                attributeID = id
            } else {
                attributeID = Int32(attributeList.count)
                attributeIDs[way.attributes] = attributeID
                attributeList.append(way.attributes)
                attributeRecords.append(EdgeStore.record(way.attributes, strings: &strings))
            }
            var sourceKind: UInt8 = 0, sourceValue: Int64 = 0
            switch way.sourceID {
            case let .osmWay(id): sourceKind = 0; sourceValue = id
            case let .number(id): sourceKind = 1; sourceValue = id
            case let .string(s): sourceKind = 2; sourceValue = Int64(strings.add(s))
            }
            var startIndex = 0
            var piece: [GeoCoordinate] = [way.coordinates[0]]
            var lastKey = key(way, 0)
            for i in 1..<way.coordinates.count {
                let k = key(way, i)
                if k == lastKey { continue }  // repeated vertex
                lastKey = k
                piece.append(way.coordinates[i])
                let isEnd = i == way.coordinates.count - 1
                if isEnd || (uses[k] ?? 0) >= 2 {
                    let from = node(key(way, startIndex), way.coordinates[startIndex])
                    let to = node(k, way.coordinates[i])
                    edgesOfWay[way.sourceID, default: []].append(records.count)
                    var r = EdgeRecord()
                    r.from_node = Int32(from); r.to_node = Int32(to)
                    r.shape_start = Int32(shape.count); r.shape_count = Int32(piece.count)
                    r.source_value = sourceValue; r.source_kind = sourceKind
                    r.attributes = attributeID; r.direction = way.direction.rawValue
                    records.append(r)
                    shape.append(contentsOf: piece)
                    piece = [way.coordinates[i]]
                    startIndex = i
                }
            }
        }
        guard !records.isEmpty else { throw .noDrivableRoads(path: sourceName) }
        guard shape.count < Int(Int32.max), nodes.count < Int(Int32.max) else {
            throw .invalidMap(path: sourceName, reason: "more than 2^31 vertices")
        }

        var xs: [Double] = [], ys: [Double] = []
        try native { () throws(NativeFailure) in
            try frame.forward(latitudes: shape.map(\.latitude), longitudes: shape.map(\.longitude), x: &xs, y: &ys)
        }
        var localShape: [LocalPoint] = []
        localShape.reserveCapacity(shape.count)
        for i in shape.indices {
            guard xs[i].isFinite, ys[i].isFinite else {
                throw .projection("\(sourceName): vertex \(shape[i]) could not be projected")
            }
            localShape.append(LocalPoint(x: xs[i], y: ys[i]))
        }
        // Segments for the index, and edge lengths in the local frame.
        var ax: [Double] = [], ay: [Double] = [], bx: [Double] = [], by: [Double] = []
        var segEdge: [Int32] = [], segOffset: [Double] = []
        for e in records.indices {
            var offset = 0.0
            let lo = Int(records[e].shape_start), hi = lo + Int(records[e].shape_count)
            for i in lo..<(hi - 1) {
                let a = localShape[i], b = localShape[i + 1]
                ax.append(a.x); ay.append(a.y); bx.append(b.x); by.append(b.y)
                segEdge.append(Int32(e)); segOffset.append(offset)
                offset += ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            }
            records[e].length = offset
        }
        let index = try native { () throws(NativeFailure) in
            try SegmentIndex(ax: ax, ay: ay, bx: bx, by: by, edge: segEdge, offset: segOffset,
                                         directions: records.map { (TravelDirection(rawValue: $0.direction) ?? .both).rawValue },
                                         cacheRadius: indexCacheRadius)
        }

        // Turn restrictions: from/to edges of the named ways that touch the via node.
        var resolved: [RestrictionRecord] = []
        for r in restrictions {
            guard let via = nodeOf[r.viaNodeKey] else { continue }
            let kind: TurnRestriction.Kind
            if r.restriction.hasPrefix("no_") { kind = .prohibitive }
            else if r.restriction.hasPrefix("only_") { kind = .mandatory }
            else { continue }
            let touching = { (id: Int64) -> [Int] in
                (edgesOfWay[.osmWay(id)] ?? []).filter {
                    Int(records[$0].from_node) == via || Int(records[$0].to_node) == via
                }
            }
            // OSM requires the from and to ways to start or end at the via node. A way that passes through it is
            // ambiguous: such a from-way (or a `no_*` to-way) is dropped rather than forbid a legal movement; an
            // `only_*` to-way passing through allows both of its halves.
            let from = touching(r.fromWay), to = touching(r.toWay)
            guard from.count == 1, !to.isEmpty, kind == .mandatory || to.count == 1 else { continue }
            let value = strings.add(r.restriction)
            for t in to {
                resolved.append(RestrictionRecord(from_edge: Int32(from[0]), via_node: Int32(via), to_edge: Int32(t),
                                                  restriction: value, kind: kind == .mandatory ? 1 : 0))
            }
        }
        var exits: [(node: Int32, ref: UInt32)] = []
        // In key order: the refs' places in the string table must not follow the process's hash seed (a compiled map
        // of the same source is the same bytes in every run).
        for (k, ref) in exitRefs.sorted(by: { $0.key < $1.key }) {
            if let n = nodeOf[k] { exits.append((Int32(n), strings.add(ref))) }
        }
        exits.sort { $0.node < $1.node }

        let table = strings.build()
        let store = EdgeStore(records: MappedArray(records), attributeRecords: MappedArray(attributeRecords),
                              strings: table, decoded: attributeList)
        let edges = EdgeTable(store: store)
        let restrictionTable = TurnRestrictionTable(records: MappedArray(resolved), strings: table)
        let graph = RoadGraph(nodeCount: nodes.count, edges: edges, restrictions: restrictionTable)
        self.init(nodes: MappedArray(nodes), nodeKeys: MappedArray(nodeKeys),
                  exitNumbers: ExitNumbers(nodes: MappedArray(exits.map(\.node)), refs: MappedArray(exits.map(\.ref)),
                                           strings: table),
                  edges: edges, shape: MappedArray(shape), localShape: MappedArray(localShape),
                  turnRestrictions: restrictionTable, bounds: bounds, frameCenter: frameCenter, graph: graph,
                  index: index, sourceName: sourceName, strings: table, compiled: nil)
    }

    /// Verifies the checksums of a compiled map opened with lazy verification and checks its stored indices against
    /// its counts (once; later calls return at once).
    /// Query contexts (`SegmentQuery`, hence snappers, matchers, routers and navigators) and `MatchGraph` call it
    /// before reading the network; call it before reading the network's arrays directly after a lazy open.
    /// No-op for other networks. Throws `invalidMap` naming the damaged section.
    public func verifyStorage() throws(RoadSnapError) {
        try deferredCheck?.run()
    }

    /// A new PROJ frame of this network (one per thread).
    public func makeFrame() throws(RoadSnapError) -> LocalFrame {
        try native { () throws(NativeFailure) in
            try LocalFrame(centerLatitude: frameCenter.latitude, centerLongitude: frameCenter.longitude)
        }
    }

    /// A new query context on the network's segment index (one per thread), for up to `capacity` candidates per
    /// search; a compiled map opened with lazy verification is checked first (`verifyStorage`).
    package func makeQuery(capacity: Int) throws(RoadSnapError) -> SegmentQuery {
        try verifyStorage()
        return try native { () throws(NativeFailure) in try SegmentQuery(index: index, capacity: capacity) }
    }

    /// Local-frame geometry of edge `e`.
    public func localGeometry(ofEdge e: Int) -> Slice<MappedArray<LocalPoint>> { localShape[edges.shapeRange(e)] }

    /// Geometry of edge `e`.
    public func geometry(ofEdge e: Int) -> Slice<MappedArray<GeoCoordinate>> { shape[edges.shapeRange(e)] }

    /// Total road length in kilometres per class.
    public func kilometresByClass() -> [RoadClass: Double] {
        var result: [RoadClass: Double] = [:]
        for e in edges { result[e.attributes.roadClass, default: 0] += e.length / 1000 }
        return result
    }
}

/// Bearing from `a` to `b` in a local frame, degrees clockwise from grid north in [0, 360).
@inlinable
public func localBearing(from a: LocalPoint, to b: LocalPoint) -> Double {
    var d = atan2Degrees(b.x - a.x, b.y - a.y)
    if d < 0 { d += 360 }
    return d
}
