import RoadSnapBridge

extension RoadNetwork {
    /// Loads car roads, ferries and turn restrictions from `.osm.pbf`, `.osm`, `.osm.gz` or `.osm.bz2` via libosmium.
    /// Ways referencing nodes missing from the file keep their runs of located nodes; `warn` is told how many.
    public static func load(osmPath path: String,
                            indexCacheRadius: Double = RoadNetwork.defaultIndexCacheRadius,
                            warn: (String) -> Void = { _ in }) throws(RoadSnapError)
        -> RoadNetwork
    {
        let lower = path.lowercased()
        guard [".osm.pbf", ".pbf", ".osm", ".osm.gz", ".osm.bz2"].contains(where: { lower.hasSuffix($0) }) else {
            throw .invalidMap(path: path, reason: "unknown map format (expected .osm.pbf, .osm, .osm.gz, .osm.bz2 or .geojson)")
        }
        let extract = try native { () throws(NativeFailure) in try OSMExtract(path: path) }
        var ways: [RoadWay] = []
        ways.reserveCapacity(extract.wayCount)
        var roads = 0, cutRoads = 0, missingRefs = 0
        var firstCut: Int64? = nil
        for w in 0..<extract.wayCount {
            guard let (attrs, direction) = OSMTags.attributes(extract.wayTags(w)) else { continue }
            let refs = extract.wayNodes(w)
            roads += 1
            let missing = refs.reduce(0) { $1 < 0 ? $0 + 1 : $0 }
            if missing > 0 {
                cutRoads += 1
                missingRefs += missing
                if firstCut == nil { firstCut = extract.wayID(w) }
            }
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
        if cutRoads > 0 {
            warn("\(path): \(cutRoads) of \(roads) road ways reference \(missingRefs) node(s) missing from the file "
                + "(first: way \(firstCut ?? 0)); only their runs of located nodes are loaded. Cut the extract with "
                + "complete ways (osmium extract --strategy complete_ways) to keep them whole")
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
