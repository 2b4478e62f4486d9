import Dispatch
import RoadSnapCore
import RoadSnapFormats

/// Road-snapped provider throughput per GPS fix on the sample map: the real Newson & Krumm drive fed as raw fixes
/// through the whole provider path (online HMM matching, navigator update, listener called), one thread, against a
/// plain per-fix `Snapper.snap` in the same process as the baseline.
enum NavigationBenchmark {
    /// Counts listener calls (the work a listener does is not what is measured).
    final class CountingListener: RoadSnappedLocationProviderListener, NavigatorListener, @unchecked Sendable {
        var locations = 0, onRoad = 0, navigatorEvents = 0, routeChanges = 0, rerouting = 0
        func navigatorDidChangeRoute(_ navigator: Navigator) { routeChanges += 1 }
        func locationProvider(_ provider: RoadSnappedLocationProvider, didUpdate location: RoadSnappedLocation) {
            locations += 1
            if location.isOnRoad { onRoad += 1 }
        }
        func navigator(_ navigator: Navigator, didUpdate navInfo: NavInfo) {
            navigatorEvents += 1
            if navInfo.navState == .rerouting { rerouting += 1 }
        }
        func navigator(_ navigator: Navigator, didUpdateRemainingDistance distance: Double) { navigatorEvents += 1 }
    }

    static func run(_ args: [String]) throws {
        let network = try MapLoader.load(path: repoPath("Samples/bellevue-issue147.osm.gz"))
        let track = try TrackReader.read(path: repoPath("Samples/newson-krumm-bellevue.csv"))
        let router = Router(network: network)
        let drive = track.fixes
        let span = (drive.last?.time ?? 0) - (drive.first?.time ?? 0) + 120
        // The drive replayed 5 times per timed iteration, each replay later in time (a restart at each seam).
        var replayCount = 0
        func nextBatch() -> [Fix] {
            var out: [Fix] = []
            out.reserveCapacity(drive.count * 5)
            for _ in 0..<5 {
                let shift = Double(replayCount) * span
                replayCount += 1
                for f in drive { var g = f; g.time = f.time.map { $0 + shift }; out.append(g) }
            }
            return out
        }
        let n = drive.count * 5
        if let soak = args.first(where: { $0.hasPrefix("soak=") }).flatMap({ Int($0.dropFirst(5)) }) {
            try runSoak(fixes: soak, router: router, drive: drive, span: span)
            return
        }
        if let spec = args.first(where: { $0.hasPrefix("profile=") }) {
            try runProfile(String(spec.dropFirst(8)), network: network, router: router, drive: drive, nextBatch)
            return
        }
        print("map: Samples/bellevue-issue147.osm.gz  \(network.edges.count) edges; drive: \(drive.count) fixes at 1 Hz")
        print("one thread, release build; ns/fix: median and p99 over timed iterations (\(n) fixes each)")
        print("path                                              fixes/s   median ns   p99 ns")
        func row(_ label: String, _ s: Stats) {
            print("\(label.padded(46)) \(fmt(1e9 / s.median, 0, width: 10)) \(fmt(s.median, 1, width: 11)) \(fmt(s.p99, 1, width: 8))")
        }

        // Baseline: nearest heading-aware snap per fix, no history.
        let snapper = try Snapper(network: network)
        let plain = drive
        let base = try measure(items: plain.count * 5, minIterations: 20) {
            for _ in 0..<5 { for f in plain { _ = try snapper.snap(f) } }
        }
        row("Snapper.snap per fix (baseline)", base)

        // The matching engine's streaming mode alone (what the provider runs per fix).
        let matcher = try StreamMatcher(network: network, maxLag: 0)
        let hmm = measureFed(items: n, nextBatch) { for f in $0 { try? matcher.push(f); _ = matcher.result(lag: 0) } }
        row("StreamMatcher push + result (lag 0)", hmm)

        // A session whose provider is updating, with a counting listener on provider and navigator.
        let clock = VirtualClock(start: drive.first?.time ?? 0)
        func makeSession(_ queue: DispatchQueue?) throws -> (NavigationSession, CountingListener) {
            let session = try NavigationSession(router: router, clock: clock, listenerQueue: queue)
            let counter = CountingListener()
            session.roadSnappedLocationProvider.add(counter)
            session.navigator.add(counter)
            session.roadSnappedLocationProvider.startUpdatingLocation()
            return (session, counter)
        }

        // Whole provider path, listener called synchronously on the feeding thread.
        let (session, counter) = try makeSession(nil)
        let provider = session.roadSnappedLocationProvider
        let sync = measureFed(items: n, nextBatch) { for f in $0 { provider.updateLocation(with: f) } }
        row("provider, free drive, listener inline", sync)

        // Listener on its own queue: the fix is processed inline, the call is queued (drained each iteration).
        let queue = DispatchQueue(label: "bench.listeners")
        let (queued, _) = try makeSession(queue)
        let qp = queued.roadSnappedLocationProvider
        let async = measureFed(items: n, nextBatch) { batch in
            for f in batch { qp.updateLocation(with: f) }
            queue.sync {}
        }
        row("provider, free drive, listener on a queue", async)

        // Guidance: the drive's own end as destination (reroutes where the driver leaves the route).
        let (guided, counter3) = try makeSession(nil)
        let gp = guided.roadSnappedLocationProvider
        let destination = Waypoint(coordinate: drive[drive.count - 1].coordinate)
        let guidance = measureFed(items: n, nextBatch) { batch in
            for (i, f) in batch.enumerated() {
                if i % drive.count == 0 {
                    gp.updateLocation(with: f)
                    let done = DispatchSemaphore(value: 0)
                    guided.navigator.setDestinations([destination]) { _ in done.signal() }
                    done.wait()
                    guided.navigator.isGuidanceActive = true
                } else {
                    gp.updateLocation(with: f)
                }
            }
        }
        row("provider + navigator under guidance", guidance)

        // Per-fix latency of the inline provider path.
        var latencies: [Double] = []
        for f in nextBatch() {
            let t0 = nowNanoseconds()
            provider.updateLocation(with: f)
            latencies.append(Double(nowNanoseconds() - t0))
        }
        row("per-fix latency, provider inline", Stats(latencies))
        print("listener calls: \(counter.locations) locations (\(fmt(100 * Double(counter.onRoad) / Double(max(1, counter.locations)), 1, width: 0))% on road), \(counter3.navigatorEvents) guidance events")
        print("provider path vs plain snap: \(fmt(sync.median / base.median, 2, width: 0))x the cost per fix")
    }

