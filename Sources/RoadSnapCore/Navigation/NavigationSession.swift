import Dispatch

/// A headless navigation session: owns a navigator, a road-snapped location provider and a location simulator on
/// one road network; runs until stopped or released. No UI is involved: listeners receive every event on the
/// queue given here (or synchronously on the thread that fed the fix when the queue is nil).
public final class NavigationSession: Sendable {
    public let navigator: Navigator
    public let roadSnappedLocationProvider: RoadSnappedLocationProvider
    public let locationSimulator: LocationSimulator
    let engine: NavigationEngine

    /// - Parameters:
    ///   - router: routes for destinations and rerouting (build once per network and share).
    ///   - clock: `SystemClock()` for live use and demos, a `VirtualClock` for tests and fast replays.
    ///   - listenerQueue: where listener calls and route status callbacks run; nil delivers them synchronously.
    ///   - matching: the matching engine's parameters, lag and route bonus for the provider's fixes.
    public init(router: Router, clock: NavigationClock = SystemClock(),
                listenerQueue: DispatchQueue? = DispatchQueue(label: "roadsnap.navigation.listeners"),
                matching: NavigationMatchOptions = NavigationMatchOptions()) throws(RoadSnapError)
    {
        engine = try NavigationEngine(network: router.network, router: router, clock: clock,
                                      listenerQueue: listenerQueue, matchOptions: matching)
        navigator = Navigator(engine: engine)
        roadSnappedLocationProvider = RoadSnappedLocationProvider(engine: engine)
        locationSimulator = LocationSimulator(engine: engine)
        engine.listeners.withLock { [navigator, roadSnappedLocationProvider] in
            $0 = $0.with(facades: (navigator, roadSnappedLocationProvider))
        }
    }

    deinit { engine.stopSimulation() }

    /// Whether the session processes fixes (default true). Stopping also stops the simulator.
    public var isStarted: Bool {
        get { engine.read { $0.feed.isStarted } }
        set {
            engine.update { $0.feed.isStarted = newValue }
            if !newValue { engine.stopSimulation() }
        }
    }

    /// The road network the session runs on.
    public var network: RoadNetwork { engine.network }
}
