import CShims
import RoadSnapBridge
import RoadSnapCore
import RoadSnapFormats

/// Snap throughput per GPS fix on the sample map: the real drive replayed and uniformly random fixes in the map's
/// box, through the GEOS-indexed path (cell cache of STRtree results; and the STRtree queried per fix as baseline).
enum SnapBenchmark {
    static func run(_ args: [String]) throws {
        let network = try MapLoader.load(path: repoPath("Samples/bellevue-issue147.osm.gz"))
        let track = try TrackReader.read(path: repoPath("Samples/newson-krumm-bellevue.csv"))
        let snapper = try Snapper(network: network)
        print("map: Samples/bellevue-issue147.osm.gz  \(network.edges.count) edges, \(network.index.segmentCount) segments, \(network.index.cachedCellCount) cached cells")
        var rng = SplitMix64(seed: 42)
        let b = network.bounds
        var randomLat: [Double] = [], randomLon: [Double] = []
        for _ in 0..<100_000 {
            randomLat.append(b.minLatitude + (b.maxLatitude - b.minLatitude) * rng.unit())
            randomLon.append(b.minLongitude + (b.maxLongitude - b.minLongitude) * rng.unit())
        }
        // The drive is replayed 20 times per iteration so one iteration is long enough to time.
        let driveLat = Array(repeating: track.fixes.map(\.coordinate.latitude), count: 20).flatMap { $0 }
        let driveLon = Array(repeating: track.fixes.map(\.coordinate.longitude), count: 20).flatMap { $0 }
        let radius = Snapper.defaultRadius
        print("radius \(Int(radius)) m, one thread, release build; ns/fix: median and p99 over timed iterations")
        print("workload        path                          fixes/s   median ns   p99 ns   snapped")
        for (name, lat, lon) in [("real drive", driveLat, driveLon), ("random in box", randomLat, randomLon)] {
            var xs: [Double] = [], ys: [Double] = []
            try snapper.frame.forward(latitudes: lat, longitudes: lon, x: &xs, y: &ys)
            let n = xs.count
            var out = [rsc_candidate](repeating: rsc_candidate(), count: n)
            var snapped = 0
            var results: [(String, Stats)] = []
            for (label, cache) in [("GEOS STRtree per fix (base)", false), ("GEOS STRtree + cell cache", true)] {
                let stats = try measure(items: n, minIterations: cache ? 30 : 5) {
                    snapped = try snapAll(snapper.query, xs, ys, radius: radius, useCache: cache, into: &out)
                }
                results.append((label, stats))
                print("\(name.padded(15)) \(label.padded(28)) \(fmt(1e9 / stats.median, 0, width: 10)) \(fmt(stats.median, 1, width: 11)) \(fmt(stats.p99, 1, width: 8)) \(fmt(100 * Double(snapped) / Double(n), 1, width: 8))%")
            }
            // Whole Swift path: PROJ projection of lat/lon + C batch snap + result values.
            let fixes = zip(lat, lon).prefix(20_000).map { Fix(coordinate: GeoCoordinate(uncheckedLatitude: $0, longitude: $1)) }
            let full = try measure(items: fixes.count, minIterations: 10) { _ = try snapper.snap(fixes, radius: radius) }
            print("\(name.padded(15)) \("Snapper.snap (PROJ+C+Swift)".padded(28)) \(fmt(1e9 / full.median, 0, width: 10)) \(fmt(full.median, 1, width: 11)) \(fmt(full.p99, 1, width: 8))")
            // Per-fix latency: each fix timed on its own (includes ~20-30 ns of clock reads).
            var latencies: [Double] = []
            latencies.reserveCapacity(n)
            try xs.withUnsafeBufferPointer { x in
                try ys.withUnsafeBufferPointer { y in
                    try out.withUnsafeMutableBufferPointer { o in
                        guard let xb = x.baseAddress, let yb = y.baseAddress, let ob = o.baseAddress else { return }
                        for i in 0..<min(n, 1000) { _ = try snapper.query.snapBatchRaw(x: xb + i, y: yb + i, course: nil, count: 1, radius: radius, into: ob) }
                        for i in 0..<n {
                            let t0 = nowNanoseconds()
                            _ = try snapper.query.snapBatchRaw(x: xb + i, y: yb + i, course: nil, count: 1, radius: radius, into: ob)
                            latencies.append(Double(nowNanoseconds() - t0))
                        }
                    }
                }
            }
            let lat = Stats(latencies)
            print("\(name.padded(15)) \("per-fix latency, cell cache".padded(28)) \(fmt(1e9 / lat.median, 0, width: 10)) \(fmt(lat.median, 1, width: 11)) \(fmt(lat.p99, 1, width: 8))")
            let ratio = results[0].1.median / results[1].1.median
            print("\(name.padded(15)) cell cache speed-up over per-fix STRtree query: \(fmt(ratio, 2, width: 0))x")
        }
    }
}

/// One C batch-snap call over all points (no allocation per fix).
func snapAll(_ query: SegmentQuery, _ xs: [Double], _ ys: [Double], radius: Double, useCache: Bool,
             into out: inout [rsc_candidate]) throws -> Int
{
    try xs.withUnsafeBufferPointer { x in
        try ys.withUnsafeBufferPointer { y in
            try out.withUnsafeMutableBufferPointer { o in
                guard let xb = x.baseAddress, let yb = y.baseAddress, let ob = o.baseAddress else { return 0 }
                return try query.snapBatchRaw(x: xb, y: yb, course: nil, count: min(xs.count, o.count), radius: radius,
                                              useCache: useCache, into: ob)
            }
        }
    }
}

extension String {
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
