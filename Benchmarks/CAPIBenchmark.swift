import RoadSnapCAPI
import RoadSnapCHeader
import RoadSnapCore
import RoadSnapFormats

/// The C API's batch snap (`rs_snapper_snap_batch`, called through its C declaration) against the Swift path it
/// wraps (`Snapper.snap(_ fixes:)`), same fixes, same process; `make capi-bench` also runs a C program doing the same.
enum CAPIBenchmark {
    static func run(_ args: [String]) throws {
        let mapPath = repoPath("Samples/bellevue-issue147.osm.gz")
        let network = try MapLoader.load(path: mapPath)
        let track = try TrackReader.read(path: repoPath("Samples/newson-krumm-bellevue.csv"))
        let snapper = try Snapper(network: network)
        var map: OpaquePointer?, csnapper: OpaquePointer?
        guard rs_map_open(mapPath, &map) == RS_OK, rs_snapper_create(map, 0, &csnapper) == RS_OK else {
            throw RoadSnapError.internalError(String(cString: rs_last_error_message()))
        }
        defer { _ = rs_snapper_destroy(csnapper); _ = rs_map_close(map) }

        var rng = SplitMix(seed: 42)
        let b = network.bounds
        let random = (0..<100_000).map { _ in
            Fix(coordinate: GeoCoordinate(uncheckedLatitude: b.minLatitude + (b.maxLatitude - b.minLatitude) * rng.unit(),
                                          longitude: b.minLongitude + (b.maxLongitude - b.minLongitude) * rng.unit()))
        }
        // The drive is replayed 20 times per iteration so one iteration is long enough to time.
        let drive = Array(Array(repeating: track.fixes, count: 20).joined())
        print("radius \(Int(Snapper.defaultRadius)) m, one thread, release build; ns/fix: median and p99 over timed iterations")
        print("workload        path                               fixes/s   median ns   p99 ns")
        for (name, key, fixes) in [("real drive", "real_drive", drive), ("random in box", "random_in_box", random)] {
            let cfixes = fixes.map(rs_fix.init)
            var out = [rs_snap_result](repeating: rs_snap_result(), count: cfixes.count)
            // The two batch paths alternate call by call (3 warm-up pairs, then >= 20 pairs and 2 s), so the
            // machine's load falls on both alike; the ratio is of their medians.
            var swiftSamples: [Double] = [], cSamples: [Double] = []
            for _ in 0..<3 {
                _ = try snapper.snap(fixes)
                _ = rs_snapper_snap_batch(csnapper, cfixes, cfixes.count, &out, nil)
            }
            let start = nowNanoseconds()
            while swiftSamples.count < 20 || nowNanoseconds() - start < 2_000_000_000 {
                let t0 = nowNanoseconds()
                _ = try snapper.snap(fixes)
                let t1 = nowNanoseconds()
                _ = rs_snapper_snap_batch(csnapper, cfixes, cfixes.count, &out, nil)
                let t2 = nowNanoseconds()
                swiftSamples.append(Double(t1 - t0) / Double(fixes.count))
                cSamples.append(Double(t2 - t1) / Double(fixes.count))
            }
            let swift = Stats(swiftSamples), c = Stats(cSamples)
            let one = measure(items: 1000, minIterations: 10) {
                for i in 0..<1000 { _ = rs_snapper_snap(csnapper, [cfixes[i]], &out[i]) }
            }
            for (label, s) in [("Snapper.snap(_ fixes:) (Swift)", swift), ("rs_snapper_snap_batch (C ABI)", c),
                               ("rs_snapper_snap, one call per fix", one)]
            {
                print("\(name.padded(15)) \(label.padded(33)) \(fmt(1e9 / s.median, 0, width: 10)) \(fmt(s.median, 1, width: 11)) \(fmt(s.p99, 1, width: 8))")
            }
            print("\(name.padded(15)) C batch / Swift path throughput: \(fmt(swift.median / c.median, 2, width: 0))x")
            print("CAPI_SWIFT_FIXES_PER_SEC \(key) \(Int(1e9 / swift.median))")
        }
    }
}
