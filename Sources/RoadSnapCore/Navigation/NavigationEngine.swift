import Dispatch
import Synchronization

/// One thing to tell listeners or a caller, produced under the engine's lock and delivered after it.
enum NavigationEvent: Sendable {
    case location(RoadSnappedLocation)
    case arrived(Waypoint)
    case routeChanged
    case remainingTime(Double)
    case remainingDistance(Double)
    case delay(DelayCategory)
    case lighting(LightingMode)
    case speeding(Double)
    case severity(SpeedAlertSeverity, Double)
    case navInfo(NavInfo)
    case announcement(Announcement)
    case rerouteOffer(RerouteOffer)
    case status(@Sendable (RouteStatus) -> Void, RouteStatus)
}

/// Tunables of guidance: arrival, off-route detection and rerouting.
public struct GuidanceOptions: Hashable, Sendable {
    /// A destination is reached within this many metres of it along the route (or straight-line off it).
    public var arrivalRadius = 20.0
    /// A fix further than this from the route (metres, or twice its accuracy if larger) counts as off the route.
    public var offRouteDistance = 40.0
    /// Consecutive off-route fixes before rerouting (Mapbox uses 3 backwards updates).
    public var offRouteFixes = 3
    /// Consecutive fixes travelling the route's road the wrong way before rerouting (Mapbox: 4 incorrect courses).
    public var wrongCourseFixes = 4
    /// Seconds before a failed reroute is tried again.
    public var rerouteRetrySeconds = 5.0
    /// Seconds between recomputations of the traffic delay category on the same segment.
    public var delayRefreshSeconds = 30.0
    /// Seconds between recomputations of the sun's position.
    public var lightingRefreshSeconds = 60.0
    /// Seconds a higher speed alert severity must hold before it is reported (no flicker on a brief excess).
    public var speedAlertEnterSeconds = 2.0
    /// Seconds a lower speed alert severity must hold before it replaces the reported one.
    public var speedAlertReleaseSeconds = 3.0

    public init() {}
}

/// What the simulator is doing.
enum SimulationMode {
    case idle
    case location(GeoCoordinate)
    /// Driving `path`, `distance` metres along; `followsRoute` re-bases the path on the navigator's route changes.
    case path(SimulationPath, distance: Double, followsRoute: Bool)
}

/// The state behind a navigation session: provider, navigator and simulator share one lock so that each raw fix
/// is processed whole, in order; events are collected under the lock and delivered after it.
final class NavigationEngine: @unchecked Sendable {
    let network: RoadNetwork
    let router: Router
    let clock: NavigationClock
    let listenerQueue: DispatchQueue?
    private let lock = Mutex(())
    /// Routes off the caller's thread; its thread ends with the engine (not Dispatch's pool, which outlives it).
    let routingQueue = SerialWorker()

    weak var navigatorFacade: Navigator?
    weak var providerFacade: RoadSnappedLocationProvider?

    // Session and provider.
    var isStarted = true
    var isUpdatingLocation = false
    var allowsBackgroundLocationUpdates = false
    var providerListeners: [WeakLocationListener] = []
    /// The matching engine's streaming mode: every matched location comes from it (arc, offset, point, held fix).
    let matcher: StreamMatcher
    let matchOptions: NavigationMatchOptions
    var lastLocation: RoadSnappedLocation?
    var lastRawFix: Fix?
    private var lastRawPoint: LocalPoint?
    /// The raw fixes of the lag window (ring of lag + 1, indexed by push count) and their local points.
    private var windowFixes: [Fix]
    private var windowPoints: [LocalPoint]
    /// Fixes pushed since the matcher's last reset.
    private var pushed = 0
    /// A reroute happened: the matcher restarts (after answering its held fixes) at the next fix.
    private var matchResetPending = false

