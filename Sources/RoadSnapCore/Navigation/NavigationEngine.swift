import RoadSnapBridge
import Dispatch

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
    /// Boxed: an announcement carries a whole step (over 250 bytes); inline it made every event that large, and each
    /// event is moved and copied a few times per fix (`memcpy` calls). Announcements are a few per step, not per fix.
    indirect case announcement(Announcement)
    case rerouteOffer(RerouteOffer)
    case skippedFix(Fix, RoadSnapError)
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
    /// Metres the driver must also have moved against the route's road since the first of those fixes: a car
    /// standing or crawling, whose noisy answers flip between the road's two directions, is not driving it the
    /// wrong way.
    public var wrongCourseDistance = 20.0
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

/// The raw feed: what the provider keeps between fixes.
struct FeedState {
    var isStarted = true
    var isUpdatingLocation = false
    var allowsBackgroundLocationUpdates = false
    var lastLocation: RoadSnappedLocation?
    var lastRawFix: Fix?
    var lastRawPoint: LocalPoint?
    /// The raw fixes of the lag window (ring of lag + 1, indexed by push count) and their local points.
    var windowFixes: [Fix]
    var windowPoints: [LocalPoint]
    /// Fixes pushed since the matcher's last reset.
    var pushed = 0
    /// The last `recentCapacity` raw fixes' local points and times (a ring, the newest at `recentNext - 1`): where
    /// the car has been moving, for a reroute's heading.
    var recentPoints = [LocalPoint](repeating: LocalPoint(x: 0, y: 0), count: FeedState.recentCapacity)
    var recentTimes = [Double](repeating: -.infinity, count: FeedState.recentCapacity)
    var recentNext = 0
    static let recentCapacity = 12
    /// A reroute happened: the matcher restarts (after answering its held fixes) at the next fix.
    var matchResetPending = false

    init(window: Int) {
        windowFixes = [Fix](repeating: Fix(coordinate: GeoCoordinate(uncheckedLatitude: 0, longitude: 0)), count: window)
        windowPoints = [LocalPoint](repeating: LocalPoint(x: 0, y: 0), count: window)
    }
}

/// The navigator: route, leg progress, arrival, off-route and rerouting, what was reported.
struct GuidanceState {
    var options = GuidanceOptions()
    var route: Route?
    var legIndex = 0
    var tracker: LegTracker?
    var routingOptions = RoutingOptions()
    var isActive = false
    var stopAtArrival = true
    var arrivedAtCurrentLeg = false
    var navState: NavState = .stopped
    var timeUpdateThreshold = 1.0
    var distanceUpdateThreshold = 1.0
    var timeReporter = ThresholdReporter()
    var distanceReporter = ThresholdReporter()
    var stepReporter = ThresholdReporter()
    var lastStepIndex = -1
    var routeChangedPending = false
    /// The steps after the current one, built once per step (nav info shares the array instead of copying it).
    var remainingSteps: (step: Int, steps: [RouteStep])?
    var traveledPath: [GeoCoordinate] = []
    var offRouteCount = 0
    var wrongCourseCount = 0
    /// Where along the leg the first fix of the current wrong-course run was (metres from the leg's start).
    var wrongCourseStart = 0.0
    /// When the next reroute is tried after one that found no route.
    var rerouteRetryAt: Double?
    /// Bumped by each destination request and chosen route: an older pending request then ends canceled.
    var requestGeneration = 0
    /// Why the last route request failed (empty when it succeeded).
    var lastRouteMessage = ""
    var announcer = AnnouncementPlanner()
    /// Faster routes under traffic (RouteChoiceGuidance.swift).
    var offerOptions = RerouteOfferOptions.standard
    var offers = RerouteOfferState()
}

/// Speed alerts: the evaluator, its hysteresis and what was last reported.
struct AlertState {
    var evaluator = SpeedAlertEvaluator()
    var lastSpeeding: Double?
    var severity: SpeedAlertSeverity = .unknown
    var hysteresis = SeverityHysteresis()
    /// The speed limits and class of the last location's edge (read from the network once per edge, not per fix).
    var road: (edge: Int, forwardKmh: Double?, backwardKmh: Double?, roadClass: RoadClass)?

    /// The limits and class of `edge`, cached while the location stays on it.
    mutating func roadValues(_ edge: Int, network: RoadNetwork)
        -> (edge: Int, forwardKmh: Double?, backwardKmh: Double?, roadClass: RoadClass)
    {
        if let road, road.edge == edge { return road }
        let a = network.edges[edge].attributes
        let r = (edge: edge, forwardKmh: a.maxspeedForward, backwardKmh: a.maxspeedBackward ?? a.maxspeedForward,
                 roadClass: a.roadClass)
        road = r
        return r
    }
}

/// The world around the car: lighting from the sun, traffic and the delay category.
struct EnvironmentState {
    var lightingMode: LightingMode = .normal
    var lightingComputedAt: Double?
    /// Whether the lighting mode and the delay category were reported once (the initial state).
    var lightingReported = false
    var delayReported = false
    var trafficFeed: TrafficFeed? { didSet { delayComputedAt = nil; trafficTimes.removeAll() } }
    /// Seconds from each leg's start to each segment's start at the traffic feed's speeds, per leg index.
    var trafficTimes: [Int: [Double]] = [:]
    let delayClassifier = DelayClassifier()
    var delayCategory: DelayCategory = .noData
    var delayComputedAt: (segment: Int, time: Double)?
}

