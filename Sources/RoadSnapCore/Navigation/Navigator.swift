/// Guidance to one or more destinations: routes, progress, arrival, rerouting, remaining time and distance,
/// traffic delay, speed alerts and lighting. Obtained from a `NavigationSession`; thread-safe.
public final class Navigator: Sendable {
    let engine: NavigationEngine

    init(engine: NavigationEngine) { self.engine = engine }

    /// Adds a listener (held weakly); events arrive on the session's listener queue.
    public func add(_ listener: NavigatorListener) {
        engine.listeners.withLock {
            $0 = $0.with(navigator: $0.navigator.filter { $0.value != nil } + [WeakNavigatorListener(value: listener)])
        }
        engine.introduce(listener)
    }

    public func remove(_ listener: NavigatorListener) {
        engine.listeners.withLock {
            $0 = $0.with(navigator: $0.navigator.filter { $0.value != nil && $0.value !== listener })
        }
    }

    /// Routes from the current location through `waypoints` (one leg each); `callback` gets the route status on the
    /// listener queue. A newer call cancels a pending one (its status is `.canceled`). Guidance is not started:
    /// set `isGuidanceActive`.
    public func setDestinations(_ waypoints: [Waypoint], routingOptions: RoutingOptions = RoutingOptions(),
                                callback: @escaping @Sendable (RouteStatus) -> Void)
    {
        engine.setDestinations(waypoints, options: routingOptions, callback: callback)
    }

    /// Starts the next leg after arriving; returns its destination, nil when there is none (destinations cleared).
    @discardableResult
    public func continueToNextDestination() -> Waypoint? {
        engine.perform { $0.continueToNextDestination(&$1) }
    }

    /// Removes the route and stops guidance.
    public func clearDestinations() { engine.perform { $0.clearRoute(&$1) } }

    /// The legs still to drive, the current one first.
    public var routeLegs: [RouteLeg] {
        engine.read { s in s.guidance.route.map { Array($0.legs[s.guidance.legIndex...]) } ?? [] }
    }

    /// The leg being driven (its destination, coordinate and path).
    public var currentRouteLeg: RouteLeg? { engine.read { $0.guidance.tracker?.leg } }

    /// Road-snapped positions driven under guidance since the destinations were set.
    public var traveledPath: [GeoCoordinate] { engine.read { $0.guidance.traveledPath } }

    /// Whether guidance runs (events, rerouting, arrival). Needs a route.
    public var isGuidanceActive: Bool {
        get { engine.read { $0.guidance.isActive } }
        set { engine.perform { $0.setGuidanceActive(newValue, &$1) } }
    }

    /// Stop guidance on arrival at each destination (default true).
    public var stopGuidanceAtArrival: Bool {
        get { engine.read { $0.guidance.stopAtArrival } }
        set { engine.update { $0.guidance.stopAtArrival = newValue } }
    }

    /// Least change in seconds of the remaining time that is reported (default 1; negative = default; the maximum
    /// value disables the callback).
    public var timeUpdateThreshold: Double {
        get { engine.read { $0.guidance.timeUpdateThreshold } }
        set { engine.update { $0.guidance.timeUpdateThreshold = normalizedThreshold(newValue, default: 1) } }
    }

    /// Least change in metres of the remaining distance that is reported (default 1; negative = default; the
    /// maximum value disables the callback).
    public var distanceUpdateThreshold: Double {
        get { engine.read { $0.guidance.distanceUpdateThreshold } }
        set { engine.update { $0.guidance.distanceUpdateThreshold = normalizedThreshold(newValue, default: 1) } }
    }

    /// Seconds to the next destination (the maximum value without a route).
    public var timeToNextDestination: Double {
        engine.update { $0.remainingTime() }
    }

    /// Metres to the next destination (the maximum value without a route).
    public var distanceToNextDestination: Double {
        engine.read { $0.guidance.tracker?.remainingDistance ?? .greatestFiniteMagnitude }
    }

    /// Seconds to a waypoint of the route (nil when it is not ahead on the route).
    public func timeToWaypoint(_ waypoint: Waypoint) -> Double? { toWaypoint(waypoint)?.time }

