import Dispatch
import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// `roadsnap navigate`: a headless navigation session printing every listener event as one JSON line.
enum NavigateCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let opts = try Options(args, spec: CommandSpecs.navigate)
        let mapPath = try opts.require("map")
        let targets = opts.all("to")
        guard !targets.isEmpty else { throw RoadSnapError.invalidArgument("--to LAT,LON is required (repeat it for stops)") }
        let titles = opts.all("title")
        guard titles.count <= targets.count else {
            throw RoadSnapError.invalidArgument("\(titles.count) --title for \(targets.count) --to: one title per destination")
        }
        var destinations: [Waypoint] = []
        for (i, t) in targets.enumerated() {
            destinations.append(Waypoint(coordinate: try Options.coordinate(t, flag: "to"),
                                         title: i < titles.count ? titles[i] : "destination \(i + 1)"))
        }
        let speakDir = opts.string("speak")
        if let speakDir { try NavigateSupport.checkSpeaker(dir: speakDir) }
        let modes = [opts.isSet("simulate"), opts.string("replay") != nil, opts.string("gpsd") != nil]
        guard modes.filter({ $0 }).count == 1 else {
            throw RoadSnapError.invalidArgument("choose one of --simulate --from LAT,LON, --replay TRACK or --gpsd HOST:PORT")
        }
        let routingOptions = try opts.string("avoid").map { s throws(RoadSnapError) in try RoutingOptions(avoiding: s) }
            ?? RoutingOptions()
        let traffic = try opts.string("traffic").map { p throws(RoadSnapError) in try TrafficFeedReader.read(path: p) }

        let network = try loadMap(mapPath, command: "navigate")
        for d in destinations { try NavigateSupport.check(d.coordinate, flag: "to", bounds: network.bounds) }
        let router = Router(network: network, algorithm: RouteCommand.autoAlgorithm(network), prepare: [routingOptions])
        let virtual = opts.isSet("simulate") && opts.isSet("virtual-clock")
        let virtualClock = virtual ? VirtualClock(start: SystemClock().now) : nil
        let clock: NavigationClock = virtualClock ?? SystemClock()
        // Listener calls run synchronously on the thread that feeds the fix: lines come out in event order.
        let session = try NavigationSession(router: router, clock: clock, listenerQueue: nil)
        let printer = EventPrinter(network: network, locations: !opts.isSet("no-locations"),
                                   finalDestination: destinations.count, speakDir: speakDir)
        try NavigateSupport.configure(session.navigator, opts)
        let server = try opts.string("serve").map { e throws(RoadSnapError) in try FeedServer(endpoint: e) }
        defer { server?.close() }
        printer.server = server
        printer.acceptsFasterRoutes = opts.isSet("accept-faster-routes")
        if let p = server?.port { writeStderr("roadsnap navigate: serving the event feed on port \(p)\n") }
        if opts.string("faster-route-percent") != nil {
            session.navigator.rerouteOfferOptions = try RerouteOfferOptions(
                minimumSavingPercent: try opts.double("faster-route-percent", default: 10))
        }
        session.navigator.add(printer)
        session.roadSnappedLocationProvider.add(printer)
        let frames = try NavigateFrames.start(opts, network: network, session: session)
        session.roadSnappedLocationProvider.startUpdatingLocation()
        session.navigator.trafficFeed = traffic

        func start() -> Bool {
            let done = DispatchSemaphore(value: 0)
            let status = Box<RouteStatus>(.internalError)
            session.navigator.setDestinations(destinations, routingOptions: routingOptions) { s in
                status.value = s
                done.signal()
            }
            done.wait()
            let message = session.navigator.lastRouteMessage
            printer.emit(NavigationEventJSON.routeStatus(status.value, request: "setDestinations", message: message))
            guard status.value == .ok else {
                writeStderr("roadsnap navigate: no route (\(status.value.rawValue))"
                    + (message.isEmpty ? "" : ": \(message)") + "\n")
                return false
            }
            session.navigator.isGuidanceActive = true
            return true
        }

        if opts.isSet("simulate") {
            let from = try Options.coordinate(try opts.require("from"), flag: "from")
            try NavigateSupport.check(from, flag: "from", bounds: network.bounds)
            let multiplier = try opts.double("speed-multiplier", default: 1)
            guard multiplier > 0 else { throw RoadSnapError.invalidArgument("--speed-multiplier must be > 0") }
            let pause = try opts.string("pause").map { p throws(RoadSnapError) in
                try NavigateSupport.numbers(p, count: 2, flag: "pause", form: "AT_SECONDS,FOR_SECONDS (e.g. 30,10)")
            }
            let simulator = session.locationSimulator
            if opts.string("jitter") != nil {
                simulator.jitterSigma = try opts.double("jitter", default: 4)
                simulator.isLocationJitteringEnabled = true
            }
            simulator.simulateLocation(at: from)
            guard start() else { return 1 }
            // On the system clock the multiplier raises the car's speed (as the SDK's simulator); on a virtual
            // clock it compresses time instead: the car drives at road speeds, the clock runs X times faster.
            if virtualClock == nil { simulator.speedMultiplier = multiplier }
            simulator.simulateLocationsAlongExistingRoute()
            if let virtualClock {
                // A day of simulated time at most; as fast as possible unless --speed-multiplier paces it.
                let paced = opts.string("speed-multiplier") != nil
                let t0 = monotonicSeconds()
                for second in 0..<86_400 where !printer.finished.value {
                    if let pause { simulator.isPaused = Double(second) >= pause[0] && Double(second) < pause[0] + pause[1] }
                    virtualClock.advance(by: 1)
                    if paced {
                        let due = t0 + Double(second + 1) / multiplier, now = monotonicSeconds()
                        if due > now { usleep(UInt32(min(1, due - now) * 1_000_000)) }
                    }
                }
            } else {
                if let pause {
                    DispatchQueue.global().asyncAfter(deadline: .now() + pause[0] / multiplier) { simulator.isPaused = true }
                    DispatchQueue.global().asyncAfter(deadline: .now() + (pause[0] + pause[1]) / multiplier) {
                        simulator.isPaused = false
                    }
                }
                printer.done.wait()
            }
            simulator.stopSimulation()
            try NavigateFrames.finish(frames)
            return 0
        }

        let source: RawFixSource
        if let replay = opts.string("replay") {
            let speedText = opts.string("replay-speed") ?? "1"
            let speedup = speedText == "max" ? Double.infinity : Double(speedText) ?? -1
            guard speedup > 0 else { throw RoadSnapError.invalidArgument("--replay-speed expects a number > 0 or max") }
            source = try TrackReplay(path: replay, speedup: speedup)
        } else {
            let endpoint = try GPSDClient.endpoint(try opts.require("gpsd"))
            let client = GPSDClient(host: endpoint.host, port: endpoint.port)
            try client.connect()
            source = client
        }
        guard let first = try source.nextFix() else {
            writeStderr("roadsnap navigate: no fix in the input\n")
            return 1
        }
        session.roadSnappedLocationProvider.updateLocation(with: first)
        guard start() else { return 1 }
        let progress = ReplayProgress(enabled: isatty(2) != 0 && opts.string("replay") != nil)
        var fixes = 1
        while !printer.finished.value, let fix = try source.nextFix() {
            session.roadSnappedLocationProvider.updateLocation(with: fix)
            fixes += 1
            progress.report(fixTime: fix.time, fixes: fixes, reroutes: printer.reroutes)
        }
        progress.report(fixTime: session.roadSnappedLocationProvider.latestLocation?.timestamp, fixes: fixes,
                        reroutes: printer.reroutes, force: true)
        try NavigateFrames.finish(frames)
        return 0
    }
}