    /// `profile=PART:N` (PART snap, stream or guidance): one warm-up batch then N batches of the timed body of that
    /// row, untimed, inside a function of its own so that `valgrind --tool=callgrind --toggle-collect='*profilePart*'`
    /// counts only it (every call, the warm-up included: divide by the fixes printed).
    static func runProfile(_ spec: String, network: RoadNetwork, router: Router, drive: [Fix],
                           _ nextBatch: () -> [Fix]) throws
    {
        let parts = spec.split(separator: ":")
        let part = parts.first.map(String.init) ?? "guidance"
        let batches = parts.count > 1 ? Int(parts[1]) ?? 1 : 1
        let snapper = try Snapper(network: network)
        let matcher = try StreamMatcher(network: network, maxLag: 0)
        let (session, counter, destination) = try guidedSession(router: router, drive: drive)
        // One warm-up batch (routing preparation, first-use decoding), then the others.
        var fixes = 0
        for _ in 0...batches {
            let batch = nextBatch()
            fixes += batch.count
            switch part {
            case "snap": profilePartSnap(snapper, batch)
            case "stream": profilePartStream(matcher, batch)
            default: profilePartGuidance(session, destination: destination, drive: drive.count, batch)
            }
        }
        print("profile \(part): \(fixes) fixes through the profiled function; \(counter.navigatorEvents) guidance events, \(counter.routeChanges) route changes, \(counter.rerouting) rerouting states")
    }