    // Navigator.
    var navigatorListeners: [WeakNavigatorListener] = []
    var guidance = GuidanceOptions()
    var route: Route?
    var legIndex = 0
    var tracker: LegTracker?
    var routingOptions = RoutingOptions()
    var isGuidanceActive = false
    var stopGuidanceAtArrival = true
    var arrivedAtCurrentLeg = false
    var navState: NavState = .stopped
    var timeUpdateThreshold = 1.0
    var distanceUpdateThreshold = 1.0
    private var timeReporter = ThresholdReporter()
    private var distanceReporter = ThresholdReporter()
    private var stepReporter = ThresholdReporter()
    private var lastStepIndex = -1
    private var routeChangedPending = false
    var speedAlert = SpeedAlertEvaluator()
    private var lastSpeeding: Double?
    var speedAlertSeverity: SpeedAlertSeverity = .unknown
    var severityHysteresis = SeverityHysteresis()
    var suggestedLightingMode: LightingMode = .normal
    var lightingComputedAt: Double?
    /// Whether the lighting mode and the delay category were reported once (the initial state).
    var lightingReported = false
    var delayReported = false
    var trafficFeed: TrafficFeed? { didSet { delayComputedAt = nil; trafficTimes.removeAll() } }
    /// Seconds from each leg's start to each segment's start at the traffic feed's speeds, per leg index.
    var trafficTimes: [Int: [Double]] = [:]
    var announcer = AnnouncementPlanner()
    /// Why the last route request failed (empty when it succeeded).
    var lastRouteMessage = ""
    let delayClassifier = DelayClassifier()
    var delayCategory: DelayCategory = .noData
    private var delayComputedAt: (segment: Int, time: Double)?
    var traveledPath: [GeoCoordinate] = []
    private var offRouteCount = 0
    private var wrongCourseCount = 0
    private var rerouteRetryAt: Double?
    var requestGeneration = 0
    // Faster routes under traffic (RouteChoiceGuidance.swift).
    var offerOptions = RerouteOfferOptions.standard
    var offers = RerouteOfferState()

    // Simulator.
    var simulation: SimulationMode = .idle
    var simulationPaused = false
    var speedMultiplier = 1.0
    var isJitterEnabled = false
    var jitterSigma = 4.0
    var simulationInterval = 1.0
    private var jitterRandom = SplitMix64(seed: 0x5EED)
    private var simulationTimer: ClockTimer?

    init(network: RoadNetwork, router: Router, clock: NavigationClock, listenerQueue: DispatchQueue?,
         matchOptions: NavigationMatchOptions) throws(RoadSnapError)
    {
        self.network = network
        self.router = router
        self.clock = clock
        self.listenerQueue = listenerQueue
        matcher = try StreamMatcher(network: network, parameters: matchOptions.parameters, maxLag: matchOptions.lag,
                                    routeBonus: matchOptions.routeBonus)
        self.matchOptions = matchOptions
        let window = matchOptions.lag + 1
        windowFixes = [Fix](repeating: Fix(coordinate: GeoCoordinate(uncheckedLatitude: 0, longitude: 0)), count: window)
        windowPoints = [LocalPoint](repeating: LocalPoint(x: 0, y: 0), count: window)
        announcer.options.units = DistanceUnits.default(for: network.bounds)
    }

    /// Runs `body` under the engine's lock, then delivers the events it produced.
    func perform<R>(_ body: (inout [NavigationEvent]) -> R) -> R {
        var events: [NavigationEvent] = []
        let (result, listeners) = lock.withLock { _ -> (R, Listeners?) in
            let r = body(&events)
            return (r, events.isEmpty ? nil : snapshotListeners())
        }
        if let listeners { deliver(events, to: listeners) }
        return result
    }

    /// Runs `body` under the lock without events.
    func read<R>(_ body: () -> R) -> R { lock.withLock { _ in body() } }

    // MARK: Delivery

