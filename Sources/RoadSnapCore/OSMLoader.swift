extension RoadNetwork {
    /// Loads car roads, ferries and turn restrictions from `.osm.pbf`, `.osm`, `.osm.gz` or `.osm.bz2` via libosmium.
    public static func load(osmPath path: String,
                            indexCacheRadius: Double = RoadNetwork.defaultIndexCacheRadius) throws(RoadSnapError)
        -> RoadNetwork
    {
        let lower = path.lowercased()
        guard [".osm.pbf", ".pbf", ".osm", ".osm.gz", ".osm.bz2"].contains(where: { lower.hasSuffix($0) }) else {
            throw .invalidMap(path: path, reason: "unknown map format (expected .osm.pbf, .osm, .osm.gz, .osm.bz2 or .geojson)")
        }
        let extract = try OSMExtract(path: path)
        var ways: [RoadWay] = []
        ways.reserveCapacity(extract.wayCount)
        for w in 0..<extract.wayCount {
            guard let (attrs, direction) = OSMTags.attributes(extract.wayTags(w)) else { continue }
            let refs = extract.wayNodes(w)
            // A node missing from the file breaks the way into runs of located nodes.
            var run: [Int32] = []
            func flush() {
                if run.count >= 2 {
                    var coords: [GeoCoordinate] = []
                    var keys: [Int64] = []
                    for r in run {
                        let n = extract.node(Int(r))
                        coords.append(GeoCoordinate(uncheckedLatitude: n.latitude, longitude: n.longitude))
                        keys.append(n.id)
                    }
                    ways.append(RoadWay(sourceID: .osmWay(extract.wayID(w)), coordinates: coords, nodeKeys: keys,
                                        direction: direction, attributes: attrs))
                }
                run.removeAll(keepingCapacity: true)
            }
            for r in refs {
                if r < 0 { flush() } else { run.append(r) }
            }
            flush()
        }
        guard !ways.isEmpty else { throw .noDrivableRoads(path: path) }
        let restrictions = extract.restrictions.compactMap { r -> WayTurnRestriction? in
            guard r.viaNode != 0, r.fromWay != 0, r.toWay != 0 else { return nil }
            return WayTurnRestriction(fromWay: r.fromWay, viaNodeKey: r.viaNode, toWay: r.toWay,
                                      restriction: r.restriction)
        }
        var exits: [Int64: String] = [:]
        for n in 0..<extract.nodeCount {
            if let ref = extract.exitRef(ofNode: n) { exits[extract.node(n).id] = ref }
        }
        return try RoadNetwork(ways: ways, restrictions: restrictions, exitRefs: exits, sourceName: path,
                               indexCacheRadius: indexCacheRadius)
    }
}
