/// When the navigator looks for a faster route under traffic during guidance.
public struct RerouteOfferOptions: Hashable, Sendable {
    /// A route at least this many percent faster (traffic ETA) than the rest of the current one is offered
    /// (default 10).
    public var minimumSavingPercent: Double
    /// Seconds (fix time) between searches for a faster route (default 60).
    public var checkIntervalSeconds: Double

    /// Checks the percentage is in (0, 100) and the interval positive.
    public init(minimumSavingPercent: Double, checkIntervalSeconds: Double = 60) throws(RoadSnapError) {
        guard minimumSavingPercent > 0, minimumSavingPercent < 100 else {
            throw .invalidArgument("the faster-route saving must be a percentage in (0, 100), got \(minimumSavingPercent)")
        }
        guard checkIntervalSeconds > 0, checkIntervalSeconds.isFinite else {
            throw .invalidArgument("the faster-route check interval must be > 0 s, got \(checkIntervalSeconds)")
        }
        self.init(saving: minimumSavingPercent, interval: checkIntervalSeconds)
    }

    /// The defaults: 10 % faster, checked every 60 s.
    public static let standard = RerouteOfferOptions(saving: 10, interval: 60)

    private init(saving: Double, interval: Double) {
        minimumSavingPercent = saving
        checkIntervalSeconds = interval
    }
}

/// A faster route under the current traffic, offered during guidance (`NavigatorListener.navigator(_:didOffer:)`);
/// `Navigator.acceptRerouteOffer()` switches to it.
public struct RerouteOffer: Hashable, Sendable {
    /// The offered route, from where the driver was when it was found to the remaining destinations.
    public var route: Route
    /// Traffic ETA to the final destination on the current route, seconds.
    public var currentETA: Double
    /// Traffic ETA to the final destination on the offered route, seconds.
    public var offeredETA: Double
    /// Fix time at which the offer was made (seconds).
    public var time: Double

    /// Seconds saved by taking the offer.
    public var savingSeconds: Double { currentETA - offeredETA }
    /// Percent of the current ETA saved.
    public var savingPercent: Double { currentETA > 0 ? 100 * (currentETA - offeredETA) / currentETA : 0 }

    public init(route: Route, currentETA: Double, offeredETA: Double, time: Double) {
        self.route = route; self.currentETA = currentETA; self.offeredETA = offeredETA; self.time = time
    }
}

/// Faster-route search state of the engine.
struct RerouteOfferState {
    var checkedAt: Double?
    var pending: RerouteOffer?
}

extension NavigationState {
    /// Traffic ETA (seconds) from the current position to the final destination on the current route.
    func remainingTrafficTime(_ feed: TrafficFeed) -> Double? {
        guard let route = guidance.route, let t = guidance.tracker else { return nil }
        let along = t.position?.distanceAlong ?? 0
        var total = 0.0
        for s in t.leg.segments[(t.position?.segment ?? 0)...] {
            let start = max(along, s.distanceFromLegStart)
            let length = s.distanceFromLegStart + s.distance - start
            guard length > 0, s.distance > 0 else { continue }
            let edge = network.edges[s.edge]
            let free = CarProfile.seconds(edge, length: s.distance, forward: s.isForward)
            total += (s.duration - free) * length / s.distance
                + feed.seconds(edge, length: length, forward: s.isForward)
        }
        let later = Route(legs: Array(route.legs.dropFirst(guidance.legIndex + 1)), drivingSide: route.drivingSide)
        return total + later.duration(traffic: feed, network: network)
    }