    struct Listeners {
        var navigator: [WeakNavigatorListener]
        var provider: [WeakLocationListener]
        var navigatorFacade: Navigator?
        var providerFacade: RoadSnappedLocationProvider?
    }

    /// The listener lists (weak references, shared without copying; released listeners are skipped at delivery
    /// and dropped from the lists on the next add or remove) and the façades to pass to them.
    private func snapshotListeners() -> Listeners {
        return Listeners(navigator: navigatorListeners, provider: providerListeners, navigatorFacade: navigatorFacade,
                         providerFacade: providerFacade)
    }

    private func deliver(_ events: [NavigationEvent], to listeners: Listeners) {
        let box = UncheckedBox(listeners)
        let work = { @Sendable in NavigationEngine.dispatch(events, box.value) }
        if let listenerQueue { listenerQueue.async(execute: work) } else { work() }
    }

    private static func dispatch(_ events: [NavigationEvent], _ l: Listeners) {
        for event in events {
            switch event {
            case let .location(location):
                if let p = l.providerFacade {
                    for w in l.provider { w.value?.locationProvider(p, didUpdate: location) }
                }
            case let .status(callback, status):
                callback(status)
            default:
                guard let n = l.navigatorFacade else { continue }
                for w in l.navigator {
                    guard let x = w.value else { continue }
                    switch event {
                    case let .arrived(w): x.navigator(n, didArriveAt: w)
                    case .routeChanged: x.navigatorDidChangeRoute(n)
                    case let .remainingTime(t): x.navigator(n, didUpdateRemainingTime: t)
                    case let .remainingDistance(d): x.navigator(n, didUpdateRemainingDistance: d)
                    case let .delay(c): x.navigator(n, didUpdate: c)
                    case let .lighting(m): x.navigator(n, didChangeSuggestedLightingMode: m)
                    case let .speeding(p): x.navigator(n, didUpdateSpeedingPercentage: p)
                    case let .severity(s, p): x.navigator(n, didUpdate: s, speedingPercentage: p)
                    case let .navInfo(info): x.navigator(n, didUpdate: info)
                    case let .announcement(a): x.navigator(n, didAnnounce: a)
                    case let .rerouteOffer(offer): x.navigator(n, didOffer: offer)
                    case .location, .status: break
                    }
                }
            }
        }
    }

    // MARK: Raw fixes

    /// Processes one raw fix (lock held): match it, then update the navigator with the answer that became final.
    func process(_ raw: Fix, _ events: inout [NavigationEvent]) {
        guard isStarted else { return }
        var fix = raw
        if fix.time == nil { fix.time = clock.now }
        let time = fix.time ?? 0
        let point = matcher.project(fix.coordinate)
        // Speed from the previous fix when the receiver gives none.
        if fix.speed == nil, let last = lastRawFix, let lastPoint = lastRawPoint, let t0 = last.time, time > t0,
           time - t0 <= 10
        {
            let d = ((point.x - lastPoint.x) * (point.x - lastPoint.x) + (point.y - lastPoint.y) * (point.y - lastPoint.y))
                .squareRoot()
            fix.speed = d / (time - t0)
        }
        // A restart after a reroute (the old route's history no longer applies), after a long gap or when time runs
        // backwards: the fixes still held by the lag are answered first.
        if let t0 = lastRawFix?.time, time - t0 > matchOptions.parameters.maxGap || time < t0 {
            matchResetPending = true
        }
        if matchResetPending {
            matchResetPending = false
            restartMatching(&events)
        }
        lastRawFix = fix
        lastRawPoint = point
        do {
            try matcher.push(fix, at: point)
        } catch {
            // Out of memory: the stream was reset; this fix passes through unmatched.
            pushed = 0
            emit(unmatched: fix, point: point, &events)
            return
        }
        let lag = matchOptions.lag
        let slot = pushed % (lag + 1)
        windowFixes[slot] = fix
        windowPoints[slot] = point
        pushed += 1
        if pushed > lag { answer(lag: lag, &events) }
    }