    /// Metres to a waypoint of the route (nil when it is not ahead on the route).
    public func distanceToWaypoint(_ waypoint: Waypoint) -> Double? { toWaypoint(waypoint)?.distance }

    private func toWaypoint(_ waypoint: Waypoint) -> (time: Double, distance: Double)? {
        engine.read { s in
            guard let route = s.guidance.route, let t = s.guidance.tracker else { return nil }
            var time = t.remainingTime, distance = t.remainingDistance
            for (i, leg) in route.legs.enumerated() where i >= s.guidance.legIndex {
                if i > s.guidance.legIndex { time += leg.duration; distance += leg.distance }
                if leg.destination == waypoint { return (time, distance) }
            }
            return nil
        }
    }

    /// Traffic delay to the next destination (`noData` without a traffic feed covering the route).
    public var delayCategoryToNextDestination: DelayCategory { engine.read { $0.environment.delayCategory } }

    /// Current traffic speeds used for the delay category.
    public var trafficFeed: TrafficFeed? {
        get { engine.read { $0.environment.trafficFeed } }
        set { engine.update { $0.environment.trafficFeed = newValue } }
    }

    /// Speed alert thresholds; nil for the built-in defaults (see `SpeedAlertEvaluator`).
    public var speedAlertOptions: SpeedAlertOptions? {
        get { engine.read { $0.alerts.evaluator.options } }
        set { engine.update { $0.alerts.evaluator.options = newValue } }
    }

    /// Units of the built-in speed alert thresholds (10/20 km/h or 5/10 mph over the limit).
    public var speedAlertUnits: SpeedAlertUnits {
        get { engine.read { $0.alerts.evaluator.units } }
        set { engine.update { $0.alerts.evaluator.units = newValue } }
    }

    /// The lighting the sun's elevation at the current location suggests.
    public var suggestedLightingMode: LightingMode { engine.read { $0.environment.lightingMode } }

    /// Arrival radius, off-route and rerouting tunables.
    public var guidanceOptions: GuidanceOptions {
        get { engine.read { $0.guidance.options } }
        set { engine.update { $0.guidance.options = newValue } }
    }

    /// When voice prompts are due and their units (metric, imperial or UK by the map's country by default).
    public var announcementOptions: AnnouncementOptions {
        get { engine.read { $0.guidance.announcer.options } }
        set { engine.update { $0.guidance.announcer.options = newValue } }
    }

    /// Why the last route request (destinations or a reroute) failed, naming the waypoint; empty after success.
    public var lastRouteMessage: String { engine.read { $0.guidance.lastRouteMessage } }

    /// Guidance state.
    public var navState: NavState { engine.read { $0.guidance.navState } }

    /// The turn-by-turn state now (nil without a route).
    public var navInfo: NavInfo? { engine.update { $0.currentNavInfo() } }
}

/// Road-snapped locations, one per raw fix, from online lag-bounded map matching (biased to the route during
/// guidance). Raw fixes come from the session's simulator or from `updateLocation(with:)` (replays, gpsd).
public final class RoadSnappedLocationProvider: Sendable {
    let engine: NavigationEngine

    init(engine: NavigationEngine) { self.engine = engine }

    /// Adds a listener (held weakly); locations arrive on the session's listener queue.
    public func add(_ listener: RoadSnappedLocationProviderListener) {
        engine.listeners.withLock {
            $0 = $0.with(provider: $0.provider.filter { $0.value != nil } + [WeakLocationListener(value: listener)])
        }
    }

    public func remove(_ listener: RoadSnappedLocationProviderListener) {
        engine.listeners.withLock {
            $0 = $0.with(provider: $0.provider.filter { $0.value != nil && $0.value !== listener })
        }
    }

    /// Starts reporting locations to listeners.
    public func startUpdatingLocation() { engine.update { $0.feed.isUpdatingLocation = true } }

    public func stopUpdatingLocation() { engine.update { $0.feed.isUpdatingLocation = false } }

    public var isUpdatingLocation: Bool { engine.read { $0.feed.isUpdatingLocation } }

    /// Kept for API parity; a headless session always runs in the background.
    public var allowsBackgroundLocationUpdates: Bool {
        get { engine.read { $0.feed.allowsBackgroundLocationUpdates } }
        set { engine.update { $0.feed.allowsBackgroundLocationUpdates = newValue } }
    }

