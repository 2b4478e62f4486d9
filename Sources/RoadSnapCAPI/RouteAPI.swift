import Glibc
import RoadSnapCHeader
import RoadSnapCore

/// What an `rs_router` handle holds: a thread-safe `Router`.
final class RouterObject: HandleObject {
    let router: Router
    init(_ router: Router) { self.router = router }
}

/// What an `rs_route` handle holds: a routed path (immutable).
final class RouteObject: HandleObject {
    let route: Route
    init(_ route: Route) { self.route = route }

    func leg(_ index: Int) throws(APIFailure) -> RouteLeg {
        guard index >= 0, index < route.legs.count else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "leg \(UInt(bitPattern: index)) out of range 0..<\(route.legs.count)")
        }
        return route.legs[index]
    }

    func step(_ leg: Int, _ index: Int) throws(APIFailure) -> RouteStep {
        let steps = try self.leg(leg).steps
        guard index >= 0, index < steps.count else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "step \(UInt(bitPattern: index)) out of range 0..<\(steps.count)")
        }
        return steps[index]
    }
}

/// Names of every maneuver as C strings that live for the whole run (made once).
private struct ManeuverNames: @unchecked Sendable {
    let names: [Maneuver: UnsafePointer<CChar>]
    static let shared = ManeuverNames(names: Dictionary(uniqueKeysWithValues: Maneuver.allCases.map { m in
        (m, UnsafePointer(strdup(m.rawValue) ?? strdup("")!))
    }))
}

extension DrivingSide {
    var c: Int32 {
        switch self {
        case .none: return Int32(RS_DRIVING_SIDE_NONE.rawValue)
        case .left: return Int32(RS_DRIVING_SIDE_LEFT.rawValue)
        case .right: return Int32(RS_DRIVING_SIDE_RIGHT.rawValue)
        }
    }
}

extension RouteStatus {
    var c: rs_route_status {
        switch self {
        case .ok: return RS_ROUTE_OK
        case .noRouteFound: return RS_ROUTE_NO_ROUTE_FOUND
        case .noWaypoints: return RS_ROUTE_NO_WAYPOINTS
        case .duplicateWaypoints: return RS_ROUTE_DUPLICATE_WAYPOINTS
        case .waypointError: return RS_ROUTE_WAYPOINT_ERROR
        case .locationUnavailable: return RS_ROUTE_LOCATION_UNAVAILABLE
        case .canceled: return RS_ROUTE_CANCELED
        case .travelModeUnsupported: return RS_ROUTE_TRAVEL_MODE_UNSUPPORTED
        case .internalError: return RS_ROUTE_INTERNAL_ERROR
        }
    }
}

extension LaneShape {
    /// The shape's `RS_LANE_*` bit.
    var bit: UInt32 {
        switch self {
        case .unknown: return UInt32(RS_LANE_UNKNOWN)
        case .straight: return UInt32(RS_LANE_STRAIGHT)
        case .slightLeft: return UInt32(RS_LANE_SLIGHT_LEFT)
        case .slightRight: return UInt32(RS_LANE_SLIGHT_RIGHT)
        case .normalLeft: return UInt32(RS_LANE_NORMAL_LEFT)
        case .normalRight: return UInt32(RS_LANE_NORMAL_RIGHT)
        case .sharpLeft: return UInt32(RS_LANE_SHARP_LEFT)
        case .sharpRight: return UInt32(RS_LANE_SHARP_RIGHT)
        case .uTurnLeft: return UInt32(RS_LANE_UTURN_LEFT)
        case .uTurnRight: return UInt32(RS_LANE_UTURN_RIGHT)
        }
    }
}

extension rs_waypoint {
    /// The waypoint as a checked `Waypoint`; nil when latitude/longitude are invalid.
    var checked: Waypoint? {
        guard let c = try? GeoCoordinate(latitude: latitude, longitude: longitude) else { return nil }
        return Waypoint(coordinate: c, preferredHeading: heading.isFinite ? heading : nil,
                        preferSameSideOfRoad: prefer_same_side_of_road != 0)
    }
}