/// The location simulator.
struct SimulationState {
    var mode: SimulationMode = .idle
    var isPaused = false
    var speedMultiplier = 1.0
    var isJitterEnabled = false
    var jitterSigma = 4.0
    var interval = 1.0
    var random = SplitMix64(seed: 0x5EED)
}

/// Who is told: the listener lists (weak references) and the façades passed to them. Listeners are class-bound
/// protocols the caller implements; they are only called outside every lock, on the session's listener queue (or
/// the feeding thread), as documented on `NavigationSession`. An immutable snapshot, replaced whole when a listener
/// is added or removed (`with`), so that each delivery takes it with one retain (a struct was copied per delivery:
/// both lists retained and both façades' weak references copied, then all released).
final class ListenerRegistry: @unchecked Sendable {
    let navigator: [WeakNavigatorListener]
    let provider: [WeakLocationListener]
    weak let navigatorFacade: Navigator?
    weak let providerFacade: RoadSnappedLocationProvider?

    init(navigator: [WeakNavigatorListener] = [], provider: [WeakLocationListener] = [],
         navigatorFacade: Navigator? = nil, providerFacade: RoadSnappedLocationProvider? = nil)
    {
        self.navigator = navigator
        self.provider = provider
        self.navigatorFacade = navigatorFacade
        self.providerFacade = providerFacade
    }

    /// This registry with the lists or façades given replaced.
    func with(navigator: [WeakNavigatorListener]? = nil, provider: [WeakLocationListener]? = nil,
              facades: (Navigator, RoadSnappedLocationProvider)? = nil) -> ListenerRegistry
    {
        ListenerRegistry(navigator: navigator ?? self.navigator, provider: provider ?? self.provider,
                         navigatorFacade: facades?.0 ?? navigatorFacade, providerFacade: facades?.1 ?? providerFacade)
    }
}

/// Everything a raw fix reads and writes, under one lock (`NavigationEngine.state`) so that each fix is processed
/// whole and in order, split by concern. The network's local frame is the projection service (one projection per
/// raw fix); the matcher is the engine's streaming mode. Events are appended to the caller's list and delivered by
/// the engine after the lock is released.
struct NavigationState {
    let network: RoadNetwork
    let router: Router
    let clock: NavigationClock
    /// The network's local frame (the matcher's own; PROJ objects are not thread-safe: used under this lock only).
    let frame: LocalFrame
    let matcher: StreamMatcher
    let matchOptions: NavigationMatchOptions
    var feed: FeedState
    var guidance = GuidanceState()
    var alerts = AlertState()
    var environment = EnvironmentState()
    var simulation = SimulationState()
    /// An emptied event list kept for the next fix (no allocation per fix with synchronous delivery).
    var spareEvents: [NavigationEvent] = []

    init(network: RoadNetwork, router: Router, clock: NavigationClock, matchOptions: NavigationMatchOptions)
        throws(RoadSnapError)
    {
        self.network = network
        self.router = router
        self.clock = clock
        matcher = try StreamMatcher(network: network, parameters: matchOptions.parameters, maxLag: matchOptions.lag,
                                    routeBonus: matchOptions.routeBonus)
        frame = matcher.frame
        self.matchOptions = matchOptions
        feed = FeedState(window: matchOptions.lag + 1)
        guidance.announcer.options.units = DistanceUnits.default(for: network.bounds)
        spareEvents.reserveCapacity(16)
    }

    /// Throws `.projection` (which point, PROJ's reason) when PROJ refuses the coordinate.
    func project(_ c: GeoCoordinate) throws(RoadSnapError) -> LocalPoint {
        try native { () throws(NativeFailure) in try frame.project(latitude: c.latitude, longitude: c.longitude) }
    }

    // MARK: Raw fixes

