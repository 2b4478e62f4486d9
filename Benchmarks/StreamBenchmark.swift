import Foundation
import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// The matching engine's incremental mode (`StreamMatcher`) against its batch run (`MapMatcher`), the figures of
/// docs/matching-engine.md: agreement of the online answers at lag 0, 2, 5 and 10 with the batch matcher (share of
/// the fixes the batch matched that the stream places on the same directed arc) on the sample drive and, with
/// `tracks=DIR`, every Kubicka track under DIR (the dataset's own folders, `DIR/NNNNNNNN/NNNNNNNN.track` with its
/// `.nodes` and `.arcs`, not kubicka.py's converted ones), with the lag-5 misses by kind; then throughput on the sample drive, one thread, CPU time: the stream
/// (push + the lag-0 answer per fix), the batch matcher and a plain per-fix snap in the same run. `nosample` skips the
/// sample drive; `synth=FILE [synthmap=MAP]` adds the peers' synthetic tracks by noise level (held out, see
/// `synthAgreement`, with the share of answers on the true route); `quick` times fewer iterations; `soak=N` pushes N fixes (the drive replayed with shifting times) and
/// prints the stream's buffer bytes and the process RSS at the start and the end; `hold=M` gives both runs a minimum
/// fix distance of M metres (default: 2 sigma for the stream, derived from the track for the batch's second row).
enum StreamBenchmark {
    static let lags = [0, 2, 5, 10]

    struct Agreement {
        var same = [Int](repeating: 0, count: StreamBenchmark.lags.count)
        var total = [Int](repeating: 0, count: StreamBenchmark.lags.count)
        /// Fixes the batch left unmatched, and of them those the stream answers anyway (an answer it should not give).
        var unmatched = [Int](repeating: 0, count: StreamBenchmark.lags.count)
        var extra = [Int](repeating: 0, count: StreamBenchmark.lags.count)
        /// The lag-5 answers on another arc than the batch's, by kind: held with no scored fix among the 5 after it
        /// (the window holds no newer layer: a lag-0 answer in layers), held with one, scored, no answer; and of
        /// all, those on the twin of the batch's arc (the same road the other way, as a separate one-way edge).
        var misses5 = [Int](repeating: 0, count: 4)
        var twins5 = 0
        var next5 = 0
        /// Held with no scored fix in the window, where the batch puts the holding layer's own fix on another arc
        /// than the stream's answer: the chain moved after the window, not the placement.
        var chain5 = 0
        static func + (a: Agreement, b: Agreement) -> Agreement {
            var r = a
            for i in r.same.indices {
                r.same[i] += b.same[i]; r.total[i] += b.total[i]
                r.unmatched[i] += b.unmatched[i]; r.extra[i] += b.extra[i]
            }
            for i in r.misses5.indices { r.misses5[i] += b.misses5[i] }
            r.twins5 += b.twins5
            r.next5 += b.next5
            r.chain5 += b.chain5
            return r
        }
        var missText: String {
            let n = Double(max(1, total[StreamBenchmark.lags.firstIndex(of: 5) ?? 0]))
            let kinds = ["held, no scored fix in the window", "held, a scored fix in the window", "scored", "no answer"]
            return zip(kinds, misses5).map { "\($0) \(fmt(100 * Double($1) / n, 2, width: 0)) %" }.joined(separator: ", ")
                + "; on the twin arc \(fmt(100 * Double(twins5) / n, 2, width: 0)) %"
                + "; held without a scored fix, the batch on an arc leaving the stream's arc's head \(fmt(100 * Double(next5) / n, 2, width: 0)) %"
                + "; held without a scored fix, the batch's holding layer's fix on another arc \(fmt(100 * Double(chain5) / n, 2, width: 0)) %"
        }
        var text: String {
            zip(StreamBenchmark.lags, zip(same, total)).map { lag, st in
                "lag \(lag): \(fmt(100 * Double(st.0) / Double(max(1, st.1)), 2, width: 6)) %"
            }.joined(separator: "  ") + "  (\(total.first ?? 0) fixes)"
        }
        var extraText: String {
            "of the \(unmatched.first ?? 0) fixes the batch leaves unmatched, answered by the stream: "
                + zip(StreamBenchmark.lags, extra).map { "lag \($0) \($1)" }.joined(separator: ", ")
        }
    }