/// The waypoints of a C request, checked; an invalid one is a `RS_E_NO_ROUTE` with `RS_ROUTE_WAYPOINT_ERROR`.
func checkedWaypoints(_ waypoints: UnsafePointer<rs_waypoint>?, _ count: Int,
                      status: UnsafeMutablePointer<rs_route_status>?) throws(APIFailure) -> [Waypoint]
{
    guard count >= 0 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "count \(UInt(bitPattern: count)) too large") }
    guard count == 0 || waypoints != nil else { throw .null("waypoints") }
    var list: [Waypoint] = []
    for i in 0..<count {
        guard let w = waypoints?[i].checked else {
            status?.pointee = RS_ROUTE_WAYPOINT_ERROR
            throw APIFailure(RS_E_NO_ROUTE, "waypoint \(i) (\(waypoints?[i].latitude ?? .nan), "
                + "\(waypoints?[i].longitude ?? .nan)) is not a valid latitude/longitude")
        }
        list.append(w)
    }
    return list
}

extension RoutingOptions {
    /// The SDK defaults for NULL, else the C flags as given.
    init(_ options: UnsafePointer<rs_route_options>?) {
        guard let o = options?.pointee else {
            self.init()
            return
        }
        self.init(avoidsHighways: o.avoid_highways != 0, avoidsTolls: o.avoid_tolls != 0,
                  avoidsFerries: o.avoid_ferries != 0)
    }
}

extension rs_route_step {
    init(_ s: RouteStep) {
        self.init(
            maneuver: ManeuverNames.shared.names[s.maneuver], latitude: s.location.latitude,
            longitude: s.location.longitude, distance_from_previous: s.distanceFromPreviousStep,
            time_from_previous: s.timeFromPreviousStep, distance_from_leg_start: s.distanceFromLegStart,
            time_from_leg_start: s.timeFromLegStart, rounded_distance_from_previous: s.roundedDistanceFromPreviousStep,
            roundabout_exit: Int32(s.roundaboutTurnNumber), lane_count: Int32(s.lanes.count),
            driving_side: s.drivingSide.c, reserved: 0)
    }
}

@implementation @c
public func rs_router_create(_ map: OpaquePointer?, _ outRouter: UnsafeMutablePointer<OpaquePointer?>?) -> rs_status {
    creatingHandle(outRouter, named: "out_router", kind: .router) { () throws(APIFailure) in
        RouterObject(Router(network: try HandleTable.shared.lookup(map, .map, as: MapObject.self).network))
    }
}

@implementation @c
public func rs_router_create_ex(_ map: OpaquePointer?, _ options: UnsafePointer<rs_build_options>?,
                                _ outRouter: UnsafeMutablePointer<OpaquePointer?>?) -> rs_status
{
    creatingHandle(outRouter, named: "out_router", kind: .router) { () throws(APIFailure) in
        let network = try HandleTable.shared.lookup(map, .map, as: MapObject.self).network
        guard let o = options?.pointee else { return RouterObject(Router(network: network)) }
        guard o.threads >= 0 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "threads must be >= 0, got \(o.threads)") }
        var control = BuildControl(threads: Int(o.threads))
        if let fn = o.progress {
            let user = UnsafeSendable(o.user_data)
            control.progress = { p in p.phase.withCString { fn(user.value, $0, p.fraction) } }
        }
        if let flag = o.cancel {
            let cancel = UnsafeSendable(UnsafeRawPointer(flag))
            control.cancellation = BuildCancellation(polling: { cancel.value?.load(as: Int32.self) != 0 })
        }
        return RouterObject(try bridging { () throws(RoadSnapError) in try Router(network: network, control: control) })
    }
}

/// A C pointer handed to callbacks of a build that runs while the C call that gave it is in progress.
struct UnsafeSendable<T>: @unchecked Sendable {
    let value: T?
    init(_ value: T?) { self.value = value }
}

@implementation @c
public func rs_router_destroy(_ router: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in try HandleTable.shared.remove(router, .router) }
}

