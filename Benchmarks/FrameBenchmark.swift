import CShims

/// The cost of a map's local frame (rsc_frame_create + rsc_frame_destroy, and rsc_frame_clone), paid by every
/// snapper, matcher, stream matcher and renderer made on a map. "same centre": the case of many of them on one map,
/// served by the spare frames rsc_frame_destroy keeps; "new centres": every frame for a centre not seen before
/// (the first frame of each map), made by PROJ from its pipeline string. Reported per frame and as the ratio.
enum FrameBenchmark {
    static func run(_ args: [String]) throws {
        var err = [CChar](repeating: 0, count: 256)
        let frames = 500
        var shift = 0.0
        func makeAndDrop(_ lat: Double, _ lon: Double) throws {
            guard let f = rsc_frame_create(lat, lon, &err, err.count) else { throw BenchFailure.frame }
            rsc_frame_destroy(f)
        }
        let same = try measure(items: frames, minIterations: 5) {
            for _ in 0..<frames { try makeAndDrop(48.5113, 2.964) }
        }
        let fresh = try measure(items: frames, minIterations: 5) {
            for _ in 0..<frames {
                shift += 1e-7
                try makeAndDrop(48.5113 + shift, 2.964)
            }
        }
        guard let base = rsc_frame_create(47.5757, -122.133, &err, err.count) else { throw BenchFailure.frame }
        defer { rsc_frame_destroy(base) }
        let clone = try measure(items: frames, minIterations: 5) {
            for _ in 0..<frames {
                guard let c = rsc_frame_clone(base) else { throw BenchFailure.frame }
                rsc_frame_destroy(c)
            }
        }
        print("frame, same centre: \(fmt(same.median / 1000, 2)) us (p99 \(fmt(same.p99 / 1000, 2)))")
        print("frame, new centres: \(fmt(fresh.median / 1000, 2)) us (p99 \(fmt(fresh.p99 / 1000, 2)))")
        print("clone:              \(fmt(clone.median / 1000, 2)) us (p99 \(fmt(clone.p99 / 1000, 2)))")
        print("new centre / same centre: \(fmt(fresh.median / same.median, 0, width: 0))x")
    }

    enum BenchFailure: Error { case frame }
}