/// A mutable value shared with callbacks (written before a semaphore signal, read after the wait).
final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ v: T) { value = v }
}

/// Prints each event as a JSON line; continues to the next leg on arrival and signals after the last one.
final class EventPrinter: NavigatorListener, RoadSnappedLocationProviderListener, @unchecked Sendable {
    let network: RoadNetwork
    let locations: Bool
    let finalDestination: Int
    /// Where spoken prompts are written as WAV files (`--speak`), nil for none.
    let speakDir: String?
    /// Times guidance entered the rerouting state.
    private(set) var reroutes = 0
    let done = DispatchSemaphore(value: 0)
    let finished = Box(false)
    /// Also serves every line to consumers (`--serve`).
    var server: FeedServer?
    /// Takes every faster route offered (`--accept-faster-routes`).
    var acceptsFasterRoutes = false
    private var arrivals = 0
    private let lock = Locked(())

    init(network: RoadNetwork, locations: Bool, finalDestination: Int, speakDir: String? = nil) {
        self.speakDir = speakDir
        self.network = network
        self.locations = locations
        self.finalDestination = finalDestination
    }

    func emit(_ object: JSONValue) {
        let line = NavigationEventJSON.line(object) + "\n"
        lock.withLock { _ in
            writeStdout(line)
            server?.publish(String(line.dropLast()), kind: object["event"]?.string)
        }
    }