    /// Emits the matcher's answer for the fix pushed `lag` fixes before the newest (lock held); a fix without a road
    /// passes through raw.
    private func answer(lag: Int, _ events: inout [NavigationEvent]) {
        let slot = (pushed - 1 - lag) % (matchOptions.lag + 1)
        let fix = windowFixes[slot], point = windowPoints[slot]
        if let m = matcher.result(lag: lag) {
            let location = RoadSnappedLocation(
                coordinate: m.coordinate, altitude: fix.altitude ?? .nan, course: m.bearing, speed: fix.speed ?? -1,
                timestamp: fix.time ?? clock.now, horizontalAccuracy: fix.horizontalAccuracy ?? -1, edge: m.edge,
                isForward: m.isForward, offset: m.edgeOffset, distanceFromFix: m.distance)
            emit(location, raw: fix, point: point, &events)
        } else {
            emit(unmatched: fix, point: point, &events)
        }
    }

    /// Answers the fixes still held back by the lag (oldest first), then forgets the matcher's history (lock held).
    private func restartMatching(_ events: inout [NavigationEvent]) {
        let held = min(matchOptions.lag, pushed)
        for k in stride(from: held - 1, through: 0, by: -1) { answer(lag: k, &events) }
        matcher.reset()
        pushed = 0
    }

    private func emit(unmatched fix: Fix, point: LocalPoint, _ events: inout [NavigationEvent]) {
        emit(RoadSnappedLocation(coordinate: fix.coordinate, altitude: fix.altitude ?? .nan, course: fix.course ?? -1,
                                 speed: fix.speed ?? -1, timestamp: fix.time ?? clock.now,
                                 horizontalAccuracy: fix.horizontalAccuracy ?? -1), raw: fix, point: point, &events)
    }

    /// Reports a location and moves the navigator on with it (lock held).
    private func emit(_ location: RoadSnappedLocation, raw: Fix, point: LocalPoint, _ events: inout [NavigationEvent]) {
        lastLocation = location
        if isUpdatingLocation { events.append(.location(location)) }
        updateNavigator(location, fix: raw, point: point, &events)
    }

    // MARK: Navigator

