import Dispatch
import Glibc
import RoadSnapCHeader
import RoadSnapCore

/// Forwards the Swift listener calls of one session to a C listener table (on the thread that delivers them).
final class CNavigatorListener: NavigatorListener, RoadSnappedLocationProviderListener, @unchecked Sendable {
    private let table: rs_navigator_listener
    /// The destinations last set, to report arrivals by index.
    let destinations = Locked<[Waypoint]>([])
    /// Threads inside one of this listener's C functions (nesting depth by thread).
    private let delivering = Locked<[UInt: Int]>([:])

    init(_ table: rs_navigator_listener) { self.table = table }

    /// Whether the calling thread is inside one of the C functions (a call back into the navigator from there).
    var isCallingBack: Bool { delivering.withLock { $0[UInt(pthread_self())] != nil } }

    /// Runs a C function, marking the thread as inside it.
    private func deliver(_ body: () -> Void) {
        let me = UInt(pthread_self())
        delivering.withLock { $0[me, default: 0] += 1 }
        defer {
            delivering.withLock { d in
                d[me, default: 1] -= 1
                if d[me] == 0 { d[me] = nil }
            }
        }
        body()
    }

    func navigator(_ navigator: Navigator, didArriveAt waypoint: Waypoint) {
        guard let f = table.did_arrive_at_waypoint else { return }
        let index = destinations.withLock { $0.firstIndex(of: waypoint) } ?? -1
        var w = rs_waypoint(latitude: waypoint.coordinate.latitude, longitude: waypoint.coordinate.longitude,
                            heading: waypoint.preferredHeading ?? .nan,
                            prefer_same_side_of_road: waypoint.preferSameSideOfRoad ? 1 : 0, reserved: 0)
        deliver { f(table.user_data, Int64(index), &w) }
    }

    func navigatorDidChangeRoute(_ navigator: Navigator) {
        guard let f = table.did_change_route else { return }
        deliver { f(table.user_data) }
    }

    func navigator(_ navigator: Navigator, didUpdateRemainingTime time: Double) {
        guard let f = table.did_update_remaining_time else { return }
        deliver { f(table.user_data, time) }
    }

    func navigator(_ navigator: Navigator, didUpdateRemainingDistance distance: Double) {
        guard let f = table.did_update_remaining_distance else { return }
        deliver { f(table.user_data, distance) }
    }

    func navigator(_ navigator: Navigator, didUpdate delayCategory: DelayCategory) {
        guard let f = table.did_update_delay_category else { return }
        deliver { f(table.user_data, Int32(delayCategory.rawValue)) }
    }

    func navigator(_ navigator: Navigator, didChangeSuggestedLightingMode lightingMode: LightingMode) {
        guard let f = table.did_change_suggested_lighting_mode else { return }
        deliver { f(table.user_data, lightingMode.c) }
    }

    func navigator(_ navigator: Navigator, didUpdateSpeedingPercentage percentageAboveLimit: Double) {
        guard let f = table.did_update_speeding_percentage else { return }
        deliver { f(table.user_data, percentageAboveLimit) }
    }

    func navigator(_ navigator: Navigator, didUpdate speedAlertSeverity: SpeedAlertSeverity, speedingPercentage: Double) {
        guard let f = table.did_update_speed_alert_severity else { return }
        deliver { f(table.user_data, speedAlertSeverity.c, speedingPercentage) }
    }

    func navigator(_ navigator: Navigator, didUpdate navInfo: NavInfo) {
        guard let f = table.did_update_nav_info else { return }
        let step = navInfo.currentStep
        (step?.instruction ?? "").withCString { instruction in
            (step?.simpleRoadName ?? "").withCString { road in
                var info = rs_nav_info(
                    nav_state: navInfo.navState.c, route_changed: navInfo.routeChanged ? 1 : 0,
                    has_current_step: step == nil ? 0 : 1, remaining_step_count: Int32(navInfo.remainingSteps.count),
                    current_step: step.map(rs_route_step.init) ?? rs_route_step(), current_instruction: instruction,
                    current_road_name: road, distance_to_current_step: navInfo.distanceToCurrentStepMeters,
                    time_to_current_step: navInfo.timeToCurrentStepSeconds,
                    distance_to_next_destination: navInfo.distanceToNextDestinationMeters,
                    time_to_next_destination: navInfo.timeToNextDestinationSeconds,
                    distance_to_final_destination: navInfo.distanceToFinalDestinationMeters,
                    time_to_final_destination: navInfo.timeToFinalDestinationSeconds)
                deliver { f(table.user_data, &info) }
            }
        }
    }

