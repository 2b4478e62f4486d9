import RoadSnapCore
import RoadSnapFormats

/// Route-choice queries (`Benchmarks alternatives`): per map, on the same random vertex pairs, one after the other
/// in one process, p50 and p99 latency of: the plain route (baseline), the route choice with 0, 1 and 3
/// alternatives (via-node method on the hierarchy), and the traffic-aware route (Dijkstra on re-weighted costs)
/// under a feed slowing every third way to 15 km/h, next to a plain Dijkstra router's route (its search alone). Also the share of pairs with at least one alternative, and the
/// mean overlap and stretch of the alternatives found.
enum AlternativesBenchmark {
    static func run(_ args: [String]) throws {
        let maps = ["Samples/bellevue-issue147.osm.gz", "Tests/RoadSnapCoreTests/Fixtures/osm/monaco.osm.pbf",
                    "Tests/RoadSnapCoreTests/Fixtures/osm/andorra.osm.pbf"]
        print("one thread, release build; 50 warm-up then 500 pairs of random road vertices per row")
        print("map                      edges  query                             p50 ms    p99 ms  ratio  found  overlap stretch")
        for path in maps {
            let network = try MapLoader.load(path: repoPath(path))
            let router = Router(network: network)
            var speeds: [Int64: Double] = [:]
            for e in network.edges { if case let .osmWay(id) = e.sourceID, id % 3 == 0 { speeds[id] = 15 } }
            let feed = try TrafficFeed(speedsKmh: speeds)
            var rng = SplitMix(seed: 19)
            func vertex() -> Waypoint {
                Waypoint(coordinate: network.shape[Int(rng.unit() * Double(network.shape.count)) % network.shape.count])
            }
            let pairs = (0..<550).map { _ in (vertex(), vertex()) }.filter { $0.0.coordinate != $0.1.coordinate }
            let name = String(path.split(separator: "/").last ?? "")
            var baseline = 0.0
            func row(_ label: String, _ body: (RouteRequest) -> RouteChoice?) {
                for (a, b) in pairs.prefix(50) { _ = body(RouteRequest(waypoints: [a, b])) }
                var samples: [Double] = []
                var found = 0, ok = 0
                var overlap = 0.0, stretch = 0.0, alternatives = 0
                for (a, b) in pairs.dropFirst(50) {
                    let t = nowNanoseconds()
                    let choice = body(RouteRequest(waypoints: [a, b]))
                    samples.append(Double(nowNanoseconds() - t))
                    guard let choice, choice.result.status == .ok else { continue }
                    ok += 1
                    if choice.options.count > 1 { found += 1 }
                    for o in choice.options.dropFirst() { overlap += o.overlap; stretch += o.stretch; alternatives += 1 }
                }
                let s = Stats(samples)
                if baseline == 0 { baseline = s.median }
                let foundText = label.contains("alternative") && !label.hasPrefix("choice, 0")
                    ? fmt(100 * Double(found) / Double(max(ok, 1)), 0, width: 5) + "%" : "     -"
                let shares = alternatives > 0
                    ? "\(fmt(overlap / Double(alternatives), 2, width: 8)) \(fmt(stretch / Double(alternatives), 2, width: 7))"
                    : "       -       -"
                print("\(name.padded(22)) \(fmt(Double(network.edges.count), 0, width: 7))  \(label.padded(30)) "
                      + "\(fmt(s.median / 1e6, 3, width: 9)) \(fmt(s.p99 / 1e6, 3, width: 9)) "
                      + "\(fmt(s.median / baseline, 2, width: 6)) \(foundText) \(shares)")
            }
            row("route (baseline)") { r in
                let result = router.route(r)
                return RouteChoice(result: result, options: [])
            }
            for count in [0, 1, 3] {
                let limits = try AlternativeRouteOptions(count: count)
                row("choice, \(count) alternative\(count == 1 ? "" : "s")") { r in
                    router.routeChoice(r, alternatives: limits)
                }
            }
            let dijkstra = Router(network: network, algorithm: .dijkstra)
            row("route, Dijkstra router") { r in RouteChoice(result: dijkstra.route(r), options: []) }
            row("route with traffic (Dijkstra)") { r in
                RouteChoice(result: router.route(r, traffic: feed), options: [])
            }
        }
    }
}