    private func updateNavigator(_ location: RoadSnappedLocation, fix: Fix, point: LocalPoint,
                                 _ events: inout [NavigationEvent])
    {
        let time = location.timestamp
        // Lighting from the sun at the fix's place and time.
        if lightingComputedAt.map({ abs(time - $0) >= guidance.lightingRefreshSeconds }) ?? true {
            lightingComputedAt = time
            let mode = SolarPosition(time: time, latitude: location.coordinate.latitude,
                                     longitude: location.coordinate.longitude).suggestedLightingMode
            if mode != suggestedLightingMode || !lightingReported {
                lightingReported = true
                suggestedLightingMode = mode
                events.append(.lighting(mode))
            }
        }
        // Speeding against the current edge's limit in the travel direction.
        var limit: Double?
        if let e = location.edge {
            let a = network.edges[e].attributes
            limit = location.isForward ? a.maxspeedForward : (a.maxspeedBackward ?? a.maxspeedForward)
        }
        let (percentage, rawSeverity) = speedAlert.evaluate(speed: location.speed >= 0 ? location.speed : nil,
                                                           limitKmh: limit, time: time)
        let severity = severityHysteresis.filter(rawSeverity, time: time, enter: guidance.speedAlertEnterSeconds,
                                                 release: guidance.speedAlertReleaseSeconds)
        if let last = lastSpeeding {
            if (percentage < 0) != (last < 0) || (percentage == 0) != (last == 0) || abs(percentage - last) >= 1 {
                lastSpeeding = percentage
                events.append(.speeding(percentage))
            }
        } else {
            lastSpeeding = percentage
            events.append(.speeding(percentage))
        }
        if severity != speedAlertSeverity {
            speedAlertSeverity = severity
            events.append(.severity(severity, percentage))
        }

        guard isGuidanceActive, route != nil, tracker != nil else { return }
        traveledPath.append(location.coordinate)
        if navState == .rerouting {
            if let retry = rerouteRetryAt, time < retry { return }
            reroute(from: fix, location: location, &events)
            return
        }
        guard !arrivedAtCurrentLeg else { return }
        var located: LegPosition?
        if let e = location.edge {
            located = tracker?.locate(edge: e, isForward: location.isForward, offset: location.offset)
        }
        if arrive(location, point: point, located: located != nil, &events) { return }
        if located != nil {
            offRouteCount = 0
            wrongCourseCount = 0
        } else {
            let leeway = max(guidance.offRouteDistance, 2 * (fix.horizontalAccuracy ?? 0))
            let distance = tracker?.distanceToLeg(point, network: network) ?? .infinity
            if distance > leeway {
                offRouteCount += 1
            } else if let e = location.edge, let t = tracker,
                      t.leg.segments.contains(where: { $0.edge == e && $0.isForward != location.isForward })
            {
                wrongCourseCount += 1
            }
            if offRouteCount >= guidance.offRouteFixes || wrongCourseCount >= guidance.wrongCourseFixes {
                navState = .rerouting
                // The last known values stay until the new route is installed.
                events.append(.navInfo(currentNavInfo() ?? NavInfo(navState: .rerouting)))
                reroute(from: fix, location: location, &events)
                return
            }
        }
        guard let t = tracker else { return }
        let remaining = t.remainingDistance
        if distanceReporter.shouldReport(remaining, threshold: distanceUpdateThreshold) {
            events.append(.remainingDistance(remaining))
        }
        let remainingTime = self.remainingTime(t)
        if timeReporter.shouldReport(remainingTime, threshold: timeUpdateThreshold) {
            events.append(.remainingTime(remainingTime))
        }
        updateDelay(time: time, &events)
        appendNavInfo(&events)
        if let p = t.position, let e = location.edge {
            for a in announcer.update(leg: t.leg, along: p.distanceAlong, speed: location.speed >= 0 ? location.speed : nil,
                                      roadClass: network.edges[e].attributes.roadClass, time: time)
            {
                events.append(.announcement(a))
            }
        }
        offerFasterRoute(time: time, fix: fix, location: location, &events)
    }

    /// Fires arrival once for the current leg when the location is within the arrival radius of its destination:
    /// along the route when on it, else straight-line once close along it (lock held). True when arrived.
    private func arrive(_ location: RoadSnappedLocation, point: LocalPoint, located: Bool,
                        _ events: inout [NavigationEvent]) -> Bool
    {
        guard let t = tracker, !arrivedAtCurrentLeg else { return arrivedAtCurrentLeg }
        let remaining = t.remainingDistance
        let dx = point.x - t.destinationPoint.x, dy = point.y - t.destinationPoint.y
        let direct = (dx * dx + dy * dy).squareRoot()
        guard (located && remaining <= guidance.arrivalRadius)
            || (direct <= guidance.arrivalRadius && remaining <= max(200, 4 * guidance.arrivalRadius))
        else { return false }
        arrivedAtCurrentLeg = true
        if distanceReporter.shouldReport(0, threshold: 0) { events.append(.remainingDistance(0)) }
        if timeReporter.shouldReport(0, threshold: 0) { events.append(.remainingTime(0)) }
        // The stopped state before the arrival: a listener continuing to the next leg inside the arrival callback
        // (synchronous delivery) then has its new leg's state last.
        if stopGuidanceAtArrival {
            isGuidanceActive = false
            navState = .stopped
            events.append(.navInfo(NavInfo(navState: .stopped)))
        }
        events.append(.arrived(t.leg.destination))
        return true
    }

