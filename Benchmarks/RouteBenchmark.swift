import RoadSnapCore
import RoadSnapFormats

/// Route queries per second on the sample extract and on Monaco: whole `Router.route` calls (snap both waypoints,
/// contraction-hierarchy search, path unpacking, geometry and steps) timed one by one, p50 and p99; and the cost
/// query alone (snap + search) against plain Dijkstra on the same pairs as the baseline.
enum RouteBenchmark {
    static func run(_ args: [String]) throws {
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
