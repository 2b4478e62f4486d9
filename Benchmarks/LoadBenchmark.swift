import CShims
import RoadSnapBridge
import RoadSnapCore
import RoadSnapFormats

/// Network build time (split, projection, GEOS index and cell cache) and snap speed on a tiled large network.
enum LoadBenchmark {
    static func run(_ args: [String]) throws {
        let base = try MapLoader.load(path: "Tests/RoadSnapCoreTests/Fixtures/osm/andorra.osm.pbf")
        for n in [1, 4, 10] {
            let t0 = nowNanoseconds()
            let net = try tiledNetwork(base, rows: n, columns: n)
            let seconds = Double(nowNanoseconds() - t0) / 1e9
            let snapper = try Snapper(network: net)
            var rng = SplitMix64(seed: 1)
            var lat: [Double] = [], lon: [Double] = []
            for _ in 0..<50_000 {
                let e = Int(rng.next() % UInt64(net.edges.count))
                let c = net.shape[net.edges[e].shapeStart]
                lat.append(c.latitude + (rng.unit() - 0.5) * 0.0004); lon.append(c.longitude + (rng.unit() - 0.5) * 0.0004)
            }
            var xs: [Double] = [], ys: [Double] = []
            try snapper.frame.forward(latitudes: lat, longitudes: lon, x: &xs, y: &ys)
            var out = [rsc_candidate](repeating: rsc_candidate(), count: xs.count)
            let s = try measure(items: xs.count, minIterations: 5) { _ = try snapAll(snapper.query, xs, ys, radius: 50, useCache: true, into: &out) }
            // The same fixes in a spatially coherent order (500 m strips, boustrophedon), as a drive visits them.
            let order = xs.indices.sorted { i, j in
                let ri = Int((ys[i] / 500).rounded(.down)), rj = Int((ys[j] / 500).rounded(.down))
                if ri != rj { return ri < rj }
                return ri % 2 == 0 ? xs[i] < xs[j] : xs[i] > xs[j]
            }
            let sx = order.map { xs[$0] }, sy = order.map { ys[$0] }
            let t = try measure(items: sx.count, minIterations: 5) { _ = try snapAll(snapper.query, sx, sy, radius: 50, useCache: true, into: &out) }
            print("\(n)x\(n): \(net.edges.count) edges, \(net.index.segmentCount) segments, \(net.index.cachedCellCount) cells, build \(fmt(seconds, 2, width: 0)) s, snap near roads \(fmt(1e9 / s.median, 0, width: 0)) fixes/s in random order, \(fmt(1e9 / t.median, 0, width: 0)) in strip order")
        }
    }
}
