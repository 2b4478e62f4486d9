import RoadSnapBridge

/// Strings of a network (names, refs, turn lanes, destinations, restriction values, exit numbers, string source
/// ids), each stored once: string `i` is the UTF-8 `bytes[offsets[i] ..< offsets[i + 1]]`. Index `UInt32.max` is
/// "no string".
struct StringTable: Sendable {
    let offsets: MappedArray<UInt32>
    let bytes: MappedArray<UInt8>
    static let none = UInt32.max

    func string(_ i: UInt32) -> String? {
        guard i != Self.none, Int(i) + 1 < offsets.count else { return nil }
        let lo = Int(offsets[Int(i)]), hi = Int(offsets[Int(i) + 1])
        guard lo <= hi, hi <= bytes.count else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes.baseAddress + lo, count: hi - lo), as: UTF8.self)
    }
}

/// Collects distinct strings while a network is built.
struct StringTableBuilder {
    private var ids: [String: UInt32] = [:]
    private var offsets: [UInt32] = [0]
    private var bytes: [UInt8] = []

    mutating func add(_ s: String?) -> UInt32 {
        guard let s else { return StringTable.none }
        if let id = ids[s] { return id }
        let id = UInt32(offsets.count - 1)
        bytes.append(contentsOf: s.utf8)
        offsets.append(UInt32(bytes.count))
        ids[s] = id
        return id
    }

    func build() -> StringTable { StringTable(offsets: MappedArray(offsets), bytes: MappedArray(bytes)) }
}

/// Edge records, their distinct attribute sets and the string table: what `RoadEdge` values are read from.
final class EdgeStore: Sendable {
    let records: MappedArray<EdgeRecord>
    let attributeRecords: MappedArray<AttributeRecord>
    let strings: StringTable
    /// Attribute sets decoded from their records, on first use (they are few: one per distinct set of tags).
    private let decoded: Locked<[RoadAttributes]?>

    init(records: MappedArray<EdgeRecord>, attributeRecords: MappedArray<AttributeRecord>, strings: StringTable,
         decoded: [RoadAttributes]? = nil)
    {
        self.records = records
        self.attributeRecords = attributeRecords
        self.strings = strings
        self.decoded = Locked(decoded)
    }

    func attributes(_ i: Int32) -> RoadAttributes {
        decoded.withLock { table in
            if table == nil { table = attributeRecords.map(decode) }
            guard let t = table, i >= 0, Int(i) < t.count else { return RoadAttributes(roadClass: .unknown) }
            return t[Int(i)]
        }
    }

    /// Every distinct attribute set, indexed as the edge records' `attributes` (decoded on first use): for loops
    /// that read many edges' attributes, one lock and no copy of a set per edge.
    func attributeTable() -> [RoadAttributes] {
        decoded.withLock { table in
            if table == nil { table = attributeRecords.map(decode) }
            return table ?? []
        }
    }

    private func decode(_ r: AttributeRecord) -> RoadAttributes {
        let classes = RoadClass.allCases
        let roadClass = Int(r.road_class) < classes.count ? classes[classes.index(classes.startIndex, offsetBy: Int(r.road_class))] : .unknown
        let access: RoadAccess = r.access == 1 ? .destination : (r.access == 2 ? .no : .yes)
        func number(_ v: Double) -> Double? { v.isNaN ? nil : v }
        return RoadAttributes(
            roadClass: roadClass, name: strings.string(r.name), ref: strings.string(r.ref),
            maxspeedForward: number(r.maxspeed_forward), maxspeedBackward: number(r.maxspeed_backward),
            lanes: r.lanes == .min ? nil : Int(r.lanes), turnLanesForward: strings.string(r.turn_lanes_forward),
            turnLanesBackward: strings.string(r.turn_lanes_backward), isRoundabout: r.flags & 1 != 0,
            isToll: r.flags & 2 != 0, access: access, ferryDuration: number(r.ferry_duration),
            destination: strings.string(r.destination), isTrain: r.flags & 4 != 0)
    }

