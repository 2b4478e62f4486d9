import Dispatch
import Foundation
@testable import RoadSnapCore
import RoadSnapFormats
import Testing

/// Records every listener callback, in order, as it arrives on the session's listener queue.
final class EventRecorder: NavigatorListener, RoadSnappedLocationProviderListener, @unchecked Sendable {
    enum Event: Equatable {
        case arrived(String), routeChanged, time(Double), distance(Double), delay(DelayCategory)
        case lighting(LightingMode), speeding(Double), severity(SpeedAlertSeverity), navInfo(NavState, Bool)
        case location
    }
    var events: [Event] = []
    var locations: [RoadSnappedLocation] = []
    var navInfos: [NavInfo] = []
    /// Called on arrival (on the listener queue), like the reference sample's continue-to-next-destination.
    var onArrival: ((Navigator, Waypoint) -> Void)?

    func navigator(_ navigator: Navigator, didArriveAt waypoint: Waypoint) {
        events.append(.arrived(waypoint.title ?? ""))
        onArrival?(navigator, waypoint)
    }
    func navigatorDidChangeRoute(_ navigator: Navigator) { events.append(.routeChanged) }
    func navigator(_ navigator: Navigator, didUpdateRemainingTime time: Double) { events.append(.time(time)) }
    func navigator(_ navigator: Navigator, didUpdateRemainingDistance distance: Double) {
        events.append(.distance(distance))
    }
    func navigator(_ navigator: Navigator, didUpdate delayCategory: DelayCategory) { events.append(.delay(delayCategory)) }
    func navigator(_ navigator: Navigator, didChangeSuggestedLightingMode lightingMode: LightingMode) {
        events.append(.lighting(lightingMode))
    }
    func navigator(_ navigator: Navigator, didUpdateSpeedingPercentage percentageAboveLimit: Double) {
        events.append(.speeding(percentageAboveLimit))
    }
    func navigator(_ navigator: Navigator, didUpdate speedAlertSeverity: SpeedAlertSeverity, speedingPercentage: Double) {
        events.append(.severity(speedAlertSeverity))
    }
    func navigator(_ navigator: Navigator, didUpdate navInfo: NavInfo) {
        events.append(.navInfo(navInfo.navState, navInfo.routeChanged))
        navInfos.append(navInfo)
    }
    func locationProvider(_ provider: RoadSnappedLocationProvider, didUpdate location: RoadSnappedLocation) {
        events.append(.location)
        locations.append(location)
    }

    var arrivals: [String] { events.compactMap { if case let .arrived(t) = $0 { return t } else { return nil } } }
    var distances: [Double] { events.compactMap { if case let .distance(d) = $0 { return d } else { return nil } } }
    var times: [Double] { events.compactMap { if case let .time(t) = $0 { return t } else { return nil } } }
    func count(_ e: Event) -> Int { events.filter { $0 == e }.count }
}

/// Maps shared by the navigation tests (routers come from `RoutingTestData`, built once per process).
enum NavigationFixtures {
    static func router(_ path: String) throws -> Router { try RoutingTestData.router(path) }
    static var monaco: String { RoutingTestData.monaco }
}

/// A session on a virtual clock whose events are recorded; the clock is advanced on the listener queue so that
/// fixes, events and the listener's own reactions interleave the same way on every run.
struct Harness {
    let session: NavigationSession
    let clock: VirtualClock
    let queue = DispatchQueue(label: "test.listeners")
    let recorder = EventRecorder()

    init(map: String, start: Double, matching: NavigationMatchOptions = NavigationMatchOptions()) throws {
        clock = VirtualClock(start: start)
        session = try NavigationSession(router: try NavigationFixtures.router(map), clock: clock, listenerQueue: queue,
                                        matching: matching)
        session.navigator.add(recorder)
        session.roadSnappedLocationProvider.add(recorder)
        session.roadSnappedLocationProvider.startUpdatingLocation()
    }