    /// Processes one raw fix: project it once, match it, then update the navigator with the answer that became final.
    /// Returns why the fix was skipped (PROJ refused it; also told to the location listeners), nil otherwise.
    @discardableResult
    mutating func process(_ raw: Fix, _ events: inout [NavigationEvent]) -> RoadSnapError? {
        guard feed.isStarted else { return nil }
        var fix = raw
        if fix.time == nil { fix.time = clock.now }
        let time = fix.time ?? 0
        let point: LocalPoint
        do {
            point = try project(fix.coordinate)
        } catch {
            // PROJ refused the fix (outside the map's frame): it is skipped, and said so to the location listeners.
            events.append(.skippedFix(fix, error))
            return error
        }
        // Speed from the previous fix when the receiver gives none.
        if fix.speed == nil, let last = feed.lastRawFix, let lastPoint = feed.lastRawPoint, let t0 = last.time,
           time > t0, time - t0 <= 10
        {
            let d = ((point.x - lastPoint.x) * (point.x - lastPoint.x) + (point.y - lastPoint.y) * (point.y - lastPoint.y))
                .squareRoot()
            fix.speed = d / (time - t0)
        }
        // A restart after a reroute (the old route's history no longer applies), after a long gap or when time runs
        // backwards: the fixes still held by the lag are answered first.
        if let t0 = feed.lastRawFix?.time, time - t0 > matchOptions.parameters.maxGap || time < t0 {
            feed.matchResetPending = true
        }
        if feed.matchResetPending {
            feed.matchResetPending = false
            restartMatching(&events)
            // The new chain's first fix has no transition to tell which way the car drives a two-way road (the
            // matcher takes either, and a route coming back along that road favours both): without a course from
            // the receiver it takes the way the raw fixes moved over the last seconds.
            if fix.course == nil { fix.course = motionBearing(to: point, at: time) }
        }
        feed.lastRawFix = fix
        feed.lastRawPoint = point
        feed.recentPoints[feed.recentNext] = point
        feed.recentTimes[feed.recentNext] = time
        feed.recentNext = (feed.recentNext + 1) % FeedState.recentCapacity
        do {
            try matcher.push(fix, at: point)
        } catch {
            // Out of memory: the stream was reset; this fix passes through unmatched.
            feed.pushed = 0
            emit(unmatched: fix, point: point, &events)
            return nil
        }
        let lag = matchOptions.lag
        let slot = feed.pushed % (lag + 1)
        feed.windowFixes[slot] = fix
        feed.windowPoints[slot] = point
        feed.pushed += 1
        if feed.pushed > lag { answer(lag: lag, &events) }
        return nil
    }

