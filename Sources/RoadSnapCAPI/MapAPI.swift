import RoadSnapCHeader
import RoadSnapCore
import RoadSnapFormats

/// What an `rs_map` handle holds: an immutable network (thread-safe to share), the matching graph every matcher
/// made from it shares, and the renderer `rs_render_rgba` draws with (each built on first use).
final class MapObject: HandleObject {
    let network: RoadNetwork
    /// The file the map was opened from (nil from memory): its water and buildings are read on the first draw.
    let path: String?
    private let total = Locked<Double?>(nil)
    private let sharedMatchGraph = Locked<MatchGraph?>(nil)
    /// One renderer per map (its shapes converted once, areas loaded once); draws take turns, since a renderer keeps
    /// scratch state between frames.
    private let sharedRenderer = Locked<MapRenderer?>(nil)

    init(_ network: RoadNetwork, path: String? = nil) {
        self.network = network
        self.path = path
    }

    /// Runs `body` with the map's renderer (built on first use, with the map file's water and buildings).
    func withRenderer(_ body: (MapRenderer) -> Void) throws(APIFailure) {
        try sharedRenderer.withLock { (r: inout MapRenderer?) throws(APIFailure) in
            if let r {
                body(r)
                return
            }
            let built = try bridging { () throws(RoadSnapError) in
                try MapRenderer(network: network, areas: try path.map { p throws(RoadSnapError) in
                    try MapAreas.load(path: p)
                })
            }
            r = built
            body(built)
        }
    }

    /// Metres of road (summed on first use, so opening a compiled map touches no edge).
    var totalLength: Double {
        total.withLock { t in
            if let t { return t }
            let sum = network.edges.reduce(0) { $0 + $1.length }
            t = sum
            return sum
        }
    }

    func matchGraph() throws(APIFailure) -> MatchGraph {
        try sharedMatchGraph.withLock { (g: inout MatchGraph?) throws(APIFailure) -> MatchGraph in
            if let g { return g }
            let built = try bridging { () throws(RoadSnapError) in try MatchGraph(network: network) }
            g = built
            return built
        }
    }

    func edge(_ index: Int64) throws(APIFailure) -> RoadEdge {
        guard index >= 0, index < network.edges.count else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "edge \(index) out of range 0..<\(network.edges.count)")
        }
        return network.edges[Int(index)]
    }
}

extension RoadClass {
    /// The class's OSM name as a static C string.
    var cName: UnsafePointer<CChar> {
        switch self {
        case .motorway: return cString("motorway")
        case .motorwayLink: return cString("motorway_link")
        case .trunk: return cString("trunk")
        case .trunkLink: return cString("trunk_link")
        case .primary: return cString("primary")
        case .primaryLink: return cString("primary_link")
        case .secondary: return cString("secondary")
        case .secondaryLink: return cString("secondary_link")
        case .tertiary: return cString("tertiary")
        case .tertiaryLink: return cString("tertiary_link")
        case .unclassified: return cString("unclassified")
        case .residential: return cString("residential")
        case .livingStreet: return cString("living_street")
        case .service: return cString("service")
        case .ferry: return cString("ferry")
        case .unknown: return cString("unknown")
        }
    }
}

@implementation @c
public func rs_map_open(_ path: UnsafePointer<CChar>?, _ outMap: UnsafeMutablePointer<OpaquePointer?>?) -> rs_status {
    creatingHandle(outMap, named: "out_map", kind: .map) { () throws(APIFailure) in
        guard let path else { throw .null("path") }
        let file = String(cString: path)
        // What the loader left out (non-car GeoJSON features, OSM ways cut by missing nodes) goes to the log handler.
        let map = try bridging { () throws(RoadSnapError) in
            try MapLoader.load(path: file, warn: { NativeLog.log(.warning, $0) })
        }
        return try MapObject(map, path: file)
    }
}

@implementation @c
public func rs_map_open_memory(_ bytes: UnsafeRawPointer?, _ size: Int, _ name: UnsafePointer<CChar>?,
                               _ outMap: UnsafeMutablePointer<OpaquePointer?>?) -> rs_status
{
    creatingHandle(outMap, named: "out_map", kind: .map) { () throws(APIFailure) in
        guard let bytes else { throw .null("bytes") }
        let label = name.map { String(cString: $0) } ?? "<memory>"
        return try MapObject(bridging { () throws(RoadSnapError) in
            try CompiledMap.open(bytes: bytes, size: size, name: label)
        })
    }
}

@implementation @c
public func rs_map_close(_ map: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in try HandleTable.shared.remove(map, .map) }
}

@implementation @c
public func rs_map_get_info(_ map: OpaquePointer?, _ outInfo: UnsafeMutablePointer<rs_map_info>?) -> rs_status {
    reading(map, .map, as: MapObject.self, into: outInfo, named: "out_info") { m in
        let n = m.network
        return rs_map_info(
            node_count: Int64(n.nodes.count), edge_count: Int64(n.edges.count),
            min_latitude: n.bounds.minLatitude, min_longitude: n.bounds.minLongitude,
            max_latitude: n.bounds.maxLatitude, max_longitude: n.bounds.maxLongitude, total_length: m.totalLength)
    }
}

@implementation @c
public func rs_map_get_edge(_ map: OpaquePointer?, _ edge: Int64, _ outEdge: UnsafeMutablePointer<rs_edge_info>?)
    -> rs_status
{
    reading(map, .map, as: MapObject.self, into: outEdge, named: "out_edge") { m throws(APIFailure) in
        let e = try m.edge(edge)
        let a = e.attributes
        let sourceID: Int64
        switch e.sourceID {
        case let .osmWay(id), let .number(id): sourceID = id
        case .string: sourceID = .min
        }
        return rs_edge_info(
            source_id: sourceID, from_node: Int64(e.fromNode), to_node: Int64(e.toNode), length: e.length,
            direction: Int32(e.direction.rawValue), is_roundabout: a.isRoundabout ? 1 : 0, is_toll: a.isToll ? 1 : 0,
            is_ferry: a.isFerry ? 1 : 0, maxspeed_forward: a.maxspeedForward ?? .nan,
            maxspeed_backward: a.maxspeedBackward ?? .nan, default_speed: a.roadClass.defaultSpeedKmh,
            road_class: a.roadClass.cName)
    }
}

@implementation @c
public func rs_map_edge_source_id(_ map: OpaquePointer?, _ edge: Int64, _ buf: UnsafeMutablePointer<CChar>?,
                                  _ capacity: Int, _ outLength: UnsafeMutablePointer<Int>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(map, .map, as: MapObject.self)
        try write(m.edge(edge).sourceID.description, into: buf, capacity: capacity, length: outLength)
    }
}

@implementation @c
public func rs_map_edge_name(_ map: OpaquePointer?, _ edge: Int64, _ buf: UnsafeMutablePointer<CChar>?,
                             _ capacity: Int, _ outLength: UnsafeMutablePointer<Int>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let m = try HandleTable.shared.lookup(map, .map, as: MapObject.self)
        let a = try m.edge(edge).attributes
        try write(a.name ?? a.ref ?? "", into: buf, capacity: capacity, length: outLength)
    }
}
