import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// Map-matching accuracy (route mismatch on Kubicka tracks at 1 s, 10 s, 30 s and 60 s sampling) and throughput per
/// fix at each rate (one thread, the match call alone, warm-up excluded; fixes counted after subsampling) on the
/// Kubicka tracks, and on the sample drive.
/// Extra arguments: `name=value` overrides a matching parameter (sigma, beta, radius, candidates, factor, floor, uturn,
/// back, beam, outliers, gap, speed, hold, huber, disconnect, raise); `autosigma` uses each track's own sigma estimate;
/// `noise=M` adds seeded Gaussian noise of M metres to every fix; `only=NNN` keeps the tracks whose name ends so;
/// `verbose` prints per-track figures and `debug=NNN` the sub-matches and truth/match sequences of one track (with
/// `fixes=A-B`, also the matched edge, distance and offset of fixes A...B);
/// `sparse` adds 120 s sampling; `rates=1,30` runs only those samplings (seconds; 1 is the track as recorded); `notimes` drops the fixes' times (after subsampling); `quick` runs 5 instead of 30
/// timed iterations; `notiming` skips throughput; `wall` times by the wall clock instead of the thread's CPU time; `tracks=DIR` reads every track folder under DIR instead of the 20
/// fixtures (`only=` filters those too); `nosample` skips the sample drive; `dump=FILE` writes every result in full
/// (sub-matches with their steps, every fix's arc, offset and distance) to FILE, to diff two builds' outputs.
enum MatchBenchmark {
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(2)
        return parts.joined(separator: "/")
    }()

    static func parameters(_ args: [String]) -> MatchParameters {
        var p = MatchParameters()
        for a in args {
            let kv = a.split(separator: "=")
            guard kv.count == 2, let v = Double(kv[1]) else { continue }
            switch kv[0] {
            case "sigma": p.sigma = v
            case "beta": p.beta = v
            case "betaPerSecond": p.betaPerSecond = v
            case "radius": p.radius = v
            case "candidates": p.maxCandidates = Int(v)
            case "factor": p.distanceFactor = v
            case "floor": p.searchFloor = v
            case "uturn": p.uturnPenalty = v
            case "back": p.backwardTolerance = v
            case "beam": p.beam = v
            case "outliers": p.maxOutliers = Int(v)
            case "window": p.outlierWindow = v
            case "gap": p.maxGap = v
            case "speed": p.maxSpeed = v
            case "hold": p.minFixDistance = v
            case "raise": p.raiseSigmaToTrack = v != 0
            case "huber": p.huber = v
            case "disconnect": p.disconnectMargin = v
            case "joint": p.jointSearchInterval = v
            case "jointbeam": p.jointSearchBeam = v
            case "recovery": p.recoveryRadius = v
            case "skip": p.outlierPenalty = v
            default: break
            }
        }
        return p
    }

    /// Track folders: the 20 fixtures, or with `tracks=DIR[,DIR...]` every folder under those holding NAME/NAME.track
    /// (e.g. the subset plus more50.tar.xz unpacked elsewhere: the 70-track development set).
    static func trackDirectories(_ args: [String]) -> [String] {
        var dirs: [String] = []
        let roots = args.compactMap { $0.hasPrefix("tracks=") ? String($0.dropFirst(7)) : nil }
            .flatMap { $0.split(separator: ",").map(String.init) }
        if roots.isEmpty {
            let dir = root + "/Tests/RoadSnapCoreTests/Fixtures/kubicka"
            dirs = ["00000005", "00000006", "00000007", "00000014", "00000026", "00000027", "00000039", "00000045",
                    "00000046", "00000048", "00000050", "00000052", "00000067", "00000068", "00000070", "00000072",
                    "00000075", "00000085", "00000090", "00000095"].map { dir + "/" + $0 }
        } else {
            for r in roots {
                guard let d = opendir(r) else { print("cannot read \(r)"); continue }
                while let e = readdir(d) {
                    let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    if name.hasPrefix(".") { continue }
                    if access(r + "/" + name + "/" + name + ".track", R_OK) == 0 { dirs.append(r + "/" + name) }
                }
                closedir(d)
            }
        }
        let only = args.compactMap { $0.hasPrefix("only=") ? String($0.dropFirst(5)) : nil }
            .flatMap { $0.split(separator: ",").map(String.init) }
        return dirs.filter { n in only.isEmpty || only.contains { n.hasSuffix($0) } }
            .sorted { $0.split(separator: "/").last! < $1.split(separator: "/").last! }
    }

    /// Wall time with `wall`, else this thread's CPU time: on the shared 2-core machine other builds preempt the
    /// benchmark, and CPU time leaves their share out (one thread either way).
    static let clock: clockid_t = CommandLine.arguments.contains("wall") ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Per sampling rate: totals over the tracks.
    struct Row {
        var mismatch = RouteMismatch(truthLength: 0, missingLength: 0, extraLength: 0)
        var perTrack = ""
        var fixes = 0, seconds = 0.0, snapFixes = 0, snapSeconds = 0.0
        var perFix: [Double] = []
    }

    static func run(_ args: [String]) throws {
        let params = parameters(args)
        let verbose = args.contains("verbose")
        let dirs = trackDirectories(args)
        var intervals = args.contains("sparse") ? [0.0, 10.0, 30.0, 60.0, 120.0] : [0.0, 10.0, 30.0, 60.0]
        if let r = args.first(where: { $0.hasPrefix("rates=") }) {
            intervals = r.dropFirst(6).split(separator: ",").compactMap { Double($0) }.map { $0 <= 1 ? 0 : $0 }
        }
        let iterations = args.contains("quick") ? 5 : 30
        let timed = !args.contains("notiming")
        var rows = [Row](repeating: Row(), count: intervals.count)
        let dumpPath = args.first { $0.hasPrefix("dump=") }.map { String($0.dropFirst(5)) }
        var dump = ""
        // One track at a time (the 70-track set's networks do not all fit at once): accuracy, then throughput.
        for dir in dirs {
            let k = try KubickaTrack.load(directory: dir)
            let m = try MapMatcher(network: k.network, parameters: params)
            let snapper = try Snapper(network: k.network)
            let lengths = k.network.lengthsBySourceID()
            for (r, interval) in intervals.enumerated() {
                var track = interval > 0 ? k.track.subsampled(every: interval) : k.track
                if args.contains("notimes") { for i in track.fixes.indices { track.fixes[i].time = nil } }
                if let noise = args.first(where: { $0.hasPrefix("noise=") }).flatMap({ Double($0.dropFirst(6)) }) {
                    track = noisy(track, sigma: noise)
                }
                if args.contains("autosigma"), let est = try m.estimateSigma(track) {
                    m.parameters.sigma = est
                    m.parameters.raiseSigmaToTrack = false
                }
                let result = try m.match(track)
                let ids = result.subMatches.flatMap { result.edgeSourceIDs(of: $0, in: k.network) }
                let score = RouteMismatch(truth: k.truth, matched: ids) { lengths[$0] ?? 0 }
                rows[r].mismatch = rows[r].mismatch + score
                if dumpPath != nil { dump += dumpText(result, name: k.name, interval: interval) }
                if args.contains("debug=" + k.name.suffix(3)) && (interval == 0 || args.contains("all")) {
                    debug(result, k, score: score, ids: ids, args)
                }
                rows[r].perTrack += " \(k.name.suffix(3))=\(fmt(score.fraction * 100, 2))%/\(result.subMatches.count)"
                    + "/\(Int(score.missingLength + score.extraLength))m"
                if timed {
                    // Throughput: the match call alone, one thread, after a warm-up; baseline: plain nearest-road
                    // snapping of the same fixes in the same process.
                    for _ in 0..<2 { _ = try m.match(track); _ = try snapper.snap(track.fixes) }
                    for _ in 0..<iterations {
                        let t0 = now()
                        _ = try m.match(track)
                        let dt = now() - t0
                        rows[r].perFix.append(dt / Double(max(1, track.fixes.count)) * 1e9)
                        rows[r].fixes += track.fixes.count
                        rows[r].seconds += dt
                        let t1 = now()
                        _ = try snapper.snap(track.fixes)
                        rows[r].snapSeconds += now() - t1
                        rows[r].snapFixes += track.fixes.count
                    }
                }
                m.parameters = params
            }
        }
        if let dumpPath { try AtomicFile.write(dump, to: dumpPath) }
        for (r, interval) in intervals.enumerated() {
            let label = interval == 0 ? "1 s" : "\(Int(interval)) s"
            var line = "kubicka \(label) route mismatch \(fmt(rows[r].mismatch.fraction * 100, 3))%"
                + " (length-weighted over \(dirs.count) tracks)"
            if timed {
                var perFix = rows[r].perFix
                perFix.sort()
                let rate = Double(rows[r].fixes) / rows[r].seconds, snap = Double(rows[r].snapFixes) / rows[r].snapSeconds
                line += "; \(fmt(rate, 0)) fixes/s, ns/fix median \(fmt(perFix[perFix.count / 2], 0))"
                    + " p99 \(fmt(perFix[min(perFix.count - 1, perFix.count * 99 / 100)], 0)) (\(iterations) runs of"
                    + " \(rows[r].fixes / iterations) fixes); snapping \(fmt(snap, 0)) fixes/s, match/snap time"
                    + " \(fmt(snap / rate, 2))"
            }
            print(line)
            if verbose { print("  per track (mismatch/sub-matches/metres wrong):" + rows[r].perTrack) }
        }
        if args.contains("nosample") { return }
        let network = try MapLoader.load(path: root + "/Samples/bellevue-issue147.osm.gz")
        let drive = try TrackReader.read(path: root + "/Samples/newson-krumm-bellevue.csv")
        let sample = try throughput([(network, drive)], matchers: [try MapMatcher(network: network, parameters: params)],
                                    iterations: iterations * 4)
        print("sample drive throughput: " + sample)
    }

    /// One result in full, exactly (doubles as their shortest exact text): for diffing two builds' outputs.
    static func dumpText(_ result: MatchResult, name: String, interval: Double) -> String {
        var out = "track \(name) every \(interval) sigma \(result.parameters.sigma)\n"
        for s in result.subMatches {
            out += "sub \(s.firstFix) \(s.lastFix) \(s.matchedFixCount) \(s.length) \(s.confidence)\n"
            out += s.steps.map { "\($0.arc):\($0.from):\($0.to)" }.joined(separator: " ") + "\n"
        }
        for (i, f) in result.fixes.enumerated() {
            if let f { out += "fix \(i) \(f.arc) \(f.subMatch) \(f.offset) \(f.along) \(f.distance)\n" }
        }
        return out
    }

    static func debug(_ result: MatchResult, _ k: KubickaTrack, score: RouteMismatch, ids: [EdgeSourceID],
                      _ args: [String]) {
        print("  sigma used \(result.parameters.sigma)")
        for s in result.subMatches { print("  sub fixes \(s.firstFix)...\(s.lastFix) matched \(s.matchedFixCount) len \(Int(s.length)) conf \(s.confidence)") }
        let unmatched = result.fixes.indices.filter { result.fixes[$0] == nil }
        if let r = args.first(where: { $0.hasPrefix("fixes=") }) {
            let b = r.dropFirst(6).split(separator: "-").compactMap { Int($0) }
            for i in b[0]...min(b[1], result.fixes.count - 1) {
                if let f = result.fixes[i] {
                    print("  fix \(i) edge \(k.network.edges[f.edge].sourceID) sub \(f.subMatch) d \(fmt(f.distance, 1)) off \(fmt(f.offset, 1))")
                } else { print("  fix \(i) unmatched") }
            }
        }
        print("  unmatched fixes: \(unmatched)")
        let got = Set(ids.map { $0.description }), want = Set(k.truth.map { $0.description })
        print("  missing: \(k.truth.map { $0.description }.filter { !got.contains($0) })")
        print("  extra: \(ids.map { $0.description }.filter { !want.contains($0) })")
        let truthText = k.truth.map { $0.description }
        print("  truth: " + truthText.map { got.contains($0) ? $0 : "[\($0)]" }.joined(separator: " "))
        print("  match: " + ids.map { want.contains($0.description) ? $0.description : "<\($0)>" }.joined(separator: " "))
    }

    /// "N fixes/s, ns/fix median M p99 P; baseline snapping B fixes/s (ratio R)" over `iterations` runs per track.
    static func throughput(_ work: [(RoadNetwork, Track)], matchers: [MapMatcher], iterations: Int) throws -> String {
        var perFix: [Double] = []
        var fixes = 0, seconds = 0.0, snapFixes = 0, snapSeconds = 0.0
        for ((network, track), m) in zip(work, matchers) {
            let snapper = try Snapper(network: network)
            for _ in 0..<3 { _ = try m.match(track); _ = try snapper.snap(track.fixes) }  // warm-up
            for _ in 0..<iterations {
                let t0 = now()
                _ = try m.match(track)
                let dt = now() - t0
                perFix.append(dt / Double(track.fixes.count) * 1e9)
                fixes += track.fixes.count
                seconds += dt
                let t1 = now()
                _ = try snapper.snap(track.fixes)
                snapSeconds += now() - t1
                snapFixes += track.fixes.count
            }
        }
        perFix.sort()
        let rate = Double(fixes) / seconds, snapRate = Double(snapFixes) / snapSeconds
        return "\(fmt(rate, 0)) fixes/s, ns/fix median \(fmt(perFix[perFix.count / 2], 0))"
            + " p99 \(fmt(perFix[min(perFix.count - 1, perFix.count * 99 / 100)], 0)) (\(iterations) runs of each track);"
            + " baseline nearest-road snapping \(fmt(snapRate, 0)) fixes/s, matching/snapping time ratio"
            + " \(fmt(snapRate / rate, 2))"
    }

    /// The track with seeded Gaussian noise of `sigma` metres added to every fix (for robustness runs).
    static func noisy(_ track: Track, sigma: Double) -> Track {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Double(state >> 11) + 0.5) / 9007199254740992.0
        }
        var out = track
        for i in out.fixes.indices {
            let r = sigma * (-2 * log(uniform())).squareRoot(), a = 2 * Double.pi * uniform()
            let c = out.fixes[i].coordinate
            let dLat = r * cos(a) / 111_320, dLon = r * sin(a) / (111_320 * cos(c.latitude * Double.pi / 180))
            out.fixes[i].coordinate = GeoCoordinate(uncheckedLatitude: c.latitude + dLat, longitude: c.longitude + dLon)
        }
        return out
    }

    static func fmt(_ v: Double, _ digits: Int) -> String {
        var s = 1.0
        for _ in 0..<digits { s *= 10 }
        let r = (v * s).rounded() / s
        return digits == 0 ? String(Int(r)) : String(r)
    }
}