    func locationProvider(_ provider: RoadSnappedLocationProvider, didUpdate location: RoadSnappedLocation) {
        guard let f = table.did_update_road_snapped_location else { return }
        var l = rs_road_snapped_location(
            latitude: location.coordinate.latitude, longitude: location.coordinate.longitude,
            altitude: location.altitude, course: location.course, speed: location.speed, time: location.timestamp,
            accuracy: location.horizontalAccuracy, edge: Int64(location.edge ?? -1), forward: location.isForward ? 1 : 0,
            reserved: 0, offset: location.offset, distance_from_fix: location.distanceFromFix)
        deliver { f(table.user_data, &l) }
    }
}

extension NavState {
    var c: Int32 {
        switch self {
        case .unknown: return Int32(RS_NAV_STATE_UNKNOWN.rawValue)
        case .enroute: return Int32(RS_NAV_STATE_ENROUTE.rawValue)
        case .rerouting: return Int32(RS_NAV_STATE_REROUTING.rawValue)
        case .stopped: return Int32(RS_NAV_STATE_STOPPED.rawValue)
        }
    }
}

extension LightingMode {
    var c: Int32 { Int32(self == .lowLight ? RS_LIGHTING_LOW_LIGHT.rawValue : RS_LIGHTING_NORMAL.rawValue) }
}

extension SpeedAlertSeverity {
    var c: Int32 {
        switch self {
        case .unknown: return Int32(RS_SPEED_ALERT_UNKNOWN.rawValue)
        case .notSpeeding: return Int32(RS_SPEED_ALERT_NOT_SPEEDING.rawValue)
        case .minor: return Int32(RS_SPEED_ALERT_MINOR.rawValue)
        case .major: return Int32(RS_SPEED_ALERT_MAJOR.rawValue)
        }
    }
}

/// What an `rs_navigator` handle holds: a headless session delivering its events synchronously to a C listener.
final class NavigatorObject: HandleObject {
    let session: NavigationSession
    let router: Router
    let listener: CNavigatorListener
    /// Voice prompts to the host's announcement function, when one is set.
    let announcements = CAnnouncementListener()
    let virtualClock: VirtualClock?

    init(router: Router, options: rs_navigator_options, listener: rs_navigator_listener) throws(APIFailure) {
        self.router = router
        let start = options.virtual_clock_start
        guard start.isFinite, abs(start) <= maxFixTime else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "virtual clock start \(start) s is not a time")
        }
        for (name, value) in [("time update threshold", options.time_update_threshold),
                              ("distance update threshold", options.distance_update_threshold)]
            where !(value.isFinite && value >= 0)
        {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "\(name) \(value) must be a number >= 0 (0 for the default)")
        }
        virtualClock = options.use_virtual_clock != 0 ? VirtualClock(start: start) : nil
        let clock: NavigationClock = virtualClock ?? SystemClock()
        session = try bridging { () throws(RoadSnapError) in
            try NavigationSession(router: router, clock: clock, listenerQueue: nil)
        }
        self.listener = CNavigatorListener(listener)
        let navigator = session.navigator
        if options.arrival_radius != 0 {
            guard options.arrival_radius > 0, options.arrival_radius.isFinite else {
                throw APIFailure(RS_E_INVALID_ARGUMENT, "arrival radius \(options.arrival_radius) m must be positive")
            }
            navigator.guidanceOptions.arrivalRadius = options.arrival_radius
        }
        if options.time_update_threshold != 0 { navigator.timeUpdateThreshold = options.time_update_threshold }
        if options.distance_update_threshold != 0 {
            navigator.distanceUpdateThreshold = options.distance_update_threshold
        }
        navigator.add(self.listener)
        navigator.add(announcements)
        session.roadSnappedLocationProvider.add(self.listener)
        session.roadSnappedLocationProvider.startUpdatingLocation()
    }

    /// Stops producing events (simulator and fix processing).
    func stop() { session.isStarted = false }
}