    /// Agreement with the batch run (`batch`, when the caller has it already), the stream given the defaults (as a live
    /// feed runs) and, second, the parameters the batch run derived from the whole track (its sigma, radius and minimum
    /// fix distance).
    static func agreement(network: RoadNetwork, graph: MatchGraph? = nil, track: Track, parameters: MatchParameters,
                          batch given: MatchResult? = nil, streamRaisesSigma: Bool? = nil) throws
        -> (defaults: Agreement, derived: Agreement)
    {
        let batch = try given ?? MapMatcher(network: network, graph: graph, parameters: parameters).match(track)
        var out: [Agreement] = []
        var streamDefaults = parameters
        if let streamRaisesSigma { streamDefaults.raiseSigmaToTrack = streamRaisesSigma }
        for streamParameters in [streamDefaults, batch.parameters] {
            let stream = try StreamMatcher(network: network, graph: graph, parameters: streamParameters,
                                           maxLag: lags.max() ?? 0)
            var a = Agreement()
            var lastScored = -1
            for (i, f) in track.fixes.enumerated() {
                try stream.push(f)
                if let now = stream.result(lag: 0), !now.held { lastScored = i }
                for (k, lag) in lags.enumerated() where lag <= i {
                    guard let b = batch.fixes[i - lag] else {
                        a.unmatched[k] += 1
                        if stream.result(lag: lag) != nil { a.extra[k] += 1 }
                        continue
                    }
                    a.total[k] += 1
                    let o = stream.result(lag: lag)
                    if let o, o.arc == b.arc {
                        a.same[k] += 1
                    } else if lag == 5 {
                        let kind = o.map { $0.held ? (lastScored > i - lag ? 1 : 0) : 2 } ?? 3
                        a.misses5[kind] += 1
                        if let o {
                            let e = network.edges[o.edge], g = network.edges[b.edge]
                            if e.fromNode == g.toNode, e.toNode == g.fromNode { a.twins5 += 1 }
                            let head = o.isForward ? e.toNode : e.fromNode
                            if kind == 0, head == (b.forward ? g.fromNode : g.toNode) { a.next5 += 1 }
                            if kind == 0, lastScored >= 0, let l = batch.fixes[lastScored],
                               l.edge != o.edge || l.forward != o.isForward { a.chain5 += 1 }
                        }
                    }
                }
            }
            out.append(a)
        }
        return (out[0], out[1])
    }

