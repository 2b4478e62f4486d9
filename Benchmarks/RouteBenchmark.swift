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
        var tilings = [(1, 1), (2, 2), (4, 4), (7, 7), (10, 10)]
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
            if let router, network.edges.count >= 100_000 { try largeQueries(router) }
        }
    }

    /// Cost queries on a large tiled network: CH latency, and CH against Dijkstra on 100 of the pairs.
    static func largeQueries(_ router: Router) throws {
        let network = router.network
        let dijkstra = Router(network: network, algorithm: .dijkstra, prepare: [])
        var rng = SplitMix(seed: 11)
        func vertex() -> Waypoint {
            Waypoint(coordinate: network.shape[Int(rng.unit() * Double(network.shape.count)) % network.shape.count])
        }
        let pairs = (0..<1200).map { _ in (vertex(), vertex()) }
        for (a, b) in pairs.prefix(200) { _ = router.cost(from: a, to: b) }
        var samples: [Double] = []
        for (a, b) in pairs.dropFirst(200) {
            let t = nowNanoseconds()
            _ = router.cost(from: a, to: b)
            samples.append(Double(nowNanoseconds() - t))
        }
        let s = Stats(samples)
        var slow: [Double] = []
        var mismatches = 0
        for (a, b) in pairs.prefix(100) {
            let t = nowNanoseconds()
            let reference = dijkstra.cost(from: a, to: b)
            slow.append(Double(nowNanoseconds() - t))
            if reference != router.cost(from: a, to: b) { mismatches += 1 }
        }
        print("  cost (CH) p50 \(fmt(s.median / 1e6, 3, width: 0)) ms, p99 \(fmt(s.p99 / 1e6, 3, width: 0)) ms "
              + "(1,000 pairs); cost (Dijkstra) p50 \(fmt(Stats(slow).median / 1e6, 1, width: 0)) ms; "
              + "CH and Dijkstra differ on \(mismatches) of 100 pairs")
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

/// A large road network made by tiling a real extract (see `RoadNetwork.tiled`).
func tiledNetwork(_ base: RoadNetwork, rows: Int, columns: Int, joins: Int = 24) throws -> RoadNetwork {
    try base.tiled(rows: rows, columns: columns, joins: joins)
}