    /// Emits the matcher's answer for the fix pushed `lag` fixes before the newest; a fix without a road passes
    /// through raw.
    private mutating func answer(lag: Int, _ events: inout [NavigationEvent]) {
        let slot = (feed.pushed - 1 - lag) % (matchOptions.lag + 1)
        let fix = feed.windowFixes[slot], point = feed.windowPoints[slot]
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

    /// Answers the fixes still held back by the lag (oldest first), then forgets the matcher's history.
    private mutating func restartMatching(_ events: inout [NavigationEvent]) {
        let held = min(matchOptions.lag, feed.pushed)
        for k in stride(from: held - 1, through: 0, by: -1) { answer(lag: k, &events) }
        matcher.reset()
        feed.pushed = 0
    }

    private mutating func emit(unmatched fix: Fix, point: LocalPoint, _ events: inout [NavigationEvent]) {
        emit(RoadSnappedLocation(coordinate: fix.coordinate, altitude: fix.altitude ?? .nan, course: fix.course ?? -1,
                                 speed: fix.speed ?? -1, timestamp: fix.time ?? clock.now,
                                 horizontalAccuracy: fix.horizontalAccuracy ?? -1), raw: fix, point: point, &events)
    }

    /// Reports a location and moves the navigator on with it.
    private mutating func emit(_ location: RoadSnappedLocation, raw: Fix, point: LocalPoint,
                               _ events: inout [NavigationEvent])
    {
        feed.lastLocation = location
        if feed.isUpdatingLocation { events.append(.location(location)) }
        updateNavigator(location, fix: raw, point: point, &events)
    }

    // MARK: Navigator

    private mutating func updateLighting(_ location: RoadSnappedLocation, _ events: inout [NavigationEvent]) {
        let time = location.timestamp
        if let at = environment.lightingComputedAt, abs(time - at) < guidance.options.lightingRefreshSeconds { return }
        environment.lightingComputedAt = time
        let mode = SolarPosition(time: time, latitude: location.coordinate.latitude,
                                 longitude: location.coordinate.longitude).suggestedLightingMode
        if mode != environment.lightingMode || !environment.lightingReported {
            environment.lightingReported = true
            environment.lightingMode = mode
            events.append(.lighting(mode))
        }
    }

    /// Speeding against the current edge's limit in the travel direction.
    private mutating func updateSpeedAlerts(_ location: RoadSnappedLocation, _ events: inout [NavigationEvent]) {
        let time = location.timestamp
        var limit: Double?
        if let e = location.edge {
            let r = alerts.roadValues(e, network: network)
            limit = location.isForward ? r.forwardKmh : r.backwardKmh
        }
        let (percentage, rawSeverity) = alerts.evaluator.evaluate(speed: location.speed >= 0 ? location.speed : nil,
                                                                  limitKmh: limit, time: time)
        let severity = alerts.hysteresis.filter(rawSeverity, time: time, enter: guidance.options.speedAlertEnterSeconds,
                                                release: guidance.options.speedAlertReleaseSeconds)
        if let last = alerts.lastSpeeding {
            if (percentage < 0) != (last < 0) || (percentage == 0) != (last == 0) || abs(percentage - last) >= 1 {
                alerts.lastSpeeding = percentage
                events.append(.speeding(percentage))
            }
        } else {
            alerts.lastSpeeding = percentage
            events.append(.speeding(percentage))
        }
        if severity != alerts.severity {
            alerts.severity = severity
            events.append(.severity(severity, percentage))
        }
    }

    private mutating func updateNavigator(_ location: RoadSnappedLocation, fix: Fix, point: LocalPoint,
                                          _ events: inout [NavigationEvent])
    {
        let time = location.timestamp
        updateLighting(location, &events)
        updateSpeedAlerts(location, &events)

        guard guidance.isActive, guidance.route != nil, guidance.tracker != nil else { return }
        guidance.traveledPath.append(location.coordinate)
        if guidance.navState == .rerouting {
            if let retry = guidance.rerouteRetryAt, time < retry { return }
            reroute(from: fix, location: location, point: point, &events)
            return
        }
        guard !guidance.arrivedAtCurrentLeg else { return }
        var located = false
        if let e = location.edge {
            located = guidance.tracker?.locate(edge: e, isForward: location.isForward, offset: location.offset) != nil
        }
        if arrive(location, point: point, located: located, &events) { return }
        if located {
            guidance.offRouteCount = 0
            guidance.wrongCourseCount = 0
        } else {
            var wrongWay = 0.0
            let leeway = max(guidance.options.offRouteDistance, 2 * (fix.horizontalAccuracy ?? 0))
            let distance = guidance.tracker?.nearestPlace(point, network: network).distance ?? .infinity
            if location.edge == nil, matchOptions.lag == 0, matcher.pendingOutliers > 0 {
                // The matcher holds this fix as a possible outlier (a multipath jump off the roads driven): off the
                // route only once a later fix settles that the car went there (the chain ends), not on the jump.
            } else if distance > leeway {
                guidance.offRouteCount += 1
            } else if let e = location.edge,
                      let on = guidance.tracker?.nearestSegment(edge: e, isForward: location.isForward,
                                                                offset: location.offset)
            {
                // On the leg's road: the wrong way when the part of the leg nearest the place runs against it (a
                // leg may come back along the road), else just behind the place, which is no wrong course.
                if on.against {
                    if guidance.wrongCourseCount == 0 { guidance.wrongCourseStart = on.along }
                    guidance.wrongCourseCount += 1
                    wrongWay = guidance.wrongCourseStart - on.along
                } else {
                    guidance.wrongCourseCount = 0
                }
            }
            if guidance.offRouteCount >= guidance.options.offRouteFixes
                || (guidance.wrongCourseCount >= guidance.options.wrongCourseFixes
                    && wrongWay >= guidance.options.wrongCourseDistance)
            {
                guidance.navState = .rerouting
                // The last known values stay until the new route is installed.
                events.append(.navInfo(currentNavInfo() ?? NavInfo(navState: .rerouting)))
                reroute(from: fix, location: location, point: point, &events)
                return
            }
        }
        guard let remaining = guidance.tracker?.remainingDistance else { return }
        if guidance.distanceReporter.shouldReport(remaining, threshold: guidance.distanceUpdateThreshold) {
            events.append(.remainingDistance(remaining))
        }
        let remainingTime = self.remainingTime()
        if guidance.timeReporter.shouldReport(remainingTime, threshold: guidance.timeUpdateThreshold) {
            events.append(.remainingTime(remainingTime))
        }
        updateDelay(time: time, &events)
        appendNavInfo(&events)
        if let along = guidance.tracker?.position?.distanceAlong, let e = location.edge, let leg = guidance.tracker?.leg {
            let roadClass = alerts.roadValues(e, network: network).roadClass
            for a in guidance.announcer.update(leg: leg, along: along,
                                               speed: location.speed >= 0 ? location.speed : nil,
                                               roadClass: roadClass, time: time)
            {
                events.append(.announcement(a))
            }
        }
        offerFasterRoute(time: time, fix: fix, location: location, &events)
    }

    /// Fires arrival once for the current leg when the location is within the arrival radius of its destination:
    /// along the route when on it, else straight-line once close along it. True when arrived.
    private mutating func arrive(_ location: RoadSnappedLocation, point: LocalPoint, located: Bool,
                                 _ events: inout [NavigationEvent]) -> Bool
    {
        guard let remaining = guidance.tracker?.remainingDistance,
              let tracker = guidance.tracker, !guidance.arrivedAtCurrentLeg
        else { return guidance.arrivedAtCurrentLeg }
        let radius = guidance.options.arrivalRadius
        let direct = tracker.destinationPoint.map { d in
            ((point.x - d.x) * (point.x - d.x) + (point.y - d.y) * (point.y - d.y)).squareRoot()
        } ?? .infinity
        // Not placed on the leg (a lag-0 answer on a road beside it), the fix itself may still lie on the leg's
        // last metres: at its end within the radius along it, and no farther from it than an on-route fix may be.
        var reached = located && remaining <= radius
        if !reached, !located, remaining <= max(200, 4 * radius) {
            let near = tracker.nearestPlace(point, network: network)
            reached = near.distance <= guidance.options.offRouteDistance && tracker.leg.distance - near.along <= radius
        }
        guard reached || (direct <= radius && remaining <= max(200, 4 * radius)) else { return false }
        guard let destination = guidance.tracker?.leg.destination else { return false }
        guidance.arrivedAtCurrentLeg = true
        if guidance.distanceReporter.shouldReport(0, threshold: 0) { events.append(.remainingDistance(0)) }
        if guidance.timeReporter.shouldReport(0, threshold: 0) { events.append(.remainingTime(0)) }
        // The stopped state before the arrival: a listener continuing to the next leg inside the arrival callback
        // (synchronous delivery) then has its new leg's state last.
        if guidance.stopAtArrival {
            guidance.isActive = false
            guidance.navState = .stopped
            events.append(.navInfo(NavInfo(navState: .stopped)))
        }
        events.append(.arrived(destination))
        return true
    }

    /// The delay category over the rest of the current leg, when a traffic feed is set.
    private mutating func updateDelay(time: Double, _ events: inout [NavigationEvent]) {
        guard guidance.tracker != nil else { return }
        guard let feed = environment.trafficFeed, let t = guidance.tracker else {
            // The initial state once: no data.
            if !environment.delayReported {
                environment.delayReported = true
                events.append(.delay(environment.delayCategory))
            }
            return
        }
        let segment = t.position?.segment ?? 0
        if let at = environment.delayComputedAt, at.segment == segment,
           time - at.time < guidance.options.delayRefreshSeconds
        {
            return
        }
        environment.delayComputedAt = (segment, time)
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
        let category = environment.delayClassifier.category(totals)
        if category != environment.delayCategory || !environment.delayReported {
            environment.delayReported = true
            environment.delayCategory = category
            events.append(.delay(category))
        }
    }

    /// The nav info of the current position, when something a display shows moved on (built only then).
    mutating func appendNavInfo(_ events: inout [NavigationEvent], force: Bool = false) {
        guard guidance.route != nil, let step = guidance.tracker?.currentStepIndex else { return }
        let changed = force || guidance.routeChangedPending || step != guidance.lastStepIndex
        if changed { guidance.stepReporter.reset() }
        let toStep = distanceToStep(step)
        guard guidance.stepReporter.shouldReport(toStep, threshold: guidance.distanceUpdateThreshold) || changed,
              let info = currentNavInfo(step: step, routeChanged: guidance.routeChangedPending)
        else { return }
        guidance.routeChangedPending = false
        guidance.lastStepIndex = step
        events.append(.navInfo(info))
    }

    /// Metres from the position to step `k` of the current leg (0 without steps).
    private func distanceToStep(_ k: Int) -> Double {
        guard let steps = guidance.tracker?.leg.steps, k >= 0, k < steps.count else { return 0 }
        return max(0, steps[k].distanceFromLegStart - (guidance.tracker?.position?.distanceAlong ?? 0))
    }

    /// The turn-by-turn state now (nil without a route); `step` is the current step's index when the caller has it.
    /// Reads the tracker in place (no copy of the leg per fix, none of the current step: the nav info shares the
    /// leg's steps); the remaining steps are shared per step.
    mutating func currentNavInfo(step known: Int? = nil, routeChanged: Bool = false) -> NavInfo? {
        guard let legCount = guidance.route?.legs.count, let remaining = guidance.tracker?.remainingDistance
        else { return nil }
        let legIndex = guidance.legIndex
        let along = guidance.tracker?.position?.distanceAlong ?? 0
        let timeAlong = guidance.tracker?.position?.timeAlong ?? 0
        var laterDistance = 0.0, laterTime = 0.0
        for i in (legIndex + 1)..<max(legIndex + 1, legCount) {
            laterDistance += guidance.route?.legs[i].distance ?? 0
            laterTime += guidance.route?.legs[i].duration ?? 0
        }
        let remainingTime = self.remainingTime()
        var laterTrafficTime = laterTime
        if environment.trafficFeed != nil {
            laterTrafficTime = 0
            for i in (legIndex + 1)..<max(legIndex + 1, legCount) {
                laterTrafficTime += trafficCumulativeTimes(leg: i).last ?? 0
            }
        }
        let speedLimit = currentSpeedLimitKmh()
        var toStep = 0.0, timeToStep = 0.0, stepList: [RouteStep] = [], current = -1, later: [RouteStep] = []
        if let steps = guidance.tracker?.leg.steps, !steps.isEmpty,
           let k = known ?? guidance.tracker?.currentStepIndex, k < steps.count
        {
            toStep = max(0, steps[k].distanceFromLegStart - along)
            timeToStep = max(0, steps[k].timeFromLegStart - timeAlong)
            if guidance.navState == .enroute {
                stepList = steps
                current = k
            }
            if guidance.remainingSteps?.step != k { guidance.remainingSteps = (k, Array(steps[(k + 1)...])) }
            later = guidance.remainingSteps?.steps ?? []
        }
        return NavInfo(navState: guidance.navState, stepList: stepList, currentStepIndex: current,
                       remainingSteps: later, routeChanged: routeChanged, distanceToCurrentStepMeters: toStep,
                       timeToCurrentStepSeconds: timeToStep, distanceToNextDestinationMeters: remaining,
                       timeToNextDestinationSeconds: remainingTime,
                       distanceToFinalDestinationMeters: remaining + laterDistance,
                       timeToFinalDestinationSeconds: remainingTime + laterTrafficTime, speedLimitKmh: speedLimit)
    }

    /// A new route from the current position to the remaining destinations (routing runs inline so that replays
    /// and tests stay deterministic). A failure is tried again `rerouteRetrySeconds` later.
    private mutating func reroute(from fix: Fix, location: RoadSnappedLocation, point: LocalPoint,
                                  _ events: inout [NavigationEvent])
    {
        guard let route = guidance.route else { return }
        let destinations = route.legs[guidance.legIndex...].map(\.destination)
        // The heading: the receiver's course when moving, else the way the raw fixes moved over the last seconds,
        // else the matched road's direction when moving (at lag 0 that can be a cross street at a junction). The
        // origin: the matched point when on a road (a noisy raw fix may lie nearer another road).
        let moving = (fix.speed ?? 0) >= 2
        let heading: Double? = moving && fix.course != nil ? fix.course
            : motionBearing(to: point, at: fix.time ?? location.timestamp)
                ?? (moving && location.course >= 0 ? location.course : nil)
        let origin = Waypoint(coordinate: location.isOnRoad ? location.coordinate : fix.coordinate,
                              preferredHeading: heading, headingTolerance: 90)
        let result = router.route(RouteRequest(origin: origin, destinations: destinations,
                                               options: guidance.routingOptions),
                                  traffic: environment.trafficFeed)
        guidance.lastRouteMessage = result.message
        guard result.status == .ok, let newRoute = result.route else {
            guidance.rerouteRetryAt = location.timestamp + guidance.options.rerouteRetrySeconds
            return
        }
        guidance.rerouteRetryAt = nil
        install(newRoute, &events)
        guidance.navState = .enroute
        feed.matchResetPending = true
        // A new route that is no longer than the arrival radius means the driver is there.
        if arrive(location, point: point, located: true, &events) { return }
        appendNavInfo(&events, force: true)
    }

    /// The way the car moved: the bearing (degrees) to `point` at `time` from the newest raw fix of the last 10 s at
    /// least 20 m from it (raw fixes are noisy: a shorter chord says little), or nil when the car has not moved that
    /// far.
    private func motionBearing(to point: LocalPoint, at time: Double) -> Double? {
        let n = FeedState.recentCapacity
        for k in 1...n {
            let i = (feed.recentNext - k + 2 * n) % n
            let t = feed.recentTimes[i]
            if t >= time { continue }
            if time - t > 10 { return nil }
            let dx = point.x - feed.recentPoints[i].x, dy = point.y - feed.recentPoints[i].y
            if dx * dx + dy * dy >= 400 {
                let degrees = atan2Degrees(dx, dy)
                return degrees < 0 ? degrees + 360 : degrees
            }
        }
        return nil
    }

    /// Makes `route` the current one from its first leg.
    mutating func install(_ newRoute: Route, _ events: inout [NavigationEvent]) {
        guidance.route = newRoute
        environment.trafficTimes.removeAll()
        guidance.legIndex = 0
        startLeg(&events)
    }

    /// Starts tracking the leg at `legIndex`.
    mutating func startLeg(_ events: inout [NavigationEvent]) {
        guard let route = guidance.route, guidance.legIndex < route.legs.count else { return }
        let leg = route.legs[guidance.legIndex]
        // The snapped destination lies on the map, where PROJ does not fail; should it, the end of the leg's last
        // segment is the same point without PROJ.
        let destination = (try? project(leg.snappedDestination))
            ?? leg.segments.last.map { network.localPoint(onEdge: $0.edge, offset: $0.toOffset) }
        guidance.tracker = LegTracker(leg: leg, destinationPoint: destination)
        guidance.arrivedAtCurrentLeg = false
        guidance.offRouteCount = 0
        guidance.wrongCourseCount = 0
        guidance.timeReporter.reset()
        guidance.distanceReporter.reset()
        guidance.stepReporter.reset()
        guidance.lastStepIndex = -1
        guidance.remainingSteps = nil
        environment.delayComputedAt = nil
        guidance.announcer.reset()
        guidance.offers.pending = nil
        guidance.routeChangedPending = true
        // The route's arcs come from the same network as the matcher's graph: setting them cannot fail on range;
        // out of memory leaves the matcher without a route bias.
        try? matcher.setRoute(arcs: leg.segments.map { Int32($0.arc) })
        if guidance.isActive { guidance.navState = .enroute }
        events.append(.routeChanged)
        if case .path(_, _, true) = simulation.mode {
            simulation.mode = .path(currentLegPath(), distance: 0, followsRoute: true)
        }
    }

    mutating func clearRoute(_ events: inout [NavigationEvent]) {
        let had = guidance.route != nil
        guidance.route = nil
        guidance.tracker = nil
        guidance.remainingSteps = nil
        guidance.legIndex = 0
        guidance.isActive = false
        guidance.navState = .stopped
        try? matcher.setRoute(arcs: [])
        guidance.traveledPath.removeAll()
        environment.delayCategory = .noData
        if had { events.append(.routeChanged) }
        if case .path(_, _, true) = simulation.mode { simulation.mode = .idle }
    }

    mutating func setGuidanceActive(_ active: Bool, _ events: inout [NavigationEvent]) {
        guard active != guidance.isActive else { return }
        guidance.isActive = active && guidance.route != nil
        if guidance.isActive {
            guidance.navState = .enroute
            appendNavInfo(&events, force: true)
        } else {
            guidance.navState = .stopped
            if guidance.route != nil { events.append(.navInfo(NavInfo(navState: .stopped))) }
        }
    }

    /// Moves on to the next leg after arriving; returns its destination, nil when none is left.
    mutating func continueToNextDestination(_ events: inout [NavigationEvent]) -> Waypoint? {
        guard let route = guidance.route else { return nil }
        guard guidance.legIndex + 1 < route.legs.count else {
            clearRoute(&events)
            return nil
        }
        guidance.legIndex += 1
        startLeg(&events)
        if guidance.isActive { appendNavInfo(&events, force: true) }
        return route.legs[guidance.legIndex].destination
    }

    // MARK: Simulator

    /// The path of the current leg from the simulator's point of view.
    func currentLegPath() -> SimulationPath {
        guard let route = guidance.route, guidance.legIndex < route.legs.count else { return SimulationPath() }
        return SimulationPath(legs: route.legs[guidance.legIndex...guidance.legIndex], network: network)
    }

    /// Advances the simulated car by one interval and processes its fix.
    mutating func simulatorTick(_ events: inout [NavigationEvent]) {
        if !simulation.isPaused, case let .path(path, distance, follows) = simulation.mode {
            let speed = path.state(at: distance).speed
            simulation.mode = .path(path, distance: min(path.length, distance + speed * simulation.interval
                                        * simulation.speedMultiplier), followsRoute: follows)
        }
        emitSimulatedFix(&events)
    }

    /// The simulated fix at the current simulated place, processed like any raw fix.
    mutating func emitSimulatedFix(_ events: inout [NavigationEvent]) {
        let now = clock.now
        let fix: Fix
        let accuracy = simulation.isJitterEnabled ? simulation.jitterSigma : 3
        switch simulation.mode {
        case .idle:
            return
        case let .location(c):
            fix = Fix(coordinate: jittered(c), time: now, speed: 0, horizontalAccuracy: accuracy)
        case let .path(path, distance, _):
            let s = path.state(at: distance)
            let atEnd = distance >= path.length - 1e-6
            let g = frame.inverse(s.point)
            let c = GeoCoordinate(uncheckedLatitude: g.latitude, longitude: g.longitude)
            let speed = simulation.isPaused || atEnd ? 0 : s.speed * simulation.speedMultiplier
            fix = Fix(coordinate: jittered(c), time: now, course: s.course, speed: speed, horizontalAccuracy: accuracy)
        }
        process(fix, &events)
    }

    /// The coordinate moved by Gaussian noise of `jitterSigma` metres when jittering is on (deterministic sequence).
    private mutating func jittered(_ c: GeoCoordinate) -> GeoCoordinate {
        guard simulation.isJitterEnabled else { return c }
        let sigma = simulation.jitterSigma
        let r = sigma * (-2 * RSMath.log(max(simulation.random.unit(), 1e-12))).squareRoot()
        let a = 2 * Double.pi * simulation.random.unit()
        // The simulator drives the route, on the map: PROJ does not refuse its points (should it, no jitter).
        guard let p = try? project(c) else { return c }
        let g = frame.inverse(LocalPoint(x: p.x + r * RSMath.cos(a), y: p.y + r * RSMath.sin(a)))
        return GeoCoordinate(uncheckedLatitude: g.latitude, longitude: g.longitude)
    }
}

/// A navigation session's engine: the state a raw fix touches (`state`, one lock, so each fix is processed whole
/// and in order), who is told (`listeners`, its own lock) and the simulator's timer. Events produced under the
/// state lock are delivered after it is released: no listener is called while a lock is held.
final class NavigationEngine: Sendable {
    let network: RoadNetwork
    let router: Router
    let clock: NavigationClock
    let listenerQueue: DispatchQueue?
    /// Routes off the caller's thread; its thread ends with the engine (not Dispatch's pool, which outlives it).
    let routingQueue = SerialWorker()
    let state: Locked<NavigationState>
    let listeners = Locked(ListenerRegistry())
    private let simulationTimer = Locked<ClockTimer?>(nil)