    /// The delay category over the rest of the current leg, when a traffic feed is set.
    private func updateDelay(time: Double, _ events: inout [NavigationEvent]) {
        guard let t = tracker else { return }
        guard let feed = trafficFeed else {
            // The initial state once: no data.
            if !delayReported { delayReported = true; events.append(.delay(delayCategory)) }
            return
        }
        let segment = t.position?.segment ?? 0
        if let at = delayComputedAt, at.segment == segment, time - at.time < guidance.delayRefreshSeconds { return }
        delayComputedAt = (segment, time)
        var totals = DelayClassifier.Totals()
        let along = t.position?.distanceAlong ?? 0
        for k in segment..<t.leg.segments.count {
            let s = t.leg.segments[k]
            let start = max(along, s.distanceFromLegStart)
            let length = s.distanceFromLegStart + s.distance - start
            let edge = network.edges[s.edge]
            totals.add(length: length, freeFlowKmh: edge.attributes.speedKmh(forward: s.isForward),
                       trafficKmh: feed.speedKmh(for: edge.sourceID))
        }
        let category = delayClassifier.category(totals)
        if category != delayCategory || !delayReported {
            delayReported = true
            delayCategory = category
            events.append(.delay(category))
        }
    }

    /// The nav info of the current position, when something a display shows moved on.
    func appendNavInfo(_ events: inout [NavigationEvent], force: Bool = false) {
        guard let info = currentNavInfo() else { return }
        let step = tracker?.currentStepIndex ?? -1
        let changed = force || routeChangedPending || step != lastStepIndex
        if changed { stepReporter.reset() }
        if stepReporter.shouldReport(info.distanceToCurrentStepMeters, threshold: distanceUpdateThreshold) || changed {
            var info = info
            info.routeChanged = routeChangedPending
            routeChangedPending = false
            lastStepIndex = step
            events.append(.navInfo(info))
        }
    }

    /// The turn-by-turn state now (nil without a route).
    func currentNavInfo() -> NavInfo? {
        guard let route, let t = tracker else { return nil }
        let leg = t.leg
        let along = t.position?.distanceAlong ?? 0
        let timeAlong = t.position?.timeAlong ?? 0
        let later = route.legs.dropFirst(legIndex + 1)
        let laterDistance = later.reduce(0) { $0 + $1.distance }, laterTime = later.reduce(0) { $0 + $1.duration }
        let remainingTime = self.remainingTime(t)
        let laterTrafficTime = trafficFeed == nil ? laterTime
            : (legIndex + 1..<route.legs.count).reduce(0) { $0 + (trafficCumulativeTimes(leg: $1).last ?? 0) }
        var info = NavInfo(navState: navState, distanceToNextDestinationMeters: t.remainingDistance,
                           timeToNextDestinationSeconds: remainingTime,
                           distanceToFinalDestinationMeters: t.remainingDistance + laterDistance,
                           timeToFinalDestinationSeconds: remainingTime + laterTrafficTime)
        info.speedLimitKmh = currentSpeedLimitKmh()
        guard !leg.steps.isEmpty else { return info }
        let k = t.currentStepIndex
        let step = leg.steps[k]
        if navState == .enroute { info.currentStep = step }
        info.remainingSteps = Array(leg.steps[(k + 1)...])
        info.distanceToCurrentStepMeters = max(0, step.distanceFromLegStart - along)
        info.timeToCurrentStepSeconds = max(0, step.timeFromLegStart - timeAlong)
        return info
    }