/// Largest step of `rs_navigator_advance_clock`, seconds (every simulated second is processed; loop for longer).
let maxClockAdvance = 3600.0

/// The session behind a navigator handle.
func navigatorObject(_ handle: OpaquePointer?) throws(APIFailure) -> NavigatorObject {
    try HandleTable.shared.lookup(handle, .navigator, as: NavigatorObject.self)
}

@implementation @c
public func rs_navigator_create(_ router: OpaquePointer?, _ options: UnsafePointer<rs_navigator_options>?,
                                _ listener: UnsafePointer<rs_navigator_listener>?,
                                _ outNavigator: UnsafeMutablePointer<OpaquePointer?>?) -> rs_status
{
    creatingHandle(outNavigator, named: "out_navigator", kind: .navigator) { () throws(APIFailure) in
        let r = try HandleTable.shared.lookup(router, .router, as: RouterObject.self)
        return try NavigatorObject(router: r.router, options: options?.pointee ?? rs_navigator_options(),
                                   listener: listener?.pointee ?? rs_navigator_listener())
    }
}

@implementation @c
public func rs_navigator_destroy(_ navigator: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in
        try navigatorObject(navigator).stop()
        try HandleTable.shared.remove(navigator, .navigator)
    }
}

@implementation @c
public func rs_navigator_set_destinations(_ navigator: OpaquePointer?, _ waypoints: UnsafePointer<rs_waypoint>?,
                                          _ count: Int, _ options: UnsafePointer<rs_route_options>?,
                                          _ outRouteStatus: UnsafeMutablePointer<rs_route_status>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        outRouteStatus?.pointee = RS_ROUTE_INTERNAL_ERROR
        let n = try navigatorObject(navigator)
        guard !n.listener.isCallingBack else {
            throw APIFailure(RS_E_BUSY, "rs_navigator_set_destinations called from the navigator's own listener "
                + "(it would wait for the thread delivering the callback)")
        }
        let list = try checkedWaypoints(waypoints, count, status: outRouteStatus)
        n.listener.destinations.withLock { $0 = list }
        let done = DispatchSemaphore(value: 0)
        let status = Locked(RouteStatus.internalError)
        n.session.navigator.setDestinations(list, routingOptions: RoutingOptions(options)) { s in
            status.withLock { $0 = s }
            done.signal()
        }
        done.wait()
        let s = status.withLock { $0 }
        outRouteStatus?.pointee = s.c
        guard s == .ok else { throw APIFailure(RS_E_NO_ROUTE, "no route to the destinations: \(s.rawValue)") }
    }
}

@implementation @c
public func rs_navigator_continue_to_next_destination(_ navigator: OpaquePointer?,
                                                      _ outHasNext: UnsafeMutablePointer<Int32>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let next = try navigatorObject(navigator).session.navigator.continueToNextDestination()
        outHasNext?.pointee = next == nil ? 0 : 1
    }
}

@implementation @c
public func rs_navigator_clear_destinations(_ navigator: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in try navigatorObject(navigator).session.navigator.clearDestinations() }
}

@implementation @c
public func rs_navigator_set_guidance(_ navigator: OpaquePointer?, _ active: Int32) -> rs_status {
    apiCall { () throws(APIFailure) in
        let nav = try navigatorObject(navigator).session.navigator
        if active != 0, nav.routeLegs.isEmpty {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "guidance needs a route: set destinations first")
        }
        nav.isGuidanceActive = active != 0
    }
}

@implementation @c
public func rs_navigator_update_location(_ navigator: OpaquePointer?, _ fix: UnsafePointer<rs_fix>?) -> rs_status {
    apiCall { () throws(APIFailure) in
        let n = try navigatorObject(navigator)
        guard let fix else { throw .null("fix") }
        guard let f = fix.pointee.checked else {
            throw APIFailure(RS_E_INVALID_FIX, fix.pointee.problem)
        }
        if let skipped = n.session.roadSnappedLocationProvider.updateLocationReportingSkip(with: f) {
            throw APIFailure(skipped)
        }
    }
}