    /// Routes to `destinations` and waits for the status.
    func setDestinations(_ destinations: [Waypoint]) -> RouteStatus {
        let done = DispatchSemaphore(value: 0)
        let status = Locked<RouteStatus?>(nil)
        session.navigator.setDestinations(destinations) { s in
            status.set(s)
            done.signal()
        }
        done.wait()
        queue.sync {}
        return status.get() ?? .internalError
    }

    /// Advances the clock one second at a time until `stop` (checked on the queue) or `limit` seconds.
    @discardableResult
    func run(seconds limit: Int, until stop: () -> Bool = { false }) -> Int {
        for s in 0..<limit {
            let finished = queue.sync { () -> Bool in
                clock.advance(by: 1)
                return false
            }
            if finished { return s }
            if queue.sync(execute: stop) { return s + 1 }
        }
        return limit
    }

    /// Runs `body` on the listener queue (where the recorder lives).
    func onQueue<T>(_ body: () -> T) -> T { queue.sync(execute: body) }
}

final class Locked<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ v: T) { value = v }
    func set(_ v: T) { lock.lock(); value = v; lock.unlock() }
    func get() -> T { lock.lock(); defer { lock.unlock() }; return value }
}

func waypoint(_ lat: Double, _ lon: Double, _ title: String) -> Waypoint {
    Waypoint(coordinate: GeoCoordinate(uncheckedLatitude: lat, longitude: lon), title: title)
}

@Suite(.serialized) struct NavigationSessionTests {
    // Fontvieille -> Port Hercule area -> Larvotto, Monaco (real roads of the extract).
    static let fontvieille = GeoCoordinate(uncheckedLatitude: 43.7315, longitude: 7.4197)
    static let portHercule = waypoint(43.7365, 7.4215, "Port Hercule")
    static let larvotto = waypoint(43.7445, 7.4295, "Larvotto")