    /// A new route from the current position to the remaining destinations (lock held; routing runs inline so
    /// that replays and tests stay deterministic).
    private func reroute(from fix: Fix, location: RoadSnappedLocation, _ events: inout [NavigationEvent]) {
        guard let route else { return }
        let destinations = route.legs[legIndex...].map(\.destination)
        let moving = (fix.speed ?? 0) >= 2
        let heading: Double? = moving ? (fix.course ?? (location.course >= 0 ? location.course : nil)) : nil
        let origin = Waypoint(coordinate: fix.coordinate, preferredHeading: heading, headingTolerance: 90)
        let result = router.route(RouteRequest(origin: origin, destinations: destinations, options: routingOptions),
                                  traffic: trafficFeed)
        lastRouteMessage = result.message
        guard result.status == .ok, let newRoute = result.route else {
            rerouteRetryAt = location.timestamp + guidance.rerouteRetrySeconds
            return
        }
        rerouteRetryAt = nil
        install(newRoute, &events)
        navState = .enroute
        matchResetPending = true
        // A new route that is no longer than the arrival radius means the driver is there.
        if arrive(location, point: matcher.project(fix.coordinate), located: true, &events) { return }
        appendNavInfo(&events, force: true)
    }

    /// Makes `route` the current one from its first leg (lock held).
    func install(_ newRoute: Route, _ events: inout [NavigationEvent]) {
        route = newRoute
        trafficTimes.removeAll()
        legIndex = 0
        startLeg(&events)
    }

    /// Starts tracking the leg at `legIndex` (lock held).
    func startLeg(_ events: inout [NavigationEvent]) {
        guard let route, legIndex < route.legs.count else { return }
        let leg = route.legs[legIndex]
        tracker = LegTracker(leg: leg, destinationPoint: matcher.project(leg.snappedDestination))
        arrivedAtCurrentLeg = false
        offRouteCount = 0
        wrongCourseCount = 0
        timeReporter.reset()
        distanceReporter.reset()
        stepReporter.reset()
        lastStepIndex = -1
        delayComputedAt = nil
        announcer.reset()
        offers.pending = nil
        routeChangedPending = true
        // The route's arcs come from the same network as the matcher's graph: setting them cannot fail on range;
        // out of memory leaves the matcher without a route bias.
        try? matcher.setRoute(arcs: route.legs[legIndex].segments.map { Int32($0.arc) })
        if isGuidanceActive { navState = .enroute }
        events.append(.routeChanged)
        if case .path(_, _, true) = simulation { simulation = .path(currentLegPath(), distance: 0, followsRoute: true) }
    }

    func clearRoute(_ events: inout [NavigationEvent]) {
        let had = route != nil
        route = nil
        tracker = nil
        legIndex = 0
        isGuidanceActive = false
        navState = .stopped
        try? matcher.setRoute(arcs: [])
        traveledPath.removeAll()
        delayCategory = .noData
        if had { events.append(.routeChanged) }
        if case .path(_, _, true) = simulation { simulation = .idle }
    }

    func setGuidanceActive(_ active: Bool, _ events: inout [NavigationEvent]) {
        guard active != isGuidanceActive else { return }
        isGuidanceActive = active && route != nil
        if isGuidanceActive {
            navState = .enroute
            appendNavInfo(&events, force: true)
        } else {
            navState = .stopped
            if route != nil { events.append(.navInfo(NavInfo(navState: .stopped))) }
        }
    }

    /// Routes from the current location to `waypoints` on the routing queue; a newer request cancels this one.
    func setDestinations(_ waypoints: [Waypoint], options: RoutingOptions,
                         callback: @escaping @Sendable (RouteStatus) -> Void)
    {
        let (generation, origin, feed) = read { () -> (Int, Waypoint?, TrafficFeed?) in
            requestGeneration += 1
            guard let fix = lastRawFix else { return (requestGeneration, nil, trafficFeed) }
            let moving = (fix.speed ?? 0) >= 2
            return (requestGeneration, Waypoint(coordinate: fix.coordinate,
                                                preferredHeading: moving ? fix.course : nil, headingTolerance: 90),
                    trafficFeed)
        }
        routingQueue.async { [self] in
            let isCanceled = { self.read { self.requestGeneration != generation } }
            let result = isCanceled() ? RouteResult(status: .canceled)
                : router.route(RouteRequest(origin: origin, destinations: waypoints, options: options),
                               traffic: feed, isCanceled: isCanceled)
            perform { events in
                var status = result.status
                if requestGeneration != generation { status = .canceled }
                lastRouteMessage = status == .canceled && result.message.isEmpty ? "a newer request replaced this one"
                    : result.message
                if status == .ok, let route = result.route {
                    routingOptions = options
                    traveledPath.removeAll()
                    install(route, &events)
                    if isGuidanceActive { appendNavInfo(&events, force: true) }
                }
                events.append(.status(callback, status))
            }
        }
    }

