import Dispatch
import Synchronization
import RoadSnapCore
import RoadSnapFormats

/// `roadsnap navigate`: a headless navigation session printing every listener event as one JSON line.
enum NavigateCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let opts = try Options(args, spec: CommandSpecs.navigate)
        let mapPath = try opts.require("map")
        let targets = opts.all("to")
        guard !targets.isEmpty else { throw RoadSnapError.invalidArgument("--to LAT,LON is required (repeat it for stops)") }
        var destinations: [Waypoint] = []
        for (i, t) in targets.enumerated() {
            destinations.append(Waypoint(coordinate: try Options.coordinate(t, flag: "to"), title: "destination \(i + 1)"))
        }
        let modes = [opts.isSet("simulate"), opts.string("replay") != nil, opts.string("gpsd") != nil]
        guard modes.filter({ $0 }).count == 1 else {
            throw RoadSnapError.invalidArgument("choose one of --simulate --from LAT,LON, --replay TRACK or --gpsd HOST:PORT")
        }
        let routingOptions = try opts.string("avoid").map { s throws(RoadSnapError) in try RoutingOptions(avoiding: s) }
            ?? RoutingOptions()
        let traffic = try opts.string("traffic").map { p throws(RoadSnapError) in try TrafficFeedReader.read(path: p) }

        let network = try MapLoader.load(path: mapPath)
        let router = Router(network: network, algorithm: RouteCommand.autoAlgorithm(network), prepare: [routingOptions])
        let virtual = opts.isSet("simulate") && opts.isSet("virtual-clock")
        let virtualClock = virtual ? VirtualClock(start: SystemClock().now) : nil
        let clock: NavigationClock = virtualClock ?? SystemClock()
        // Listener calls run synchronously on the thread that feeds the fix: lines come out in event order.
        let session = try NavigationSession(router: router, clock: clock, listenerQueue: nil)
        let printer = EventPrinter(network: network, locations: !opts.isSet("no-locations"),
                                   finalDestination: destinations.count)
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
            printer.emit(NavigationEventJSON.routeStatus(status.value, request: "setDestinations"))
            guard status.value == .ok else { return false }
            session.navigator.isGuidanceActive = true
            return true
        }

        if opts.isSet("simulate") {
            let from = try Options.coordinate(try opts.require("from"), flag: "from")
            let multiplier = try opts.double("speed-multiplier", default: 1)
            guard multiplier > 0 else { throw RoadSnapError.invalidArgument("--speed-multiplier must be > 0") }
            let simulator = session.locationSimulator
            simulator.simulateLocation(at: from)
            guard start() else { return 1 }
            simulator.speedMultiplier = multiplier
            simulator.simulateLocationsAlongExistingRoute()
            if let virtualClock {
                // As fast as possible: a day of simulated time at most.
                for _ in 0..<86_400 where !printer.finished.value { virtualClock.advance(by: 1) }
            } else {
                printer.done.wait()
            }
            simulator.stopSimulation()
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
        while !printer.finished.value, let fix = try source.nextFix() {
            session.roadSnappedLocationProvider.updateLocation(with: fix)
        }
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
    let done = DispatchSemaphore(value: 0)
    let finished = Box(false)
    /// Also serves every line to consumers (`--serve`).
    var server: FeedServer?
    /// Takes every faster route offered (`--accept-faster-routes`).
    var acceptsFasterRoutes = false
    private var arrivals = 0
    private let lock = Mutex(())

    init(network: RoadNetwork, locations: Bool, finalDestination: Int) {
        self.network = network
        self.locations = locations
        self.finalDestination = finalDestination
    }

    func emit(_ object: [String: Any]) {
        let line = NavigationEventJSON.line(object) + "\n"
        lock.withLock { _ in
            writeStdout(line)
            server?.publish(String(line.dropLast()), kind: object["event"] as? String)
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
    func navigator(_ navigator: Navigator, didUpdate navInfo: NavInfo) { emit(NavigationEventJSON.navInfo(navInfo)) }
    func navigator(_ navigator: Navigator, didOffer offer: RerouteOffer) {
        emit(NavigationEventJSON.rerouteOffer(offer))
        if acceptsFasterRoutes { navigator.acceptRerouteOffer() }
    }
    func locationProvider(_ provider: RoadSnappedLocationProvider, didUpdate location: RoadSnappedLocation) {
        if locations { emit(NavigationEventJSON.location(location, network: network)) }
    }
}
