extension RoadNetwork {
    /// A large road network made by tiling this one (for scale tests and benchmarks): `rows` x `columns` copies of
    /// the network shifted by its own extent, each tile joined to its east and north neighbours by two-way connector roads (one per 1/`joins` of the border,
    /// between the border-most junctions of the two tiles). Turn restrictions are not copied.
    public func tiled(rows: Int, columns: Int, joins: Int = 24) throws(RoadSnapError) -> RoadNetwork {
        let base = self
        guard rows >= 1, columns >= 1, joins >= 1 else {
            throw .invalidArgument("tiling needs rows, columns and joins >= 1, got \(rows)x\(columns), \(joins) joins")
        }
        let b = base.bounds
        let dLat = (b.maxLatitude - b.minLatitude) * 1.02, dLon = (b.maxLongitude - b.minLongitude) * 1.02
        var ways: [RoadWay] = []
        var interior: Int64 = -1
        func shifted(_ c: GeoCoordinate, _ r: Int, _ col: Int) -> GeoCoordinate {
            GeoCoordinate(uncheckedLatitude: c.latitude + Double(r) * dLat, longitude: c.longitude + Double(col) * dLon)
        }
        func key(_ node: Int, _ r: Int, _ col: Int) -> Int64 { Int64(r * columns + col + 1) << 40 | Int64(node) }
        for r in 0..<rows {
            for col in 0..<columns {
                for e in base.edges {
                    let coords = base.shape[e.shapeRange].map { shifted($0, r, col) }
                    var keys: [Int64] = [key(e.fromNode, r, col)]
                    for _ in 1..<(coords.count - 1) { keys.append(interior); interior -= 1 }
                    keys.append(key(e.toNode, r, col))
                    ways.append(RoadWay(sourceID: e.sourceID, coordinates: coords, nodeKeys: keys, direction: e.direction,
                                        attributes: e.attributes))
                }
            }
        }
        // Junctions of the base map by degree > 1 (joining dead ends of driveways would make odd networks).
        var degree = [Int](repeating: 0, count: base.nodes.count)
        var attributesAt = [RoadAttributes?](repeating: nil, count: base.nodes.count)
        for e in base.edges where e.direction == .both {
            degree[e.fromNode] += 1; degree[e.toNode] += 1
            attributesAt[e.fromNode] = e.attributes; attributesAt[e.toNode] = e.attributes
        }
        let junctions = base.nodes.indices.filter { degree[$0] >= 2 }
        // For each border band: the junction farthest toward the border (east/west, north/south).
        func extreme(band: (Int) -> Int, score: (Int) -> Double) -> [Int?] {
            var best = [Int?](repeating: nil, count: joins)
            for n in junctions {
                let k = min(joins - 1, max(0, band(n)))
                if best[k].map({ score($0) < score(n) }) ?? true { best[k] = n }
            }
            return best
        }
        let latBand = { (n: Int) in Int((base.nodes[n].latitude - b.minLatitude) / dLat * Double(joins)) }
        let lonBand = { (n: Int) in Int((base.nodes[n].longitude - b.minLongitude) / dLon * Double(joins)) }
        let east = extreme(band: latBand) { base.nodes[$0].longitude }
        let west = extreme(band: latBand) { -base.nodes[$0].longitude }
        let north = extreme(band: lonBand) { base.nodes[$0].latitude }
        let south = extreme(band: lonBand) { -base.nodes[$0].latitude }
        var connector: Int64 = 1
        func join(_ a: Int, _ ra: Int, _ ca: Int, _ z: Int, _ rz: Int, _ cz: Int) {
            guard let attrs = attributesAt[a] else { return }
            ways.append(RoadWay(sourceID: .number(connector), coordinates: [shifted(base.nodes[a], ra, ca),
                                                                            shifted(base.nodes[z], rz, cz)],
                                nodeKeys: [key(a, ra, ca), key(z, rz, cz)], direction: .both, attributes: attrs))
            connector += 1
        }
        for r in 0..<rows {
            for col in 0..<columns {
                for k in 0..<joins {
                    if col + 1 < columns, let a = east[k], let z = west[k] { join(a, r, col, z, r, col + 1) }
                    if r + 1 < rows, let a = north[k], let z = south[k] { join(a, r, col, z, r + 1, col) }
                }
            }
        }
        return try RoadNetwork(ways: ways, sourceName: "\(base.sourceName) tiled \(rows)x\(columns)")
    }
}