    static func record(_ a: RoadAttributes, strings: inout StringTableBuilder) -> AttributeRecord {
        var r = AttributeRecord()
        r.maxspeed_forward = a.maxspeedForward ?? .nan
        r.maxspeed_backward = a.maxspeedBackward ?? .nan
        r.ferry_duration = a.ferryDuration ?? .nan
        r.lanes = a.lanes.map { Int64($0) } ?? .min
        r.name = strings.add(a.name)
        r.ref = strings.add(a.ref)
        r.turn_lanes_forward = strings.add(a.turnLanesForward)
        r.turn_lanes_backward = strings.add(a.turnLanesBackward)
        r.destination = strings.add(a.destination)
        r.road_class = UInt8(RoadClass.allCases.firstIndex(of: a.roadClass).map { RoadClass.allCases.distance(from: RoadClass.allCases.startIndex, to: $0) } ?? 0)
        r.access = a.access == .yes ? 0 : (a.access == .destination ? 1 : 2)
        r.flags = (a.isRoundabout ? 1 : 0) | (a.isToll ? 2 : 0) | (a.isTrain ? 4 : 0)
        return r
    }

    func sourceID(_ r: EdgeRecord) -> EdgeSourceID {
        switch r.source_kind {
        case 0: return .osmWay(r.source_value)
        case 1: return .number(r.source_value)
        default: return .string(strings.string(UInt32(truncatingIfNeeded: r.source_value)) ?? "")
        }
    }
}

/// The edges of a network as a collection of `RoadEdge` values, read from fixed-width records.
public struct EdgeTable: RandomAccessCollection, Sendable {
    let store: EdgeStore
    public var startIndex: Int { 0 }
    public var endIndex: Int { store.records.count }

    public subscript(e: Int) -> RoadEdge {
        RoadEdge(index: e, record: store.records[e], store: store)
    }

    /// Index of edge `e`'s attribute set in `store.attributeTable()`.
    func attributeIndex(_ e: Int) -> Int { Int(store.records[e].attributes) }

    /// Edge `e`'s `shapeRange`, read from its record (the per-fix paths need only this and `length(_:)`: building
    /// the whole `RoadEdge` retained and released the store each time).
    func shapeRange(_ e: Int) -> Range<Int> {
        let r = store.records[e]
        return Int(r.shape_start)..<(Int(r.shape_start) + Int(r.shape_count))
    }

    /// Edge `e`'s `length` in metres, read from its record.
    func length(_ e: Int) -> Double { store.records[e].length }
}

/// The resolved turn restrictions of a network, read from fixed-width records.
public struct TurnRestrictionTable: RandomAccessCollection, Sendable {
    let records: MappedArray<RestrictionRecord>
    let strings: StringTable
    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }

    public subscript(i: Int) -> TurnRestriction {
        let r = records[i]
        return TurnRestriction(fromEdge: Int(r.from_edge), viaNode: Int(r.via_node), toEdge: Int(r.to_edge),
                               kind: r.kind == 1 ? .mandatory : .prohibitive,
                               restriction: strings.string(r.restriction) ?? "")
    }
}

/// Exit numbers tagged on motorway junction nodes: `nodes` ascending, `refs` string indices.
public struct ExitNumbers: Sendable {
    let nodes: MappedArray<Int32>
    let refs: MappedArray<UInt32>
    let strings: StringTable

    /// The exit number of graph node `node`, if tagged.
    public subscript(node: Int) -> String? {
        var lo = 0, hi = nodes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(nodes[mid]) < node { lo = mid + 1 } else { hi = mid }
        }
        guard lo < nodes.count, Int(nodes[lo]) == node else { return nil }
        return strings.string(refs[lo])
    }

    /// Number of tagged nodes.
    public var count: Int { nodes.count }
}