    /// Every `checkIntervalSeconds` while guiding under a traffic feed: routes from the fix with traffic costs
    /// and offers the result when its traffic ETA beats the current route's by the minimum saving (lock held;
    /// routing runs inline, like rerouting, so replays stay deterministic).
    mutating func offerFasterRoute(time: Double, fix: Fix, location: RoadSnappedLocation,
                                   _ events: inout [NavigationEvent])
    {
        guard let feed = environment.trafficFeed, let route = guidance.route, guidance.navState == .enroute,
              !guidance.arrivedAtCurrentLeg
        else { return }
        let options = guidance.offerOptions
        if let at = guidance.offers.checkedAt, time - at < options.checkIntervalSeconds { return }
        guidance.offers.checkedAt = time
        guard let current = remainingTrafficTime(feed) else { return }
        let moving = (fix.speed ?? 0) >= 2
        let heading: Double? = moving ? (fix.course ?? (location.course >= 0 ? location.course : nil)) : nil
        let origin = Waypoint(coordinate: fix.coordinate, preferredHeading: heading, headingTolerance: 90)
        let destinations = route.legs[guidance.legIndex...].map(\.destination)
        let result = router.route(RouteRequest(origin: origin, destinations: destinations,
                                               options: guidance.routingOptions), traffic: feed)
        guard let candidate = result.route else { return }
        let offered = candidate.duration(traffic: feed, network: network)
        guard offered <= current * (1 - options.minimumSavingPercent / 100) else { return }
        let offer = RerouteOffer(route: candidate, currentETA: current, offeredETA: offered, time: time)
        guidance.offers.pending = offer
        events.append(.rerouteOffer(offer))
    }

    /// Makes a route chosen by the caller (an alternative, an accepted offer) the current one (lock held).
    mutating func installChosen(_ chosen: Route, options: RoutingOptions?, _ events: inout [NavigationEvent]) {
        guidance.requestGeneration += 1  // a pending setDestinations must not replace the chosen route
        if let options { guidance.routingOptions = options }
        guidance.offers = RerouteOfferState(checkedAt: feed.lastRawFix?.time, pending: nil)
        install(chosen, &events)
        if guidance.isActive {
            guidance.navState = .enroute
            appendNavInfo(&events, force: true)
        }
    }
}

extension Navigator {
    /// Guides along `route` (for example an alternative from `Router.routeChoice`) instead of routing to its
    /// destinations: it becomes the current route from its first leg, as `setDestinations` would install it.
    /// `routingOptions` are used for later reroutes (the current ones when nil). Throws `.invalidArgument` for a
    /// route that is not a connected route of this navigator's map (made by a router on another map).
    public func setRoute(_ route: Route, routingOptions: RoutingOptions? = nil) throws(RoadSnapError) {
        try route.check(on: engine.network)
        engine.perform { $0.installChosen(route, options: routingOptions, &$1) }
    }

    /// Switches to the last offered faster route; false when there is no offer pending.
    @discardableResult
    public func acceptRerouteOffer() -> Bool {
        engine.perform { s, events in
            guard let offer = s.guidance.offers.pending else { return false }
            s.installChosen(offer.route, options: nil, &events)
            return true
        }
    }

    /// The faster route offered last and not yet accepted or superseded by a route change, if any.
    public var pendingRerouteOffer: RerouteOffer? { engine.read { $0.guidance.offers.pending } }

    /// When to look for, and offer, a faster route under traffic.
    public var rerouteOfferOptions: RerouteOfferOptions {
        get { engine.read { $0.guidance.offerOptions } }
        set { engine.update { $0.guidance.offerOptions = newValue } }
    }
}

extension Route {
    /// Checks the route runs on `network`: its edges exist, consecutive segments meet, and the geometry passes
    /// through each segment's first road vertex (as the router built it).
    func check(on network: RoadNetwork) throws(RoadSnapError) {
        guard !legs.isEmpty else { throw .invalidArgument("the route has no legs") }
        for (l, leg) in legs.enumerated() {
            guard !leg.segments.isEmpty else { throw .invalidArgument("leg \(l) of the route has no segments") }
            for (k, s) in leg.segments.enumerated() {
                guard s.edge >= 0, s.edge < network.edges.count, s.geometryStart >= 0,
                      s.geometryStart < leg.geometry.count else {
                    throw .invalidArgument("the route was not made on this map (leg \(l), segment \(k))")
                }
                guard k > 0 else { continue }
                let p = leg.segments[k - 1]
                let r = network.edges[s.edge].shapeRange
                let vertex = network.shape[s.isForward ? r.lowerBound : r.upperBound - 1]
                let g = leg.geometry[s.geometryStart]
                guard network.graph.arcHead[p.arc] == network.graph.arcTail[s.arc],
                      abs(g.latitude - vertex.latitude) < 1e-6, abs(g.longitude - vertex.longitude) < 1e-6 else {
                    throw .invalidArgument("the route was not made on this map (leg \(l), segment \(k))")
                }
            }
        }
    }
}
