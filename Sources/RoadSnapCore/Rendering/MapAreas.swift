import RoadSnapBridge

/// What an area of the map is.
public enum MapAreaKind: UInt8, Hashable, Sendable {
    /// natural=water, waterway=riverbank, landuse=reservoir or basin.
    case water = 1
    /// building=* (not building=no).
    case building = 2
}

/// The area layer of a map: water and buildings, kept apart from the road network (which holds only car roads)
/// and drawn under the roads by `MapRenderer` in map type `normal`. Read from OSM files (closed ways and
/// multipolygon relations assembled by libosmium); GeoJSON networks and compiled maps (`.rsmap`) have none.
public struct MapAreas: Sendable {
    /// Area `i`'s kind and its rings (outer and inner, filled together with the even-odd rule).
    public let kinds: [MapAreaKind]
    let ringFirsts: [Int64]
    let pointFirsts: [Int64]
    /// Every ring's points, ring after ring.
    public let coordinates: [GeoCoordinate]

    /// No areas.
    public init() {
        kinds = []
        ringFirsts = [0]
        pointFirsts = [0]
        coordinates = []
    }

    /// The areas of a map file: read from an OSM file (`.osm.pbf`, `.osm`, `.osm.gz`, `.osm.bz2`); none for a
    /// GeoJSON network or a compiled map. Fails naming the file when it cannot be read.
    public static func load(path: String) throws(RoadSnapError) -> MapAreas {
        let lower = path.lowercased()
        if lower.hasSuffix(".rsmap") || lower.hasSuffix(".geojson") || lower.hasSuffix(".json")
            || CompiledMap.isCompiledMap(path: path)
        {
            return MapAreas()
        }
        return try MapAreas(try native { () throws(NativeFailure) in try OSMAreaArrays(osmPath: path) })
    }

    init(_ a: OSMAreaArrays) throws(RoadSnapError) {
        var kinds: [MapAreaKind] = []
        kinds.reserveCapacity(a.kinds.count)
        for k in a.kinds {
            guard let kind = MapAreaKind(rawValue: k) else { throw .internalError("unknown area kind \(k)") }
            kinds.append(kind)
        }
        self.kinds = kinds
        ringFirsts = a.ringFirsts
        pointFirsts = a.pointFirsts
        var coordinates: [GeoCoordinate] = []
        coordinates.reserveCapacity(a.latitudes.count)
        for i in a.latitudes.indices {
            coordinates.append(GeoCoordinate(uncheckedLatitude: a.latitudes[i], longitude: a.longitudes[i]))
        }
        self.coordinates = coordinates
    }

    /// Number of areas.
    public var count: Int { kinds.count }

    /// The rings of area `i`, each as its coordinates.
    public func rings(ofArea i: Int) -> [ArraySlice<GeoCoordinate>] {
        (Int(ringFirsts[i])..<Int(ringFirsts[i + 1])).map {
            coordinates[Int(pointFirsts[$0])..<Int(pointFirsts[$0 + 1])]
        }
    }

    /// The rings in unit web-Mercator (one "edge" a ring, for `RenderCanvas.pathEdges`) and the rings of each kind.
    func unitShapes() throws(RoadSnapError) -> (RenderEdgeShapes, water: [Int32], building: [Int32]) {
        var xy = [Double]()
        xy.reserveCapacity(coordinates.count * 2)
        for c in coordinates {
            let u = WebMercator.unit(c)
            xy.append(u.x)
            xy.append(u.y)
        }
        let ringCount = pointFirsts.count - 1
        var starts = [Int64](), counts = [Int32]()
        starts.reserveCapacity(ringCount)
        counts.reserveCapacity(ringCount)
        for r in 0..<ringCount {
            starts.append(pointFirsts[r])
            counts.append(Int32(clamping: pointFirsts[r + 1] - pointFirsts[r]))
        }
        var water: [Int32] = [], building: [Int32] = []
        for (i, kind) in kinds.enumerated() {
            for r in Int(ringFirsts[i])..<Int(ringFirsts[i + 1]) {
                if kind == .water { water.append(Int32(r)) } else { building.append(Int32(r)) }
            }
        }
        return (try native { () throws(NativeFailure) in
            try RenderEdgeShapes(unitXY: xy, starts: starts, counts: counts)
        }, water, building)
    }
}
