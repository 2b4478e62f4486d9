import RoadSnapCore
import RoadSnapFormats

/// Route queries per second on the sample extract and on Monaco: whole `Router.route` calls (snap both waypoints,
/// contraction-hierarchy search, path unpacking, geometry and steps) timed one by one, p50 and p99; and the cost
/// query alone (snap + search) against plain Dijkstra on the same pairs as the baseline. Then preprocessing time
/// (router construction: turn graph and contraction hierarchy) on tiled copies of the Andorra extract up to ~200k edges.
/// `route prep` runs only the preprocessing table; `tiles=RxC` adds one tiling.
enum RouteBenchmark {
    static func run(_ args: [String]) throws {
        if !args.contains("prep") { try queries() }
        var tilings = [(1, 1), (2, 2), (4, 4), (5, 6)]
        for a in args where a.hasPrefix("tiles=") {
            let parts = a.dropFirst(6).split(separator: "x").compactMap { Int($0) }
            if parts.count == 2 { tilings = [(parts[0], parts[1])] }
        }
        try preprocessing(tilings)
    }

    static func preprocessing(_ tilings: [(Int, Int)]) throws {
        let base = try MapLoader.load(path: repoPath("Tests/RoadSnapCoreTests/Fixtures/osm/andorra.osm.pbf"))
        print("preprocessing: one thread; Router(network:) = turn graph + contraction hierarchy, median of runs")
        print("network                   edges   turn nodes  prep s    edges/s  shortcuts  core")
        for (rows, columns) in tilings {
            let network = rows * columns == 1 ? base : try tiledNetwork(base, rows: rows, columns: columns)
            var times: [Double] = []
            var router: Router? = nil
            let runs = network.edges.count < 50_000 ? 3 : 1
            for _ in 0..<runs {
                router = nil
                let t0 = nowNanoseconds()
                router = Router(network: network)
                times.append(Double(nowNanoseconds() - t0) / 1e9)
            }
            let prep = Stats(times).median
            let info = router?.hierarchyStatistics()
            print("\("andorra \(rows)x\(columns)".padded(22)) \(fmt(Double(network.edges.count), 0, width: 9)) "
                  + "\(fmt(Double(info?.turnNodes ?? 0), 0, width: 12)) \(fmt(prep, 2, width: 7)) "
                  + "\(fmt(Double(network.edges.count) / prep, 0, width: 10)) \(fmt(Double(info?.shortcuts ?? 0), 0, width: 10)) "
                  + "\(fmt(Double(info?.coreSize ?? 0), 0, width: 5))")
        }
    }

    static func queries() throws {
        let maps = ["Samples/bellevue-issue147.osm.gz", "Tests/RoadSnapCoreTests/Fixtures/osm/monaco.osm.pbf",
                    "Tests/RoadSnapCoreTests/Fixtures/osm/andorra.osm.pbf"]
        print("one thread, release build; pairs = random road vertices; latency per query after 200 warm-up queries")
        print("map                      edges  prep s  query                          queries/s    p50 ms    p99 ms   ok")
        for path in maps {
            let network = try MapLoader.load(path: repoPath(path))
            let t0 = nowNanoseconds()
            let router = Router(network: network)
            let prep = Double(nowNanoseconds() - t0) / 1e9
            let dijkstra = Router(network: network, algorithm: .dijkstra)
            var rng = SplitMix(seed: 7)
            func vertex() -> Waypoint {
                Waypoint(coordinate: network.shape[Int(rng.unit() * Double(network.shape.count)) % network.shape.count])
            }
            let pairs = (0..<2000).map { _ in (vertex(), vertex()) }
            let name = String(path.split(separator: "/").last ?? "")
            func row(_ label: String, _ n: Int, _ body: (Waypoint, Waypoint) -> Bool) {
                for (a, b) in pairs.prefix(200) { _ = body(a, b) }
                var samples: [Double] = []
                var ok = 0
                for (a, b) in pairs.prefix(n) {
                    let t = nowNanoseconds()
                    if body(a, b) { ok += 1 }
                    samples.append(Double(nowNanoseconds() - t))
                }
                let s = Stats(samples)
                let mean = samples.reduce(0, +) / Double(samples.count)
                print("\(name.padded(22)) \(fmt(Double(network.edges.count), 0, width: 7)) \(fmt(prep, 2, width: 7))  "
                      + "\(label.padded(28)) \(fmt(1e9 / mean, 0, width: 11)) \(fmt(s.median / 1e6, 3, width: 9)) "
                      + "\(fmt(s.p99 / 1e6, 3, width: 9)) \(fmt(100 * Double(ok) / Double(n), 0, width: 4))%")
            }
            row("route (CH, steps)", 2000) { a, b in
                router.route(RouteRequest(waypoints: [a, b])).status == .ok
            }
            row("cost (CH)", 2000) { a, b in router.cost(from: a, to: b) != nil }
            row("cost (Dijkstra, baseline)", 2000) { a, b in dijkstra.cost(from: a, to: b) != nil }
            let mismatches = pairs.filter { router.cost(from: $0.0, to: $0.1) != dijkstra.cost(from: $0.0, to: $0.1) }.count
            print("\(name.padded(22)) CH and Dijkstra costs differ on \(mismatches) of \(pairs.count) pairs")
        }
    }
}

/// A large road network made by tiling a real extract: `rows` x `columns` copies of `base` shifted by its own extent,
/// each tile joined to its east and north neighbours by two-way connector roads (one per 1/`joins` of the border,
/// between the border-most junctions of the two tiles). Turn restrictions are not copied.
func tiledNetwork(_ base: RoadNetwork, rows: Int, columns: Int, joins: Int = 24) throws -> RoadNetwork {
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