    func navigator(_ navigator: Navigator, didArriveAt waypoint: Waypoint) {
        emit(NavigationEventJSON.arrived(waypoint))
        arrivals += 1
        if arrivals >= finalDestination {
            finished.value = true
            done.signal()
        } else if navigator.continueToNextDestination() != nil {
            navigator.isGuidanceActive = true
        }
    }
    func navigatorDidChangeRoute(_ navigator: Navigator) { emit(NavigationEventJSON.routeChanged(navigator)) }
    func navigator(_ navigator: Navigator, didUpdateRemainingTime time: Double) {
        emit(NavigationEventJSON.remainingTime(time))
    }
    func navigator(_ navigator: Navigator, didUpdateRemainingDistance distance: Double) {
        emit(NavigationEventJSON.remainingDistance(distance))
    }
    func navigator(_ navigator: Navigator, didUpdate delayCategory: DelayCategory) {
        emit(NavigationEventJSON.delay(delayCategory))
    }
    func navigator(_ navigator: Navigator, didChangeSuggestedLightingMode lightingMode: LightingMode) {
        emit(NavigationEventJSON.lighting(lightingMode))
    }
    func navigator(_ navigator: Navigator, didUpdateSpeedingPercentage percentageAboveLimit: Double) {
        emit(NavigationEventJSON.speeding(percentageAboveLimit))
    }
    func navigator(_ navigator: Navigator, didUpdate speedAlertSeverity: SpeedAlertSeverity, speedingPercentage: Double) {
        emit(NavigationEventJSON.severity(speedAlertSeverity, speedingPercentage))
    }
    func navigator(_ navigator: Navigator, didUpdate navInfo: NavInfo) {
        if navInfo.navState == .rerouting { reroutes += 1 }
        emit(NavigationEventJSON.navInfo(navInfo))
    }
    func navigator(_ navigator: Navigator, didAnnounce announcement: Announcement) {
        var o = NavigationEventJSON.announcement(announcement)
        if let speakDir, let path = NavigateSupport.speak(announcement, dir: speakDir) { o["audio"] = .string(path) }
        emit(o)
    }
    func navigator(_ navigator: Navigator, didOffer offer: RerouteOffer) {
        emit(NavigationEventJSON.rerouteOffer(offer))
        if acceptsFasterRoutes { navigator.acceptRerouteOffer() }
    }
    func locationProvider(_ provider: RoadSnappedLocationProvider, didSkip fix: Fix, error: RoadSnapError) {
        emit(NavigationEventJSON.skippedFix(fix, error: error))
    }
    func locationProvider(_ provider: RoadSnappedLocationProvider, didUpdate location: RoadSnappedLocation) {
        if locations { emit(NavigationEventJSON.location(location, network: network)) }
    }
}
