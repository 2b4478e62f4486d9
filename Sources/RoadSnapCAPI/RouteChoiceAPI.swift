import RoadSnapCHeader
import RoadSnapCore

extension AlternativeRouteOptions {
    /// The C limits (NULL: the main route only), checked.
    init(_ o: UnsafePointer<rs_alternative_options>?) throws(APIFailure) {
        guard let o = o?.pointee else {
            self = try bridging { () throws(RoadSnapError) in try AlternativeRouteOptions(count: 0) }
            return
        }
        guard o.count >= 0, o.count <= 16 else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "alternative count must be in 0...16, got \(o.count)")
        }
        self = try bridging { () throws(RoadSnapError) in
            try AlternativeRouteOptions(count: Int(o.count), maximumOverlap: o.max_overlap == 0 ? 0.8 : o.max_overlap,
                                        maximumStretch: o.max_stretch == 0 ? 0.35 : o.max_stretch)
        }
    }
}

/// The traffic speeds of C limits as a feed (nil without any), checked.
func trafficFeed(_ o: UnsafePointer<rs_alternative_options>?) throws(APIFailure) -> TrafficFeed? {
    guard let o = o?.pointee, o.traffic_count > 0 else { return nil }
    guard let ids = o.traffic_way_ids else { throw .null("alternatives->traffic_way_ids") }
    guard let speeds = o.traffic_speeds_kmh else { throw .null("alternatives->traffic_speeds_kmh") }
    guard o.traffic_count <= 1 << 40 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "traffic_count too large") }
    var table: [Int64: Double] = [:]
    for i in 0..<o.traffic_count { table[ids[i]] = speeds[i] }
    return try bridging { () throws(RoadSnapError) in try TrafficFeed(speedsKmh: table) }
}

@implementation @c
public func rs_router_route_alternatives(_ router: OpaquePointer?, _ waypoints: UnsafePointer<rs_waypoint>?,
                                         _ count: Int, _ options: UnsafePointer<rs_route_options>?,
                                         _ alternatives: UnsafePointer<rs_alternative_options>?,
                                         _ outRoutes: UnsafeMutablePointer<OpaquePointer?>?,
                                         _ outInfos: UnsafeMutablePointer<rs_route_choice_info>?, _ capacity: Int,
                                         _ outCount: UnsafeMutablePointer<Int>?,
                                         _ outRouteStatus: UnsafeMutablePointer<rs_route_status>?) -> rs_status
{
    apiCall { () throws(APIFailure) in
        outCount?.pointee = 0
        outRouteStatus?.pointee = RS_ROUTE_INTERNAL_ERROR
        guard let outRoutes else { throw .null("out_routes") }
        guard capacity > 0 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "capacity must be > 0 (room for the main route)") }
        for i in 0..<capacity { outRoutes[i] = nil }
        let r = try HandleTable.shared.lookup(router, .router, as: RouterObject.self)
        let list = try checkedWaypoints(waypoints, count, status: outRouteStatus)
        let limits = try AlternativeRouteOptions(alternatives)
        let feed = try trafficFeed(alternatives)
        let choice = r.router.routeChoice(RouteRequest(waypoints: list, options: RoutingOptions(options)),
                                          alternatives: limits, traffic: feed)
        outRouteStatus?.pointee = choice.result.status.c
        guard choice.result.status == .ok, !choice.options.isEmpty else {
            throw APIFailure(RS_E_NO_ROUTE, "\(choice.result.status.rawValue): \(choice.result.message)")
        }
        let n = min(choice.options.count, capacity)
        var made: [OpaquePointer] = []
        for o in choice.options.prefix(n) {
            do throws(APIFailure) {
                made.append(try HandleTable.shared.insert(RouteObject(o.route), kind: .route))
            } catch {
                for h in made { try? HandleTable.shared.remove(h, .route) }
                throw error
            }
        }
        for (i, (h, o)) in zip(made, choice.options).enumerated() {
            outRoutes[i] = h
            outInfos?[i] = rs_route_choice_info(distance: o.route.distance, duration: o.route.duration,
                                                traffic_duration: o.trafficDuration, overlap: o.overlap,
                                                stretch: o.stretch)
        }
        outCount?.pointee = choice.options.count
    }
}

@implementation @c
public func rs_navigator_set_route(_ navigator: OpaquePointer?, _ route: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in
        let n = try navigatorObject(navigator)
        let chosen = try HandleTable.shared.lookup(route, .route, as: RouteObject.self).route
        try bridging { () throws(RoadSnapError) in try n.session.navigator.setRoute(chosen) }
    }
}

@implementation @c
public func rs_navigator_set_traffic(_ navigator: OpaquePointer?, _ wayIds: UnsafePointer<Int64>?,
                                     _ speedsKmh: UnsafePointer<Double>?, _ count: Int) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let n = try navigatorObject(navigator)
        guard count >= 0 else { throw APIFailure(RS_E_INVALID_ARGUMENT, "count too large") }
        guard count > 0 else { n.session.navigator.trafficFeed = nil; return }
        guard let wayIds else { throw .null("way_ids") }
        guard let speedsKmh else { throw .null("speeds_kmh") }
        var table: [Int64: Double] = [:]
        for i in 0..<count { table[wayIds[i]] = speedsKmh[i] }
        n.session.navigator.trafficFeed = try bridging { () throws(RoadSnapError) in try TrafficFeed(speedsKmh: table) }
    }
}

@implementation @c
public func rs_navigator_get_reroute_offer(_ navigator: OpaquePointer?, _ outOffer: UnsafeMutablePointer<rs_reroute_offer>?)
    -> rs_status
{
    reading(navigator, .navigator, as: NavigatorObject.self, into: outOffer, named: "out_offer") { n throws(APIFailure) in
        guard let o = n.session.navigator.pendingRerouteOffer else {
            throw APIFailure(RS_E_NO_ROUTE, "no faster route is offered")
        }
        return rs_reroute_offer(current_eta: o.currentETA, offered_eta: o.offeredETA, distance: o.route.distance,
                                time: o.time)
    }
}

@implementation @c
public func rs_navigator_accept_reroute_offer(_ navigator: OpaquePointer?) -> rs_status {
    apiCall { () throws(APIFailure) in
        guard try navigatorObject(navigator).session.navigator.acceptRerouteOffer() else {
            throw APIFailure(RS_E_NO_ROUTE, "no faster route is offered")
        }
    }
}
