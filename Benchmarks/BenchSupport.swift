import RoadSnapCore

#if canImport(Glibc)
import Glibc
#endif

/// Monotonic clock in nanoseconds.
@inline(__always)
func nowNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// CPU time of the whole process (all threads), seconds: on a shared machine a one-thread build's CPU time varies
/// far less with the load than its wall time.
func processCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Summary statistics of repeated measurements.
struct Stats {
    let median: Double
    let p99: Double
    let count: Int

    init(_ samples: [Double]) {
        let s = samples.sorted()
        count = s.count
        median = s.isEmpty ? .nan : s[s.count / 2]
        p99 = s.isEmpty ? .nan : s[min(s.count - 1, Int((Double(s.count) * 0.99).rounded(.up)) - 1)]
    }
}

/// Runs `body` (which processes `items` items) `warmup` times untimed, then until `minIterations` and `minSeconds`
/// are both reached; returns nanoseconds per item of each timed iteration.
func measure(items: Int, warmup: Int = 3, minIterations: Int = 20, minSeconds: Double = 1.0,
             _ body: () throws -> Void) rethrows -> Stats
{
    for _ in 0..<warmup { try body() }
    var samples: [Double] = []
    let start = nowNanoseconds()
    while samples.count < minIterations || Double(nowNanoseconds() - start) < minSeconds * 1e9 {
        let t0 = nowNanoseconds()
        try body()
        samples.append(Double(nowNanoseconds() - t0) / Double(max(items, 1)))
        if samples.count > 100_000 { break }
    }
    return Stats(samples)
}

/// Right-aligned number with `digits` decimals.
func fmt(_ v: Double, _ digits: Int = 0, width: Int = 10) -> String {
    var s: String
    if !v.isFinite { s = "nan" } else {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let r = (v * scale).rounded() / scale
        s = digits == 0 ? String(Int64(r)) : String(r)
        if digits > 0, let dot = s.firstIndex(of: ".") {
            let decimals = s.distance(from: dot, to: s.endIndex) - 1
            if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
        }
    }
    return String(repeating: " ", count: max(0, width - s.count)) + s
}

/// Path of a file in the repository (benchmarks run from the package root).
func repoPath(_ relative: String) -> String { relative }

/// Deterministic random numbers for repeatable workloads.
typealias SplitMix = SplitMix64