    init(network: RoadNetwork, router: Router, clock: NavigationClock, listenerQueue: DispatchQueue?,
         matchOptions: NavigationMatchOptions) throws(RoadSnapError)
    {
        self.network = network
        self.router = router
        self.clock = clock
        self.listenerQueue = listenerQueue
        state = Locked(try NavigationState(network: network, router: router, clock: clock, matchOptions: matchOptions))
    }

    /// Runs `body` on the state under its lock, then delivers the events it produced (after the lock).
    func perform<R: Sendable>(_ body: (inout NavigationState, inout [NavigationEvent]) -> R) -> R {
        let (result, events) = state.withLock { s -> (R, [NavigationEvent]) in
            var events: [NavigationEvent] = []
            swap(&events, &s.spareEvents)
            let r = body(&s, &events)
            return (r, events)
        }
        if !events.isEmpty { deliver(events) } else if events.capacity > 0 { recycle(events) }
        return result
    }

    /// Reads the state under its lock (no mutation: the closure gets the state, not `inout`).
    func read<R: Sendable>(_ body: (NavigationState) -> R) -> R { state.withLock { body($0) } }

    /// Changes the state under its lock without events (settings).
    func update<R: Sendable>(_ body: (inout NavigationState) -> R) -> R { state.withLock { body(&$0) } }