    /// Moves on to the next leg after arriving; returns its destination, nil when none is left.
    func continueToNextDestination(_ events: inout [NavigationEvent]) -> Waypoint? {
        guard let route else { return nil }
        guard legIndex + 1 < route.legs.count else {
            clearRoute(&events)
            return nil
        }
        legIndex += 1
        startLeg(&events)
        if isGuidanceActive { appendNavInfo(&events, force: true) }
        return route.legs[legIndex].destination
    }

    // MARK: Simulator

    /// The path of the current leg from the simulator's point of view.
    func currentLegPath() -> SimulationPath {
        guard let route, legIndex < route.legs.count else { return SimulationPath() }
        return SimulationPath(legs: route.legs[legIndex...legIndex], network: network)
    }

    func startSimulation(_ mode: SimulationMode, _ events: inout [NavigationEvent]) {
        simulation = mode
        if simulationTimer == nil {
            simulationTimer = clock.schedule(every: simulationInterval) { [weak self] in self?.simulatorTick() }
        }
        emitSimulatedFix(&events)
    }

    func stopSimulation() {
        simulation = .idle
        simulationTimer?.cancel()
        simulationTimer = nil
    }

    func simulatorTick() {
        perform { events in
            if !simulationPaused, case let .path(path, distance, follows) = simulation {
                let speed = path.state(at: distance).speed
                simulation = .path(path, distance: min(path.length, distance + speed * simulationInterval * speedMultiplier),
                                   followsRoute: follows)
            }
            emitSimulatedFix(&events)
        }
    }

    /// The simulated fix at the current simulated place, processed like any raw fix (lock held).
    private func emitSimulatedFix(_ events: inout [NavigationEvent]) {
        let now = clock.now
        let fix: Fix
        switch simulation {
        case .idle:
            return
        case let .location(c):
            fix = Fix(coordinate: jittered(c), time: now, speed: 0, horizontalAccuracy: isJitterEnabled ? jitterSigma : 3)
        case let .path(path, distance, _):
            let s = path.state(at: distance)
            let atEnd = distance >= path.length - 1e-6
            let g = matcher.frame.inverse(s.point)
            let c = GeoCoordinate(uncheckedLatitude: g.latitude, longitude: g.longitude)
            let speed = simulationPaused || atEnd ? 0 : s.speed * speedMultiplier
            fix = Fix(coordinate: jittered(c), time: now, course: s.course, speed: speed,
                      horizontalAccuracy: isJitterEnabled ? jitterSigma : 3)
        }
        process(fix, &events)
    }

    /// The coordinate moved by Gaussian noise of `jitterSigma` metres when jittering is on (deterministic sequence).
    private func jittered(_ c: GeoCoordinate) -> GeoCoordinate {
        guard isJitterEnabled else { return c }
        let r = jitterSigma * (-2 * RSMath.log(max(jitterRandom.unit(), 1e-12))).squareRoot()
        let a = 2 * Double.pi * jitterRandom.unit()
        let p = matcher.project(c)
        let g = matcher.frame.inverse(LocalPoint(x: p.x + r * RSMath.cos(a), y: p.y + r * RSMath.sin(a)))
        return GeoCoordinate(uncheckedLatitude: g.latitude, longitude: g.longitude)
    }
}
