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

/// Maps and routers shared by the navigation tests (loading and preprocessing once).
enum NavigationFixtures {
    nonisolated(unsafe) static var routers: [String: Router] = [:]
    static let lock = NSLock()

    static func router(_ path: String) throws -> Router {
        lock.lock(); defer { lock.unlock() }
        if let r = routers[path] { return r }
        let network = path == TestData.bellevueMap ? try TestData.bellevue() : try RoadNetwork.load(osmPath: path)
        let r = Router(network: network)
        routers[path] = r
        return r
    }

    static let monaco = TestData.fixture("osm/monaco.osm.pbf")
}

/// A session on a virtual clock whose events are recorded; the clock is advanced on the listener queue so that
/// fixes, events and the listener's own reactions interleave the same way on every run.
struct Harness {
    let session: NavigationSession
    let clock: VirtualClock
    let queue = DispatchQueue(label: "test.listeners")
    let recorder = EventRecorder()

    init(map: String, start: Double, matcher: OnlineMatcher.Options = OnlineMatcher.Options()) throws {
        clock = VirtualClock(start: start)
        session = try NavigationSession(router: try NavigationFixtures.router(map), clock: clock, listenerQueue: queue,
                                        matcherOptions: matcher)
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
}
