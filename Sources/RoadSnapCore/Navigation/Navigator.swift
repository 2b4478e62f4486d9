/// Guidance to one or more destinations: routes, progress, arrival, rerouting, remaining time and distance,
/// traffic delay, speed alerts and lighting. Obtained from a `NavigationSession`; thread-safe.
public final class Navigator: Sendable {
    let engine: NavigationEngine

    init(engine: NavigationEngine) { self.engine = engine }

    /// Adds a listener (held weakly); events arrive on the session's listener queue.
    public func add(_ listener: NavigatorListener) {
        engine.read {
            engine.navigatorListeners.removeAll { $0.value == nil }
            engine.navigatorListeners.append(WeakNavigatorListener(value: listener))
        }
        engine.introduce(listener)
    }

    public func remove(_ listener: NavigatorListener) {
        engine.read {
            engine.navigatorListeners.removeAll { $0.value == nil || $0.value === listener }
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
        engine.perform { engine.continueToNextDestination(&$0) }
    }

    /// Removes the route and stops guidance.
    public func clearDestinations() { engine.perform { engine.clearRoute(&$0) } }

    /// The legs still to drive, the current one first.
    public var routeLegs: [RouteLeg] {
        engine.read { engine.route.map { Array($0.legs[engine.legIndex...]) } ?? [] }
    }

    /// The leg being driven (its destination, coordinate and path).
    public var currentRouteLeg: RouteLeg? { engine.read { engine.tracker?.leg } }

    /// Road-snapped positions driven under guidance since the destinations were set.
    public var traveledPath: [GeoCoordinate] { engine.read { engine.traveledPath } }

    /// Whether guidance runs (events, rerouting, arrival). Needs a route.
    public var isGuidanceActive: Bool {
        get { engine.read { engine.isGuidanceActive } }
        set { engine.perform { engine.setGuidanceActive(newValue, &$0) } }
    }

    /// Stop guidance on arrival at each destination (default true).
    public var stopGuidanceAtArrival: Bool {
        get { engine.read { engine.stopGuidanceAtArrival } }
        set { engine.read { engine.stopGuidanceAtArrival = newValue } }
    }

    /// Least change in seconds of the remaining time that is reported (default 1; negative = default; the maximum
    /// value disables the callback).
    public var timeUpdateThreshold: Double {
        get { engine.read { engine.timeUpdateThreshold } }
        set { engine.read { engine.timeUpdateThreshold = normalizedThreshold(newValue, default: 1) } }
    }

    /// Least change in metres of the remaining distance that is reported (default 1; negative = default; the
    /// maximum value disables the callback).
    public var distanceUpdateThreshold: Double {
        get { engine.read { engine.distanceUpdateThreshold } }
        set { engine.read { engine.distanceUpdateThreshold = normalizedThreshold(newValue, default: 1) } }
    }

    /// Seconds to the next destination (the maximum value without a route).
    public var timeToNextDestination: Double {
        engine.read { engine.tracker.map { engine.remainingTime($0) } ?? .greatestFiniteMagnitude }
    }

    /// Metres to the next destination (the maximum value without a route).
    public var distanceToNextDestination: Double {
        engine.read { engine.tracker?.remainingDistance ?? .greatestFiniteMagnitude }
    }

    /// Seconds to a waypoint of the route (nil when it is not ahead on the route).
    public func timeToWaypoint(_ waypoint: Waypoint) -> Double? { toWaypoint(waypoint)?.time }

    /// Metres to a waypoint of the route (nil when it is not ahead on the route).
    public func distanceToWaypoint(_ waypoint: Waypoint) -> Double? { toWaypoint(waypoint)?.distance }

    private func toWaypoint(_ waypoint: Waypoint) -> (time: Double, distance: Double)? {
        engine.read {
            guard let route = engine.route, let t = engine.tracker else { return nil }
            var time = t.remainingTime, distance = t.remainingDistance
            for (i, leg) in route.legs.enumerated() where i >= engine.legIndex {
                if i > engine.legIndex { time += leg.duration; distance += leg.distance }
                if leg.destination == waypoint { return (time, distance) }
            }
            return nil
        }
    }

    /// Traffic delay to the next destination (`noData` without a traffic feed covering the route).
    public var delayCategoryToNextDestination: DelayCategory { engine.read { engine.delayCategory } }

    /// Current traffic speeds used for the delay category.
    public var trafficFeed: TrafficFeed? {
        get { engine.read { engine.trafficFeed } }
        set { engine.read { engine.trafficFeed = newValue } }
    }

    /// Speed alert thresholds; nil for the built-in defaults (see `SpeedAlertEvaluator`).
    public var speedAlertOptions: SpeedAlertOptions? {
        get { engine.read { engine.speedAlert.options } }
        set { engine.read { engine.speedAlert.options = newValue } }
    }

    /// Units of the built-in speed alert thresholds (10/20 km/h or 5/10 mph over the limit).
    public var speedAlertUnits: SpeedAlertUnits {
        get { engine.read { engine.speedAlert.units } }
        set { engine.read { engine.speedAlert.units = newValue } }
    }

    /// The lighting the sun's elevation at the current location suggests.
    public var suggestedLightingMode: LightingMode { engine.read { engine.suggestedLightingMode } }

    /// Arrival radius, off-route and rerouting tunables.
    public var guidanceOptions: GuidanceOptions {
        get { engine.read { engine.guidance } }
        set { engine.read { engine.guidance = newValue } }
    }

    /// When voice prompts are due and their units (metric, imperial or UK by the map's country by default).
    public var announcementOptions: AnnouncementOptions {
        get { engine.read { engine.announcer.options } }
        set { engine.read { engine.announcer.options = newValue } }
    }

    /// Why the last route request (destinations or a reroute) failed, naming the waypoint; empty after success.
    public var lastRouteMessage: String { engine.read { engine.lastRouteMessage } }

    /// Guidance state.
    public var navState: NavState { engine.read { engine.navState } }

    /// The turn-by-turn state now (nil without a route).
    public var navInfo: NavInfo? { engine.read { engine.currentNavInfo() } }
}

/// Road-snapped locations, one per raw fix, from online lag-bounded map matching (biased to the route during
/// guidance). Raw fixes come from the session's simulator or from `updateLocation(with:)` (replays, gpsd).
public final class RoadSnappedLocationProvider: Sendable {
    let engine: NavigationEngine

