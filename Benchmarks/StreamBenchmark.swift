import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// The matching engine's incremental mode (`StreamMatcher`) against its batch run (`MapMatcher`), the figures of
/// docs/matching-engine.md: agreement of the online answers at lag 0, 2, 5 and 10 with the batch matcher (share of
/// the fixes the batch matched that the stream places on the same directed arc) on the sample drive and, with
/// `tracks=DIR`, every Kubicka track under DIR; then throughput on the sample drive, one thread, CPU time: the stream
/// (push + the lag-0 answer per fix), the batch matcher and a plain per-fix snap in the same run. `nosample` skips the
/// sample drive; `quick` times fewer iterations; `soak=N` pushes N fixes (the drive replayed with shifting times) and
/// prints the stream's buffer bytes and the process RSS at the start and the end.
enum StreamBenchmark {
    static let lags = [0, 2, 5, 10]

    struct Agreement {
        var same = [Int](repeating: 0, count: StreamBenchmark.lags.count)
        var total = [Int](repeating: 0, count: StreamBenchmark.lags.count)
        static func + (a: Agreement, b: Agreement) -> Agreement {
            var r = a
            for i in r.same.indices { r.same[i] += b.same[i]; r.total[i] += b.total[i] }
            return r
        }
        var text: String {
            zip(StreamBenchmark.lags, zip(same, total)).map { lag, st in
                "lag \(lag): \(fmt(100 * Double(st.0) / Double(max(1, st.1)), 2, width: 6)) %"
            }.joined(separator: "  ") + "  (\(total.first ?? 0) fixes)"
        }
    }

    /// Agreement with the batch run, the stream given the defaults (as a live feed runs) and, second, the parameters
    /// the batch run derived from the whole track (its sigma, radius and minimum fix distance).
    static func agreement(network: RoadNetwork, track: Track, parameters: MatchParameters) throws
        -> (defaults: Agreement, derived: Agreement)
    {
        let batch = try MapMatcher(network: network, parameters: parameters).match(track)
        var out: [Agreement] = []
        for streamParameters in [parameters, batch.parameters] {
            let stream = try StreamMatcher(network: network, parameters: streamParameters, maxLag: lags.max() ?? 0)
            var a = Agreement()
            for (i, f) in track.fixes.enumerated() {
                try stream.push(f)
                for (k, lag) in lags.enumerated() where lag <= i {
                    guard let b = batch.fixes[i - lag] else { continue }
                    a.total[k] += 1
                    if let o = stream.result(lag: lag), o.arc == 2 * b.edge + (b.forward ? 0 : 1) { a.same[k] += 1 }
                }
            }
            out.append(a)
        }
        return (out[0], out[1])
    }

    static func rssKilobytes() -> Int {
        guard let f = fopen("/proc/self/status", "r") else { return -1 }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, 256, f) != nil {
            let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if s.hasPrefix("VmRSS:") { return Int(s.split(separator: " ").dropFirst().first ?? "") ?? -1 }
        }
        return -1
    }

    static func run(_ args: [String]) throws {
        let parameters = MatchParameters()
        let sample = try MapLoader.load(path: repoPath("Samples/bellevue-issue147.osm.gz"))
        let drive = try TrackReader.read(path: repoPath("Samples/newson-krumm-bellevue.csv"))
        if !args.contains("nosample") {
            let a = try agreement(network: sample, track: drive, parameters: parameters)
            print("agreement, sample drive, defaults:            \(a.defaults.text)")
            print("agreement, sample drive, batch's parameters:  \(a.derived.text)")
        }
        let dirs = args.contains { $0.hasPrefix("tracks=") } ? MatchBenchmark.trackDirectories(args) : []
        if !dirs.isEmpty {
            var total = Agreement(), derived = Agreement()
            for dir in dirs {
                let k = try KubickaTrack.load(directory: dir)
                let a = try agreement(network: k.network, track: k.track, parameters: parameters)
                total = total + a.defaults
                derived = derived + a.derived
            }
            print("agreement, \(dirs.count) Kubicka tracks, defaults:           \(total.text)")
            print("agreement, \(dirs.count) Kubicka tracks, batch's parameters: \(derived.text)")
        }
        if let soak = args.first(where: { $0.hasPrefix("soak=") }).flatMap({ Int($0.dropFirst(5)) }) {
            let stream = try StreamMatcher(network: sample, parameters: parameters, maxLag: 10)
            let span = (drive.fixes.last?.time ?? 0) - (drive.fixes.first?.time ?? 0) + 120
            var pushed = 0, pass = 0, matched = 0
            var startRSS = 0, startBytes = 0
            while pushed < soak {
                for f in drive.fixes where pushed < soak {
                    var g = f
                    g.time = f.time.map { $0 + Double(pass) * span }
                    try stream.push(g)
                    if stream.result() != nil { matched += 1 }
                    pushed += 1
                    if pushed == drive.fixes.count { startRSS = rssKilobytes(); startBytes = stream.memoryBytes }
                }
                pass += 1
            }
            print("soak: \(pushed) fixes through the stream (lag 10), \(matched) matched at lag 0; stream buffers "
                  + "\(startBytes) -> \(stream.memoryBytes) bytes, RSS \(startRSS) -> \(rssKilobytes()) kB (after the first pass -> end)")
        }
        if args.contains("notiming") { return }
        let fixes = drive.fixes
        let iterations = args.contains("quick") ? 5 : 20
        let stream = try StreamMatcher(network: sample, parameters: parameters, maxLag: 5)
        let batch = try MapMatcher(network: sample, parameters: parameters)
        let snapper = try Snapper(network: sample)
        var sink = 0
        let streamStats = measure(items: fixes.count, minIterations: iterations) {
            stream.reset()
            for f in fixes {
                try? stream.push(f)
                if stream.result() != nil { sink += 1 }
            }
        }
        let batchStats = try measure(items: fixes.count, minIterations: iterations) {
            sink += try batch.match(drive).matchedCount
        }
        let snapStats = try measure(items: fixes.count, minIterations: iterations) {
            sink += try snapper.snap(fixes, radius: Snapper.defaultRadius).count
        }
        func line(_ name: String, _ s: Stats) -> String {
            "\(name) \(fmt(1e9 / s.median, 0, width: 9)) fixes/s  ns/fix median \(fmt(s.median, 0, width: 6)) p99 \(fmt(s.p99, 0, width: 6))"
        }
        print("throughput, sample drive (\(fixes.count) fixes, one thread, wall clock, \(streamStats.count)+ iterations):")
        print(line("  stream (push + lag-0 answer)", streamStats) + "  x\(fmt(snapStats.median / streamStats.median, 2, width: 4)) of snap")
        print(line("  batch matcher               ", batchStats) + "  x\(fmt(snapStats.median / batchStats.median, 2, width: 4)) of snap")
        print(line("  per-fix snap (baseline)     ", snapStats))
        if sink == 42 { print("") }
    }
}