@implementation @c
public func rs_router_route(_ router: OpaquePointer?, _ waypoints: UnsafePointer<rs_waypoint>?, _ count: Int,
                            _ options: UnsafePointer<rs_route_options>?,
                            _ outRouteStatus: UnsafeMutablePointer<rs_route_status>?,
                            _ outRoute: UnsafeMutablePointer<OpaquePointer?>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        guard let outRoute else { throw .null("out_route") }
        outRoute.pointee = nil
        outRouteStatus?.pointee = RS_ROUTE_INTERNAL_ERROR
        let r = try HandleTable.shared.lookup(router, .router, as: RouterObject.self)
        let list = try checkedWaypoints(waypoints, count, status: outRouteStatus)
        let result = r.router.route(RouteRequest(waypoints: list, options: RoutingOptions(options)))
        outRouteStatus?.pointee = result.status.c
        guard result.status == .ok, let route = result.route else {
            throw APIFailure(RS_E_NO_ROUTE, "\(result.status.rawValue): \(result.message)")
        }
        outRoute.pointee = try HandleTable.shared.insert(RouteObject(route), kind: .route)
    }
}

@implementation @c
public func rs_route_close(_ route: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in try HandleTable.shared.remove(route, .route) }
}

@implementation @c
public func rs_route_get_info(_ route: OpaquePointer?, _ outInfo: UnsafeMutablePointer<rs_route_info>?) -> rs_status {
    reading(route, .route, as: RouteObject.self, into: outInfo, named: "out_info") { o in
        rs_route_info(distance: o.route.distance, duration: o.route.duration, leg_count: Int64(o.route.legs.count),
                      driving_side: o.route.drivingSide.c, reserved: 0)
    }
}

@implementation @c
public func rs_route_get_leg(_ route: OpaquePointer?, _ leg: Int, _ outInfo: UnsafeMutablePointer<rs_route_leg_info>?)
    -> rs_status
{
    reading(route, .route, as: RouteObject.self, into: outInfo, named: "out_info") { o throws(APIFailure) in
        let l = try o.leg(leg)
        return rs_route_leg_info(
            distance: l.distance, duration: l.duration, step_count: Int64(l.steps.count),
            point_count: Int64(l.geometry.count), origin_latitude: l.snappedOrigin.latitude,
            origin_longitude: l.snappedOrigin.longitude, destination_latitude: l.snappedDestination.latitude,
            destination_longitude: l.snappedDestination.longitude)
    }
}

@implementation @c
public func rs_route_get_step(_ route: OpaquePointer?, _ leg: Int, _ step: Int,
                              _ outStep: UnsafeMutablePointer<rs_route_step>?) -> rs_status
{
    reading(route, .route, as: RouteObject.self, into: outStep, named: "out_step") { o throws(APIFailure) in
        try rs_route_step(o.step(leg, step))
    }
}

@implementation @c
public func rs_route_step_text(_ route: OpaquePointer?, _ leg: Int, _ step: Int, _ which: rs_step_text,
                               _ buf: UnsafeMutablePointer<CChar>?, _ capacity: Int,
                               _ outLength: UnsafeMutablePointer<Int>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let s = try HandleTable.shared.lookup(route, .route, as: RouteObject.self).step(leg, step)
        let text: String
        switch which {
        case RS_STEP_INSTRUCTION: text = s.instruction
        case RS_STEP_ROAD_NAME: text = s.simpleRoadName
        case RS_STEP_FULL_ROAD_NAME: text = s.fullRoadName
        case RS_STEP_EXIT_NUMBER: text = s.exitNumber ?? ""
        default: throw APIFailure(RS_E_INVALID_ARGUMENT, "unknown step text \(which.rawValue)")
        }
        try write(text, into: buf, capacity: capacity, length: outLength)
    }
}

@implementation @c
public func rs_route_step_lanes(_ route: OpaquePointer?, _ leg: Int, _ step: Int, _ out: UnsafeMutablePointer<rs_lane>?,
                                _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let lanes = try HandleTable.shared.lookup(route, .route, as: RouteObject.self).step(leg, step).lanes
        try copyOut(count: lanes.count, into: out, capacity: capacity, outCount: outCount, what: "lanes") { i, o in
            var lane = rs_lane(shapes: 0, recommended: 0)
            for d in lanes[i].directions {
                lane.shapes |= d.shape.bit
                if d.isRecommended { lane.recommended |= d.shape.bit }
            }
            o[i] = lane
        }
    }
}

@implementation @c
public func rs_route_get_leg_geometry(_ route: OpaquePointer?, _ leg: Int, _ out: UnsafeMutablePointer<Double>?,
                                      _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let points = try HandleTable.shared.lookup(route, .route, as: RouteObject.self).leg(leg).geometry
        try copyPoints(points, into: out, capacity: capacity, outCount: outCount)
    }
}