    init(engine: NavigationEngine) { self.engine = engine }

    /// Adds a listener (held weakly); locations arrive on the session's listener queue.
    public func add(_ listener: RoadSnappedLocationProviderListener) {
        engine.read {
            engine.providerListeners.removeAll { $0.value == nil }
            engine.providerListeners.append(WeakLocationListener(value: listener))
        }
    }

    public func remove(_ listener: RoadSnappedLocationProviderListener) {
        engine.read {
            engine.providerListeners.removeAll { $0.value == nil || $0.value === listener }
        }
    }

    /// Starts reporting locations to listeners.
    public func startUpdatingLocation() { engine.read { engine.isUpdatingLocation = true } }

    public func stopUpdatingLocation() { engine.read { engine.isUpdatingLocation = false } }

    public var isUpdatingLocation: Bool { engine.read { engine.isUpdatingLocation } }

    /// Kept for API parity; a headless session always runs in the background.
    public var allowsBackgroundLocationUpdates: Bool {
        get { engine.read { engine.allowsBackgroundLocationUpdates } }
        set { engine.read { engine.allowsBackgroundLocationUpdates = newValue } }
    }

    /// The latest road-snapped location.
    public var latestLocation: RoadSnappedLocation? { engine.read { engine.lastLocation } }

    /// Feeds one raw fix (from a receiver, a replay or gpsd): it is snapped, reported and drives the navigator.
    /// A fix without a time takes the session clock's time.
    public func updateLocation(with fix: Fix) { engine.perform { engine.process(fix, &$0) } }
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
        engine.perform { events in
            guard engine.route != nil else { return false }
            let along = engine.tracker?.position?.distanceAlong ?? 0
            engine.startSimulation(.path(engine.currentLegPath(), distance: along, followsRoute: true), &events)
            return true
        }
    }

    /// Drives along a route of its own from the current location to `destinations` (the navigator's route is not
    /// changed); returns the routing status. Waits at the last destination.
    @discardableResult
    public func simulateAlongNewRoute(toDestinations destinations: [Waypoint],
                                      routingOptions: RoutingOptions = RoutingOptions()) -> RouteStatus
    {
        let origin = engine.read { engine.lastRawFix.map { Waypoint(coordinate: $0.coordinate) } }
        let result = engine.router.route(RouteRequest(origin: origin, destinations: destinations, options: routingOptions))
        guard result.status == .ok, let route = result.route else { return result.status }
        engine.perform { events in
            engine.startSimulation(.path(SimulationPath(legs: route.legs, network: engine.network), distance: 0,
                                         followsRoute: false), &events)
        }
        return .ok
    }

    /// Reports a stationary fix at `coordinate` now and on every tick.
    public func simulateLocation(at coordinate: GeoCoordinate) {
        engine.perform { engine.startSimulation(.location(coordinate), &$0) }
    }

    /// Stops producing fixes.
    public func stopSimulation() { engine.read { engine.stopSimulation() } }

    /// While paused, fixes keep coming but the position does not advance.
    public var isPaused: Bool {
        get { engine.read { engine.simulationPaused } }
        set { engine.read { engine.simulationPaused = newValue } }
    }

    /// Multiplies the simulated speed (default 1; values <= 0 are ignored).
    public var speedMultiplier: Double {
        get { engine.read { engine.speedMultiplier } }
        set { engine.read { if newValue > 0, newValue.isFinite { engine.speedMultiplier = newValue } } }
    }

    /// Adds Gaussian position noise (`jitterSigma` metres, deterministic sequence) to simulated fixes.
    public var isLocationJitteringEnabled: Bool {
        get { engine.read { engine.isJitterEnabled } }
        set { engine.read { engine.isJitterEnabled = newValue } }
    }

    /// Standard deviation in metres of the jitter added to simulated fixes (default 4; values <= 0 are ignored).
    public var jitterSigma: Double {
        get { engine.read { engine.jitterSigma } }
        set { engine.read { if newValue > 0, newValue.isFinite { engine.jitterSigma = newValue } } }
    }

    /// Seconds of the session clock between simulated fixes (default 1; takes effect when a simulation starts).
    public var updateInterval: Double {
        get { engine.read { engine.simulationInterval } }
        set { engine.read { if newValue > 0, newValue.isFinite { engine.simulationInterval = newValue } } }
    }

    /// Whether a simulation is producing fixes.
    public var isSimulating: Bool {
        engine.read { if case .idle = engine.simulation { return false } else { return true } }
    }
}