    @inline(never) static func profilePartSnap(_ snapper: Snapper, _ batch: [Fix]) {
        for f in batch { _ = try? snapper.snap(f) }
    }

    @inline(never) static func profilePartStream(_ matcher: StreamMatcher, _ batch: [Fix]) {
        for f in batch { try? matcher.push(f); _ = matcher.result(lag: 0) }
    }

    @inline(never) static func profilePartGuidance(_ session: NavigationSession, destination: Waypoint, drive: Int,
                                                   _ batch: [Fix])
    {
        let provider = session.roadSnappedLocationProvider
        for (i, f) in batch.enumerated() {
            provider.updateLocation(with: f)
            if i % drive == 0 {
                let done = DispatchSemaphore(value: 0)
                session.navigator.setDestinations([destination]) { _ in done.signal() }
                done.wait()
                session.navigator.isGuidanceActive = true
            }
        }
    }

    /// A session on a virtual clock at the drive's start with a counting listener inline, locations started, and
    /// the drive's last fix as the destination (set by the caller).
    static func guidedSession(router: Router, drive: [Fix]) throws
        -> (NavigationSession, CountingListener, Waypoint)
    {
        let clock = VirtualClock(start: drive.first?.time ?? 0)
        let session = try NavigationSession(router: router, clock: clock, listenerQueue: nil)
        let counter = CountingListener()
        session.roadSnappedLocationProvider.add(counter)
        session.navigator.add(counter)
        session.roadSnappedLocationProvider.startUpdatingLocation()
        return (session, counter, Waypoint(coordinate: drive[drive.count - 1].coordinate))
    }

    /// `soak=N`: N fixes (the drive replayed with shifting times) through the provider under guidance to the drive's
    /// end (destinations set again at each replay; reroutes where the driver leaves the route), listener inline:
    /// process RSS after the first replay and at the end.
    static func runSoak(fixes total: Int, router: Router, drive: [Fix], span: Double) throws {
        let (session, counter, destination) = try guidedSession(router: router, drive: drive)
        var fed = 0, replay = 0, firstRSS = -1
        let start = nowNanoseconds()
        while fed < total {
            let shift = Double(replay) * span
            for (i, f) in drive.enumerated() where fed < total {
                var g = f
                g.time = f.time.map { $0 + shift }
                session.roadSnappedLocationProvider.updateLocation(with: g)
                if i == 0 {
                    let done = DispatchSemaphore(value: 0)
                    session.navigator.setDestinations([destination]) { _ in done.signal() }
                    done.wait()
                    session.navigator.isGuidanceActive = true
                }
                fed += 1
            }
            replay += 1
            if replay == 1 { firstRSS = StreamBenchmark.rssKilobytes() }
        }
        let seconds = Double(nowNanoseconds() - start) / 1e9
        print("soak: \(fed) fixes through the provider under guidance (\(replay) replays), "
              + "\(counter.locations) locations (\(counter.onRoad) on road), \(counter.navigatorEvents) guidance events, "
              + "\(counter.routeChanges) route changes (\(counter.rerouting) nav infos while rerouting), "
              + "\(fmt(Double(fed) / seconds, 0, width: 0)) fixes/s; process RSS \(firstRSS) kB after the first replay, "
              + "\(StreamBenchmark.rssKilobytes()) kB at the end")
    }

    /// Like `measure`, but the batch is prepared outside the timed part.
    static func measureFed(items: Int, _ make: () -> [Fix], _ body: ([Fix]) -> Void) -> Stats {
        for _ in 0..<2 { body(make()) }
        var samples: [Double] = []
        let start = nowNanoseconds()
        while samples.count < 20 || Double(nowNanoseconds() - start) < 1e9 {
            let batch = make()
            let t0 = nowNanoseconds()
            body(batch)
            samples.append(Double(nowNanoseconds() - t0) / Double(max(items, 1)))
            if samples.count > 10_000 { break }
        }
        return Stats(samples)
    }
}