    /// The latest road-snapped location.
    public var latestLocation: RoadSnappedLocation? { engine.read { $0.feed.lastLocation } }

    /// Feeds one raw fix (from a receiver, a replay or gpsd): it is snapped, reported and drives the navigator.
    /// A fix without a time takes the session clock's time.
    public func updateLocation(with fix: Fix) { _ = updateLocationReportingSkip(with: fix) }

    /// `updateLocation(with:)` that also returns why the fix was skipped (PROJ refused it), nil when it was used.
    package func updateLocationReportingSkip(with fix: Fix) -> RoadSnapError? {
        engine.perform { $0.process(fix, &$1) }
    }
}

/// Drives the session with simulated fixes on its clock (virtual in tests, real in demos): along the route,
/// along a new route, or at a place.
public final class LocationSimulator: Sendable {
    let engine: NavigationEngine

    init(engine: NavigationEngine) { self.engine = engine }

    /// Drives along the navigator's current leg from the current progress, following reroutes and
    /// `continueToNextDestination`; waits at the leg's end. False when there is no route.
    @discardableResult
    public func simulateLocationsAlongExistingRoute() -> Bool {
        let path = engine.read { s -> (SimulationPath, Double)? in
            guard s.guidance.route != nil else { return nil }
            return (s.currentLegPath(), s.guidance.tracker?.position?.distanceAlong ?? 0)
        }
        guard let (path, along) = path else { return false }
        engine.startSimulation(.path(path, distance: along, followsRoute: true))
        return true
    }

    /// Drives along a route of its own from the current location to `destinations` (the navigator's route is not
    /// changed); returns the routing status. Waits at the last destination.
    @discardableResult
    public func simulateAlongNewRoute(toDestinations destinations: [Waypoint],
                                      routingOptions: RoutingOptions = RoutingOptions()) -> RouteStatus
    {
        let origin = engine.read { $0.feed.lastRawFix.map { Waypoint(coordinate: $0.coordinate) } }
        let result = engine.router.route(RouteRequest(origin: origin, destinations: destinations, options: routingOptions))
        guard result.status == .ok, let route = result.route else { return result.status }
        engine.startSimulation(.path(SimulationPath(legs: route.legs, network: engine.network), distance: 0,
                                     followsRoute: false))
        return .ok
    }

    /// Reports a stationary fix at `coordinate` now and on every tick.
    public func simulateLocation(at coordinate: GeoCoordinate) {
        engine.startSimulation(.location(coordinate))
    }

    /// Stops producing fixes.
    public func stopSimulation() { engine.stopSimulation() }

    /// While paused, fixes keep coming but the position does not advance.
    public var isPaused: Bool {
        get { engine.read { $0.simulation.isPaused } }
        set { engine.update { $0.simulation.isPaused = newValue } }
    }

    /// Multiplies the simulated speed (default 1; values <= 0 are ignored).
    public var speedMultiplier: Double {
        get { engine.read { $0.simulation.speedMultiplier } }
        set { engine.update { if newValue > 0, newValue.isFinite { $0.simulation.speedMultiplier = newValue } } }
    }

    /// Adds Gaussian position noise (`jitterSigma` metres, deterministic sequence) to simulated fixes.
    public var isLocationJitteringEnabled: Bool {
        get { engine.read { $0.simulation.isJitterEnabled } }
        set { engine.update { $0.simulation.isJitterEnabled = newValue } }
    }

    /// Standard deviation in metres of the jitter added to simulated fixes (default 4; values <= 0 are ignored).
    public var jitterSigma: Double {
        get { engine.read { $0.simulation.jitterSigma } }
        set { engine.update { if newValue > 0, newValue.isFinite { $0.simulation.jitterSigma = newValue } } }
    }

    /// Seconds of the session clock between simulated fixes (default 1; takes effect when a simulation starts).
    public var updateInterval: Double {
        get { engine.read { $0.simulation.interval } }
        set { engine.update { if newValue > 0, newValue.isFinite { $0.simulation.interval = newValue } } }
    }

    /// Whether a simulation is producing fixes.
    public var isSimulating: Bool {
        engine.read { if case .idle = $0.simulation.mode { return false } else { return true } }
    }
}