    @Test func multiStopSimulationArrivesOncePerWaypointAndContinues() throws {
        // 2021-06-21 22:00 UTC: night in Monaco, so the lighting turns low at the first fix.
        let h = try Harness(map: NavigationFixtures.monaco, start: utc(2021, 6, 21, 22))
        let nav = h.session.navigator
        h.session.locationSimulator.simulateLocation(at: Self.fontvieille)
        #expect(h.setDestinations([Self.portHercule, Self.larvotto]) == .ok)
        #expect(nav.routeLegs.count == 2)
        nav.isGuidanceActive = true
        h.recorder.onArrival = { navigator, _ in
            if navigator.continueToNextDestination() != nil { navigator.isGuidanceActive = true }
        }
        #expect(h.session.locationSimulator.simulateLocationsAlongExistingRoute())
        h.run(seconds: 900) { h.recorder.arrivals.count == 2 }
        let r = h.recorder
        h.onQueue {
            #expect(r.arrivals == ["Port Hercule", "Larvotto"])
            // Set destinations, continue to the second leg, and clearing after the last arrival.
            #expect(r.count(.routeChanged) == 3)
            #expect(r.events.first(where: { if case .lighting = $0 { return true } else { return false } }) == .lighting(.lowLight))
            #expect(r.count(.lighting(.lowLight)) == 1)
            #expect(r.navInfos.contains { $0.navState == .enroute && $0.currentStep != nil })
            #expect(r.navInfos.contains { $0.routeChanged })
            #expect(r.navInfos.last?.navState == .stopped)
            // Remaining distance falls to zero on each leg and moves by at least the threshold between reports.
            let d = r.distances
            #expect(d.filter { $0 == 0 }.count == 2)
            for (a, b) in zip(d, d.dropFirst()) where b != 0 && a != 0 && b < a { #expect(a - b >= 1) }
            #expect(r.locations.count >= 60)
            #expect(r.locations.allSatisfy { $0.isOnRoad })
        }
        #expect(nav.routeLegs.isEmpty)
        #expect(nav.timeToNextDestination == .greatestFiniteMagnitude)
    }

    /// Runs a simulated drive Fontvieille -> Larvotto with `configure` applied first; returns the harness.
    func simulatedDrive(start: Double = utc(2021, 6, 21, 10), multiplier: Double = 1,
                        configure: (Navigator) -> Void = { _ in }) throws -> Harness
    {
        let h = try Harness(map: NavigationFixtures.monaco, start: start)
        configure(h.session.navigator)
        h.session.locationSimulator.simulateLocation(at: Self.fontvieille)
        #expect(h.setDestinations([Self.larvotto]) == .ok)
        h.session.navigator.isGuidanceActive = true
        h.session.locationSimulator.speedMultiplier = multiplier
        h.session.locationSimulator.simulateLocationsAlongExistingRoute()
        h.run(seconds: 600) { !h.recorder.arrivals.isEmpty }
        return h
    }

    @Test func simulatorLeavingTheRouteTriggersReroutingThenARouteChange() throws {
        let h = try Harness(map: NavigationFixtures.monaco, start: utc(2021, 6, 21, 10))
        let nav = h.session.navigator
        h.session.locationSimulator.simulateLocation(at: Self.fontvieille)
        #expect(h.setDestinations([Self.larvotto]) == .ok)
        nav.isGuidanceActive = true
        let planned = try #require(nav.currentRouteLeg)
        // The simulator drives its own route into Fontvieille, leaving the guided route after ~90 m.
        #expect(h.session.locationSimulator.simulateAlongNewRoute(toDestinations: [waypoint(43.7290, 7.4180, "")]) == .ok)
        h.run(seconds: 120) { h.recorder.events.contains(.navInfo(.rerouting, false)) }
        h.run(seconds: 5)
        h.onQueue {
            let e = h.recorder.events.filter { if case .navInfo = $0 { return true }; return $0 == .routeChanged }
            let k = e.firstIndex(of: .navInfo(.rerouting, false))
            #expect(k != nil)
            if let k {
                #expect(e[(k + 1)...].first == .routeChanged)
                #expect(e[(k + 1)...].dropFirst().first == .navInfo(.enroute, true))
            }
        }
        let rerouted = try #require(nav.currentRouteLeg)
        #expect(rerouted.destination.title == "Larvotto")
        #expect(rerouted.origin.coordinate != planned.origin.coordinate)
        #expect(nav.distanceToWaypoint(Self.larvotto) == nav.distanceToNextDestination)
        #expect(nav.timeToWaypoint(Self.larvotto) == nav.timeToNextDestination)
        #expect(nav.timeToWaypoint(Self.portHercule) == nil)
    }

    @Test func realTimeClockDrivesTheSimulatorAndAStoppedSessionIgnoresFixes() throws {
        let router = try NavigationFixtures.router(NavigationFixtures.monaco)
        let queue = DispatchQueue(label: "test.realtime")
        let session = try NavigationSession(router: router, clock: SystemClock(), listenerQueue: queue)
        let recorder = EventRecorder()
        session.roadSnappedLocationProvider.add(recorder)
        session.roadSnappedLocationProvider.startUpdatingLocation()
        session.locationSimulator.updateInterval = 0.05
        session.locationSimulator.simulateLocation(at: Self.fontvieille)
        // Wall-clock ticks every 50 ms: four arrive. The 60 s deadline only stops a broken run; it is not what is
        // tested (a loaded machine may take longer than 200 ms).
        var count = 0
        let deadline = monotonicNow() + 60
        while count < 4, monotonicNow() < deadline {
            usleep(10_000)
            count = queue.sync { recorder.locations.count }
        }
        #expect(count >= 4)
        let times = queue.sync { recorder.locations.map(\.timestamp) }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        session.isStarted = false
        #expect(!session.locationSimulator.isSimulating)
        let stopped = queue.sync { recorder.locations.count }
        session.roadSnappedLocationProvider.updateLocation(with: Fix(coordinate: Self.fontvieille))
        // Whatever the fix caused is queued for delivery before `updateLocation` returns: `queue.sync` runs after it
        // (no sleep standing in for a wait).
        #expect(queue.sync { recorder.locations.count } == stopped)
        // A released listener is no longer called.
        let other = try Harness(map: NavigationFixtures.monaco, start: utc(2021, 6, 21, 10))
        var transient: EventRecorder? = EventRecorder()
        other.session.roadSnappedLocationProvider.add(transient!)
        weak let gone = transient
        transient = nil
        #expect(gone == nil)
        other.session.roadSnappedLocationProvider.updateLocation(with: Fix(coordinate: Self.fontvieille))
        #expect(other.onQueue { other.recorder.locations.count } == 1)
    }

    @Test func thresholdsGateRemainingTimeAndDistance() throws {
        let h = try simulatedDrive { nav in
            nav.distanceUpdateThreshold = 100
            nav.timeUpdateThreshold = .greatestFiniteMagnitude
        }
        h.onQueue {
            let r = h.recorder
            #expect(r.arrivals == ["Larvotto"])
            let d = r.distances
            #expect(d.count >= 10)
            for (a, b) in zip(d, d.dropFirst()) where b != 0 { #expect(abs(a - b) >= 100) }
            // Only the arrival's zero passes a disabled threshold.
            #expect(r.times == [0])
        }
        // Negative means the default.
        h.session.navigator.timeUpdateThreshold = -5
        #expect(h.session.navigator.timeUpdateThreshold == 1)
        let dense = try simulatedDrive()
        dense.onQueue {
            #expect(dense.recorder.times.count > 60)
            #expect(dense.recorder.distances.count > 60)
        }
    }

    @Test func speedingPercentageAndSeverityFromTheRoadsLimit() throws {
        // At the road's speed there is no speeding; tagged limits make the percentage valid on them.
        let normal = try simulatedDrive()
        normal.onQueue {
            let severities = normal.recorder.events.compactMap { e -> SpeedAlertSeverity? in
                if case let .severity(s) = e { return s } else { return nil }
            }
            #expect(severities.contains(.notSpeeding))
            #expect(!severities.contains(.major))
        }
        // 60% over the limit for longer than the upgrade duration: minor first, then major.
        let options = try SpeedAlertOptions(minorSpeedingThresholdPercentage: 10, majorSpeedingThresholdPercentage: 40,
                                            severityUpgradeDurationSeconds: 3)
        let fast = try simulatedDrive(multiplier: 1.6) { $0.speedAlertOptions = options }
        fast.onQueue {
            let e = fast.recorder.events
            let speeding = e.compactMap { x -> Double? in if case let .speeding(p) = x { return p } else { return nil } }
            #expect(speeding.contains { $0 > 50 && $0 < 70 })
            let severities = e.compactMap { x -> SpeedAlertSeverity? in
                if case let .severity(s) = x { return s } else { return nil }
            }
            let firstMinor = severities.firstIndex(of: .minor), firstMajor = severities.firstIndex(of: .major)
            #expect(firstMinor != nil && firstMajor != nil)
            if let a = firstMinor, let b = firstMajor { #expect(a < b) }
            // Consecutive severity reports always differ (reported only on change).
            for (a, b) in zip(severities, severities.dropFirst()) { #expect(a != b) }
        }
    }

    @Test func delayCategoryFromATrafficFeed() throws {
        let router = try NavigationFixtures.router(NavigationFixtures.monaco)
        let probe = router.route(RouteRequest(origin: Waypoint(coordinate: Self.fontvieille), destinations: [Self.larvotto]))
        let leg = try #require(probe.route?.legs.first)
        let network = router.network
        #expect(!leg.segments.isEmpty)
        // Every way of the map slowed by the same factor, so routing under traffic keeps the free-flow route and the
        // category follows the factor alone.
        func feed(_ factor: Double) throws -> TrafficFeed {
            var speeds: [Int64: Double] = [:]
            for e in network.edges {
                if case let .osmWay(id) = e.sourceID {
                    let v = min(e.attributes.speedKmh(forward: true), e.attributes.speedKmh(forward: false)) * factor
                    speeds[id] = min(speeds[id] ?? .infinity, v)
                }
            }
            return try TrafficFeed(speedsKmh: speeds)
        }
        func delays(_ traffic: TrafficFeed?) throws -> [DelayCategory] {
            let h = try simulatedDrive { $0.trafficFeed = traffic }
            return h.onQueue {
                h.recorder.events.compactMap { if case let .delay(c) = $0 { return c } else { return nil } }
            }
        }
        #expect(try delays(feed(0.4)).first == .heavy)
        #expect(try delays(feed(0.7)).first == .medium)
        #expect(try delays(feed(0.95)).first == .light)
        // A feed that covers none of the route leaves the category at no data (reported once, as the initial state).
        #expect(try delays(TrafficFeed(speedsKmh: [1: 10])) == [.noData])
        #expect(try delays(nil) == [.noData])
    }

    @Test func lightingChangesOnceAtCivilDusk() throws {
        // Civil dusk at Fontvieille on 2021-06-21, found on the solar model by bisection; start 150 s before (the sun is recomputed every 60 s).
        var lo = utc(2021, 6, 21, 18), hi = utc(2021, 6, 21, 21)
        for _ in 0..<40 {
            let mid = (lo + hi) / 2
            let e = SolarPosition(time: mid, latitude: Self.fontvieille.latitude, longitude: Self.fontvieille.longitude)
            if e.apparentElevation > SolarPosition.civilTwilightElevation { lo = mid } else { hi = mid }
        }
        let h = try simulatedDrive(start: lo - 150)
        h.onQueue {
            let lighting = h.recorder.events.filter { if case .lighting = $0 { return true } else { return false } }
            // The initial daylight state once, then the change at dusk.
            #expect(lighting == [.lighting(.normal), .lighting(.lowLight)])
        }
        #expect(h.session.navigator.suggestedLightingMode == .lowLight)
    }

    @Test func newerRequestCancelsThePendingOne() throws {
        let h = try Harness(map: NavigationFixtures.monaco, start: utc(2021, 6, 21, 10))
        h.session.locationSimulator.simulateLocation(at: Self.fontvieille)
        h.queue.sync {}
        let first = Locked<RouteStatus?>(nil), second = Locked<RouteStatus?>(nil)
        let done = DispatchSemaphore(value: 0)
        // Both requests are made while the routing queue is busy, so the first is still pending.
        h.session.engine.routingQueue.sync {
            h.session.navigator.setDestinations([Self.portHercule]) { first.set($0); done.signal() }
            h.session.navigator.setDestinations([Self.larvotto]) { second.set($0); done.signal() }
        }
        done.wait(); done.wait()
        #expect(first.get() == .canceled)
        #expect(second.get() == .ok)
        #expect(h.session.navigator.currentRouteLeg?.destination.title == "Larvotto")
        // Without a location there is nothing to route from.
        let empty = try Harness(map: NavigationFixtures.monaco, start: utc(2021, 6, 21, 10))
        #expect(empty.setDestinations([Self.larvotto]) == .locationUnavailable)
        empty.session.locationSimulator.simulateLocation(at: Self.fontvieille)
        #expect(empty.setDestinations([]) == .noWaypoints)
    }

    @Test func pausedSimulatorKeepsReportingWithoutMovingAndJitterStaysOnRoad() throws {
        let h = try Harness(map: NavigationFixtures.monaco, start: utc(2021, 6, 21, 10))
        let sim = h.session.locationSimulator
        sim.simulateLocation(at: Self.fontvieille)
        #expect(h.setDestinations([Self.larvotto]) == .ok)
        sim.simulateLocationsAlongExistingRoute()
        h.run(seconds: 10)
        sim.isPaused = true
        let before = h.onQueue { h.recorder.locations.count }
        h.run(seconds: 5)
        h.onQueue {
            let paused = h.recorder.locations.suffix(5)
            #expect(h.recorder.locations.count == before + 5)
            #expect(Set(paused.map(\.coordinate)).count == 1)
            #expect(paused.allSatisfy { $0.speed == 0 })
        }
        sim.isPaused = false
        sim.isLocationJitteringEnabled = true
        sim.speedMultiplier = 0  // ignored
        #expect(sim.speedMultiplier == 1)
        h.run(seconds: 30)
        h.onQueue {
            let moving = h.recorder.locations.suffix(30)
            #expect(moving.allSatisfy { $0.isOnRoad && $0.distanceFromFix < 20 })
            #expect(moving.contains { $0.distanceFromFix > 1 })  // the raw fixes were moved off the road
        }
        sim.stopSimulation()
        let stopped = h.onQueue { h.recorder.locations.count }
        h.run(seconds: 5)
        #expect(h.onQueue { h.recorder.locations.count } == stopped)
        #expect(!sim.isSimulating)
    }
}

/// The real Newson & Krumm drive through the road-snapped provider and the navigator.
@Suite(.serialized) struct NavigationReplayTests {
    static func drive() throws -> [Fix] { try TrackReader.read(path: TestData.bellevueDrive).fixes }

    @Test func providerReportsOneSnappedLocationPerRawFix() throws {
        let fixes = try Self.drive()
        let h = try Harness(map: TestData.bellevueMap, start: fixes[0].time ?? 0)
        for f in fixes { h.session.roadSnappedLocationProvider.updateLocation(with: f) }
        h.onQueue {
            let locations = h.recorder.locations
            #expect(locations.count == fixes.count)
            #expect(zip(locations, fixes).allSatisfy { $0.timestamp == $1.time })
            let onRoad = locations.filter(\.isOnRoad)
            #expect(Double(onRoad.count) >= 0.98 * Double(fixes.count))
            let distances = onRoad.map(\.distanceFromFix).sorted()
            #expect(distances[distances.count / 2] < 8)
            // Speeds are derived from consecutive fixes when the receiver gives none (the CSV has none).
            #expect(locations.dropFirst().allSatisfy { $0.speed >= 0 })
            #expect(locations.contains { $0.speed > 20 })  // the drive reaches I-90 speeds
        }
    }

    @Test func lagBoundedMatchingAnswersEachFixLagFixesLater() throws {
        let fixes = Array(try Self.drive().prefix(300))
        let h = try Harness(map: TestData.bellevueMap, start: fixes[0].time ?? 0,
                            matching: NavigationMatchOptions(lag: 3))
        for f in fixes { h.session.roadSnappedLocationProvider.updateLocation(with: f) }
        h.onQueue {
            let locations = h.recorder.locations
            #expect(locations.count == fixes.count - 3)
            #expect(zip(locations, fixes).allSatisfy { $0.timestamp == $1.time })
        }
    }

    @Test func leavingTheRouteReroutesThenChangesTheRoute() throws {
        let fixes = try Self.drive()
        let h = try Harness(map: TestData.bellevueMap, start: fixes[0].time ?? 0)
        let provider = h.session.roadSnappedLocationProvider
        provider.updateLocation(with: fixes[0])
        // A destination east of the start; the recorded driver heads south then west instead.
        #expect(h.setDestinations([waypoint(47.5700, -122.0990, "East")]) == .ok)
        h.session.navigator.isGuidanceActive = true
        for f in fixes.dropFirst().prefix(400) { provider.updateLocation(with: f) }
        h.onQueue {
            let e = h.recorder.events.filter { if case .navInfo = $0 { return true }; return $0 == .routeChanged }
            let rerouting = e.firstIndex(of: .navInfo(.rerouting, false))
            #expect(rerouting != nil)
            if let k = rerouting {
                let after = e[(k + 1)...]
                #expect(after.first == .routeChanged)
                #expect(after.dropFirst().first == .navInfo(.enroute, true))
            }
            #expect(h.recorder.arrivals.isEmpty)
        }
        #expect(h.session.navigator.navState != .stopped)
        #expect(h.session.navigator.traveledPath.count == 400)
    }
}

/// Seconds on the monotonic clock (deadlines that must not follow wall-clock jumps).
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