@implementation @c
public func rs_navigator_get_state(_ navigator: OpaquePointer?, _ outState: UnsafeMutablePointer<rs_navigator_state>?)
    -> rs_status
{
    reading(navigator, .navigator, as: NavigatorObject.self, into: outState, named: "out_state") { n in
        let nav = n.session.navigator
        return rs_navigator_state(
            nav_state: nav.navState.c, guidance_active: nav.isGuidanceActive ? 1 : 0,
            delay_category: Int32(nav.delayCategoryToNextDestination.rawValue),
            lighting_mode: nav.suggestedLightingMode.c, remaining_leg_count: Int64(nav.routeLegs.count),
            time_to_next_destination: nav.timeToNextDestination,
            distance_to_next_destination: nav.distanceToNextDestination)
    }
}

@implementation @c
public func rs_navigator_get_route(_ navigator: OpaquePointer?, _ outRoute: UnsafeMutablePointer<OpaquePointer?>?)
    -> rs_status
{
    creatingHandle(outRoute, named: "out_route", kind: .route) { () throws(APIFailure) in
        let n = try navigatorObject(navigator)
        let legs = n.session.navigator.routeLegs
        guard !legs.isEmpty else { throw APIFailure(RS_E_NO_ROUTE, "the navigator has no route") }
        return RouteObject(Route(legs: legs, drivingSide: n.router.drivingSide))
    }
}

@implementation @c
public func rs_navigator_set_speed_alert_options(_ navigator: OpaquePointer?, _ minorPercentage: Double,
                                                 _ majorPercentage: Double, _ upgradeSeconds: Double) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let n = try navigatorObject(navigator)
        n.session.navigator.speedAlertOptions = try bridging { () throws(RoadSnapError) in
            try SpeedAlertOptions(minorSpeedingThresholdPercentage: minorPercentage,
                                  majorSpeedingThresholdPercentage: majorPercentage,
                                  severityUpgradeDurationSeconds: upgradeSeconds)
        }
    }
}

@implementation @c
public func rs_navigator_simulate_along_route(_ navigator: OpaquePointer?, _ speedMultiplier: Double) -> rs_status {
    apiCall { () throws(APIFailure) in
        let simulator = try navigatorObject(navigator).session.locationSimulator
        let m = speedMultiplier == 0 ? 1 : speedMultiplier
        guard m > 0, m.isFinite else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "speed multiplier \(speedMultiplier) must be positive")
        }
        simulator.speedMultiplier = m
        guard simulator.simulateLocationsAlongExistingRoute() else {
            throw APIFailure(RS_E_NO_ROUTE, "no route to simulate along: set destinations first")
        }
    }
}

@implementation @c
public func rs_navigator_simulate_at(_ navigator: OpaquePointer?, _ latitude: Double, _ longitude: Double) -> rs_status {
    apiCall { () throws(APIFailure) in
        let simulator = try navigatorObject(navigator).session.locationSimulator
        guard let c = try? GeoCoordinate(latitude: latitude, longitude: longitude) else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "(\(latitude), \(longitude)) is not a valid latitude/longitude")
        }
        simulator.simulateLocation(at: c)
    }
}

@implementation @c
public func rs_navigator_stop_simulation(_ navigator: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in try navigatorObject(navigator).session.locationSimulator.stopSimulation() }
}

@implementation @c
public func rs_navigator_advance_clock(_ navigator: OpaquePointer?, _ seconds: Double) -> rs_status {
    apiCall { () throws(APIFailure) in
        let n = try navigatorObject(navigator)
        guard let clock = n.virtualClock else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "the navigator runs on the system clock (use_virtual_clock = 0)")
        }
        guard seconds > 0, seconds <= maxClockAdvance else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "seconds \(seconds) must be in (0, \(Int(maxClockAdvance))]")
        }
        clock.advance(by: seconds)
    }
}