    // MARK: Delivery

    /// Gives an event list back emptied (capacity kept) for the next fix.
    private func recycle(_ events: consuming [NavigationEvent]) {
        var e = events
        e.removeAll(keepingCapacity: true)
        state.withLock { s in if s.spareEvents.capacity == 0 { swap(&s.spareEvents, &e) } }
    }

    private func deliver(_ events: [NavigationEvent]) {
        let l = listeners.withLock { $0 }
        if let listenerQueue {
            listenerQueue.async { NavigationEngine.dispatch(events, l) }
        } else {
            NavigationEngine.dispatch(events, l)
            recycle(events)
        }
    }

    /// Calls the listeners for each event, in order. The façades are loaded once per delivery, each listener from
    /// its weak box for its call (read in place). The façades are bound by `switch` (a `guard let` or a closure per
    /// event retained and released each façade, whose weak references make that the slow, side-table path).
    private static func dispatch(_ events: [NavigationEvent], _ l: ListenerRegistry) {
        let navigator = l.navigatorFacade, provider = l.providerFacade
        let nav = l.navigator, loc = l.provider
        for i in events.indices {
            switch events[i] {
            case let .location(location):
                switch provider {
                case let .some(p): for k in loc.indices { loc[k].value?.locationProvider(p, didUpdate: location) }
                case .none: break
                }
            case let .skippedFix(fix, error):
                switch provider {
                case let .some(p): for k in loc.indices { loc[k].value?.locationProvider(p, didSkip: fix, error: error) }
                case .none: break
                }
            case let .status(callback, status): callback(status)
            default:
                switch navigator {
                case let .some(n): for k in nav.indices { if let x = nav[k].value { tell(x, n, events[i]) } }
                case .none: break
                }
            }
        }
    }