    /// `synth=FILE [synthmap=MAP]`: agreement on the peers' synthetic tracks (`match_peers.py synth`, JSON with
    /// `tracks[].points` as [lon, lat, time] and `meta.sigma_m`; not used for tuning), by noise level, the stream
    /// raising sigma to the feed's own estimate (the default) and keeping it as given, against the same batch run.
    static func synthAgreement(path: String, map: String, parameters: MatchParameters) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let doc = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let tracks = doc["tracks"] as? [[String: Any]]
        else { throw RoadSnapError.invalidArgument("\(path): no tracks[]") }
        let network = try MapLoader.load(path: map)
        let graph = try MatchGraph(network: network)
        var bySigma: [Double: (raised: Agreement, given: Agreement, tracks: Int)] = [:]
        // metres from the true route (the track's `truth.geometry`) of the batch run's matched points and of the lag-5
        // answers of the stream raising sigma and keeping it as given; infinite when a fix is left unanswered
        var errors: [Double: (batch: [Double], raised: [Double], given: [Double])] = [:]
        for t in tracks {
            guard let points = t["points"] as? [[Double]], let meta = t["meta"] as? [String: Any],
                  let sigma = meta["sigma_m"] as? Double
            else { continue }
            let fixes = points.filter { $0.count >= 3 }.map {
                Fix(coordinate: GeoCoordinate(uncheckedLatitude: $0[1], longitude: $0[0]), time: $0[2])
            }
            let track = Track(name: t["id"] as? String ?? "synth", fixes: fixes)
            let batch = try MapMatcher(network: network, graph: graph, parameters: parameters).match(track)
            let raised = try agreement(network: network, graph: graph, track: track, parameters: parameters,
                                       batch: batch).defaults
            let given = try agreement(network: network, graph: graph, track: track, parameters: parameters,
                                      batch: batch, streamRaisesSigma: false).defaults
            let old = bySigma[sigma] ?? (Agreement(), Agreement(), 0)
            bySigma[sigma] = (old.raised + raised, old.given + given, old.tracks + 1)
            if let line = (t["truth"] as? [String: Any])?["geometry"] as? [[Double]], line.count >= 2 {
                // metres from the true route (the truth's polyline), in a local equirectangular frame
                let lat0 = line[0][1] * .pi / 180, kx = 111_320 * cos(lat0), ky = 111_320.0
                let xs = line.map { $0[0] * kx }, ys = line.map { $0[1] * ky }
                func metres(_ c: GeoCoordinate) -> Double {
                    let px = c.longitude * kx, py = c.latitude * ky
                    var best = Double.infinity
                    for j in 1..<xs.count {
                        let ax = xs[j - 1], ay = ys[j - 1], dx = xs[j] - ax, dy = ys[j] - ay
                        let l2 = dx * dx + dy * dy
                        let u = l2 > 0 ? min(1, max(0, ((px - ax) * dx + (py - ay) * dy) / l2)) : 0
                        let ex = ax + u * dx - px, ey = ay + u * dy - py
                        best = min(best, ex * ex + ey * ey)
                    }
                    return best.squareRoot()
                }
                var e = errors[sigma] ?? ([], [], [])
                for m in batch.fixes { e.batch.append(m.map { metres($0.coordinate) } ?? .infinity) }
                for raise in [true, false] {
                    var p = parameters
                    p.raiseSigmaToTrack = raise
                    let stream = try StreamMatcher(network: network, graph: graph, parameters: p, maxLag: 5)
                    for (k, f) in fixes.enumerated() {
                        try stream.push(f)
                        guard k >= 5 else { continue }
                        let d = stream.result(lag: 5).map { metres($0.coordinate) } ?? .infinity
                        if raise { e.raised.append(d) } else { e.given.append(d) }
                    }
                }
                errors[sigma] = e
            }
        }
        for (sigma, a) in bySigma.sorted(by: { $0.key < $1.key }) {
            print("agreement, synthetic tracks, \(fmt(sigma, 0, width: 0)) m noise (\(a.tracks) tracks), sigma raised: \(a.raised.text)")
            print("agreement, synthetic tracks, \(fmt(sigma, 0, width: 0)) m noise (\(a.tracks) tracks), sigma as given: \(a.given.text)")
        }
        func onRoute(_ v: [Double]) -> String {
            let within = Double(v.filter { $0 <= 3 }.count), answered = Double(v.filter(\.isFinite).count)
            return "\(fmt(100 * within / Double(max(1, v.count)), 2, width: 0)) % on it, "
                + "\(fmt(100 * (answered - within) / Double(max(1, v.count)), 2, width: 0)) % off it"
        }
        for (sigma, e) in errors.sorted(by: { $0.key < $1.key }) {
            print("within 3 m of the true route, \(fmt(sigma, 0, width: 0)) m noise: batch \(onRoute(e.batch)); "
                  + "stream lag 5, sigma raised \(onRoute(e.raised)); sigma as given \(onRoute(e.given)) "
                  + "(the rest unanswered)")
        }
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
        var parameters = MatchParameters()
        // `hold=M`: the minimum fix distance given to both runs (default: nil, 2 sigma for the stream).
        if let h = args.first(where: { $0.hasPrefix("hold=") }).flatMap({ Double($0.dropFirst(5)) }) {
            parameters.minFixDistance = h
        }
        let sample = try MapLoader.load(path: repoPath("Samples/bellevue-issue147.osm.gz"))
        let drive = try TrackReader.read(path: repoPath("Samples/newson-krumm-bellevue.csv"))
        if !args.contains("nosample") {
            let a = try agreement(network: sample, track: drive, parameters: parameters)
            print("agreement, sample drive, defaults:            \(a.defaults.text)")
            print("agreement, sample drive, batch's parameters:  \(a.derived.text)")
            print("lag-5 misses, sample drive, defaults, share of fixes: \(a.defaults.missText)")
            print("sample drive, defaults: \(a.defaults.extraText)")
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
            print("lag-5 misses, Kubicka tracks, defaults, share of fixes: \(total.missText)")
            print("Kubicka tracks, defaults: \(total.extraText)")
        }
        if let synth = args.first(where: { $0.hasPrefix("synth=") }).map({ String($0.dropFirst(6)) }) {
            try synthAgreement(path: synth, map: args.first(where: { $0.hasPrefix("synthmap=") }).map {
                String($0.dropFirst(9))
            } ?? repoPath("../shared/data/graphhopper_mapmatching/osm/andorra.osm.pbf"), parameters: parameters)
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
