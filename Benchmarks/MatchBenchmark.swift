import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// Map-matching accuracy (route mismatch on the Kubicka subset at 1 s, 10 s, 30 s sampling) and throughput per fix
/// (one thread, the match call alone, warm-up excluded) on the Kubicka subset and the sample drive.
/// Extra arguments: `name=value` overrides a matching parameter (sigma, beta, radius, candidates, factor, floor, uturn,
/// back, beam, outliers, gap, speed, hold, huber, disconnect, raise); `autosigma` uses each track's own sigma estimate;
/// `noise=M` adds seeded Gaussian noise of M metres to every fix; `only=NNN` keeps the tracks whose name ends so;
/// `verbose` prints per-track figures and `debug=NNN` the sub-matches and truth/match sequences of one track (with
/// `fixes=A-B`, also the matched edge, distance and offset of fixes A...B);
/// `sparse` adds 60 s and 120 s sampling; `notimes` drops the fixes' times (after subsampling); `quick` runs 5 instead of 30 timed iterations.
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
            case "gap": p.maxGap = v
            case "speed": p.maxSpeed = v
            case "hold": p.minFixDistance = v
            case "raise": p.raiseSigmaToTrack = v != 0
            case "huber": p.huber = v
            case "disconnect": p.disconnectMargin = v
            default: break
            }
        }
        return p
    }

    static func kubicka() throws -> [KubickaTrack] {
        let dir = root + "/Tests/RoadSnapCoreTests/Fixtures/kubicka"
        let names = ["00000005", "00000006", "00000007", "00000014", "00000026", "00000027", "00000039", "00000045",
                     "00000046", "00000048", "00000050", "00000052", "00000067", "00000068", "00000070", "00000072",
                     "00000075", "00000085", "00000090", "00000095"]
        let only = CommandLine.arguments.compactMap { $0.hasPrefix("only=") ? String($0.dropFirst(5)) : nil }
        return try names.filter { n in only.isEmpty || only.contains { n.hasSuffix($0) } }
            .map { try KubickaTrack.load(directory: dir + "/" + $0) }
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    static func run(_ args: [String]) throws {
        let params = parameters(args)
        let verbose = args.contains("verbose")
        let data = try kubicka()
        var matchers: [MapMatcher] = []
        for k in data { matchers.append(try MapMatcher(network: k.network, parameters: params)) }
        // Accuracy.
        for interval in (args.contains("sparse") ? [0.0, 10.0, 30.0, 60.0, 120.0] : [0.0, 10.0, 30.0]) {
            var total = RouteMismatch(truthLength: 0, missingLength: 0, extraLength: 0)
            var line = ""
            for (k, m) in zip(data, matchers) {
                var track = interval > 0 ? k.track.subsampled(every: interval) : k.track
                if args.contains("notimes") { for i in track.fixes.indices { track.fixes[i].time = nil } }
                if let noise = args.first(where: { $0.hasPrefix("noise=") }).flatMap({ Double($0.dropFirst(6)) }) {
                    track = noisy(track, sigma: noise)
                }
                if args.contains("autosigma"), let est = m.estimateSigma(track) {
                    m.parameters.sigma = est
                    m.parameters.raiseSigmaToTrack = false
                    if verbose { print("  \(k.name) sigma \(fmt(est, 2))") }
                }
                let result = try m.match(track)
                m.parameters = params
                let ids = result.subMatches.flatMap { result.edgeSourceIDs(of: $0, in: k.network) }
                let lengths = k.network.lengthsBySourceID()
                let score = RouteMismatch(truth: k.truth, matched: ids) { lengths[$0] ?? 0 }
                total = total + score
                if args.contains("debug=" + k.name.suffix(3)) && (interval == 0 || args.contains("all")) {
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
                line += " \(k.name.suffix(3))=\(fmt(score.fraction * 100, 2))%/\(result.subMatches.count)/\(Int(score.missingLength + score.extraLength))m"
            }
            print("kubicka \(interval == 0 ? "1 s" : "\(Int(interval)) s") route mismatch \(fmt(total.fraction * 100, 3))%"
                  + " (length-weighted over \(data.count) tracks)")
            if verbose { print("  per track (mismatch/sub-matches):" + line) }
        }
        // Throughput: each track matched repeatedly, one thread; baseline: plain nearest-road snapping of the same
        // fixes (projection + candidate search + choice), in the same process.
        let iterations = args.contains("quick") ? 5 : 30
        let kubicka = try throughput(data.map { ($0.network, $0.track) }, matchers: matchers, iterations: iterations)
        print("kubicka throughput: " + kubicka)
        let network = try MapLoader.load(path: root + "/Samples/bellevue-issue147.osm.gz")
        let drive = try TrackReader.read(path: root + "/Samples/newson-krumm-bellevue.csv")
        let sample = try throughput([(network, drive)], matchers: [try MapMatcher(network: network, parameters: params)],
                                    iterations: iterations * 4)
        print("sample drive throughput: " + sample)
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