    /// Calls the navigator listener's method for one navigator event.
    private static func tell(_ x: NavigatorListener, _ n: Navigator, _ event: NavigationEvent) {
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
        case .location, .skippedFix, .status: break
        }
    }

    // MARK: Requests

    /// Routes from the current location to `waypoints` on the routing queue; a newer request cancels this one.
    func setDestinations(_ waypoints: [Waypoint], options: RoutingOptions,
                         callback: @escaping @Sendable (RouteStatus) -> Void)
    {
        let (generation, origin, feed) = update { s -> (Int, Waypoint?, TrafficFeed?) in
            s.guidance.requestGeneration += 1
            guard let fix = s.feed.lastRawFix else {
                return (s.guidance.requestGeneration, nil, s.environment.trafficFeed)
            }
            let moving = (fix.speed ?? 0) >= 2
            return (s.guidance.requestGeneration,
                    Waypoint(coordinate: fix.coordinate, preferredHeading: moving ? fix.course : nil,
                             headingTolerance: 90), s.environment.trafficFeed)
        }
        routingQueue.async { [self] in
            let isCanceled = { self.read { $0.guidance.requestGeneration != generation } }
            let result = isCanceled() ? RouteResult(status: .canceled)
                : router.route(RouteRequest(origin: origin, destinations: waypoints, options: options),
                               traffic: feed, isCanceled: isCanceled)
            perform { s, events in
                var status = result.status
                if s.guidance.requestGeneration != generation { status = .canceled }
                s.guidance.lastRouteMessage = status == .canceled && result.message.isEmpty
                    ? "a newer request replaced this one" : result.message
                if status == .ok, let route = result.route {
                    s.guidance.routingOptions = options
                    s.guidance.traveledPath.removeAll()
                    s.install(route, &events)
                    if s.guidance.isActive { s.appendNavInfo(&events, force: true) }
                }
                events.append(.status(callback, status))
            }
        }
    }

    // MARK: Simulator

    /// Starts (or changes) the simulation and its timer; the first fix is processed now.
    func startSimulation(_ mode: SimulationMode) {
        let interval = perform { s, events -> Double in
            s.simulation.mode = mode
            s.emitSimulatedFix(&events)
            return s.simulation.interval
        }
        guard simulationTimer.withLock({ $0 == nil }) else { return }
        let new = clock.schedule(every: interval) { [weak self] in self?.simulatorTick() }
        let extra = simulationTimer.withLock { t -> ClockTimer? in
            if t == nil { t = new; return nil }
            return new  // another start won the race: keep one timer
        }
        extra?.cancel()
    }

    func stopSimulation() {
        update { $0.simulation.mode = .idle }
        simulationTimer.withLock { t -> ClockTimer? in
            let old = t
            t = nil
            return old
        }?.cancel()
    }

    func simulatorTick() { perform { s, events in s.simulatorTick(&events) } }
}
