import RoadSnapBridge

/// The shortest-path algorithm a router uses.
public enum RoutingAlgorithm: String, Hashable, Sendable {
    /// Contraction hierarchy on the turn-aware graph: preprocessing once per avoid combination, fast queries.
    case contractionHierarchy
    /// Plain Dijkstra on the turn-aware graph: no preprocessing, slow queries (the reference).
    case dijkstra
}

/// Routes between waypoints on one road network. Build once per network; `route(_:)` is thread-safe.
///
/// Preprocessing for the default options happens in `init`; other avoid combinations are prepared on first use.
public final class Router: Sendable {
    public let network: RoadNetwork
    public let algorithm: RoutingAlgorithm
    /// Driving side of the network's region (see `DrivingSide.at(_:)`).
    public let drivingSide: DrivingSide
    /// Search radius for waypoints, metres; beyond it the waypoint is a `.waypointError`.
    public let waypointRadius: Double
    let geometry: ArcGeometry
    /// Why the network's storage cannot be used (a lazily verified compiled map that failed its checksums), if so.
    let storageError: RoadSnapError?
    // `Locked`, not `Mutex`: routers are shared between threads and ThreadSanitizer cannot see `Mutex` (issue 16).
    private let profiles = Locked<[Int: PreparedProfile]>([:])
    private let snappers = Locked<[SnapperBox]>([])
    let spaces = Locked<[SearchSpace]>([])

    public convenience init(network: RoadNetwork, algorithm: RoutingAlgorithm = .contractionHierarchy,
                            drivingSide: DrivingSide? = nil, waypointRadius: Double = 500,
                            prepare options: [RoutingOptions] = [RoutingOptions()])
    {
        self.init(unprepared: network, algorithm: algorithm, drivingSide: drivingSide, waypointRadius: waypointRadius)
        if storageError == nil { for o in options { _ = profile(o) } }
    }

    /// A router whose preprocessing reports progress and can be canceled: `control.progress` receives the
    /// hierarchy build's phases ("turn graph", then "priorities", "contracting", "search graph") for each prepared
    /// option set in turn; when `control.cancellation` is canceled this throws `RoadSnapError.canceled` and no
    /// router is made. `control.threads` sets the worker threads of the contraction (0: every available core).
    public convenience init(network: RoadNetwork, algorithm: RoutingAlgorithm = .contractionHierarchy,
                            drivingSide: DrivingSide? = nil, waypointRadius: Double = 500,
                            prepare options: [RoutingOptions] = [RoutingOptions()],
                            control: BuildControl) throws(RoadSnapError)
    {
        self.init(unprepared: network, algorithm: algorithm, drivingSide: drivingSide, waypointRadius: waypointRadius)
        if let storageError { throw storageError }
        for o in options { _ = try prepareProfile(o, control: control) }
    }

    private init(unprepared network: RoadNetwork, algorithm: RoutingAlgorithm, drivingSide: DrivingSide?,
                 waypointRadius: Double)
    {
        self.network = network
        self.algorithm = algorithm
        self.drivingSide = drivingSide ?? DrivingSide.at(network.frameCenter)
        self.waypointRadius = waypointRadius
        do {
            try network.verifyStorage()
            storageError = nil
        } catch {
            storageError = error
            geometry = ArcGeometry(startBearing: MappedArray(), endBearing: MappedArray(), startsOnMain: MappedArray(),
                                   endsOnMain: MappedArray())
            return
        }
        geometry = CompiledMap.storedGeometry(of: network) ?? ArcGeometry(network: network)
    }

    /// Routes through the request's waypoints, one leg per destination. `isCanceled` is polled between stages; when
    /// it returns true the result is `.canceled`.
    public func route(_ request: RouteRequest, isCanceled: () -> Bool = { false }) -> RouteResult {
        route(request, traffic: nil, isCanceled: isCanceled)
    }

    /// Routes through the request's waypoints minimising travel time under the feed's speeds where it covers a road
    /// (length / min(traffic speed, free-flow speed), as `DelayClassifier` counts it; free flow elsewhere). The
    /// search is an exact Dijkstra on the re-weighted turn graph (the hierarchy holds free-flow costs only). The
    /// legs' durations stay free-flow; `Route.duration(traffic:network:)` gives the traffic ETA. Without a feed
    /// this is `route(_:isCanceled:)`.
    public func route(_ request: RouteRequest, traffic: TrafficFeed?, isCanceled: () -> Bool = { false })
        -> RouteResult
    {
        let placed: [PlacedWaypoint], waypoints: [Waypoint]
        switch placeWaypoints(request, isCanceled: isCanceled) {
        case let .failed(result): return result
        case let .placed(w, p): waypoints = w; placed = p
        }
        let prepared = profile(request.options)
        let weighted = traffic.map { prepared.graph.reweighted(network: network, traffic: $0, options: request.options) }
        let space = takeSpace()
        defer { spaces.withLock { $0.append(space) } }
        var legs: [RouteLeg] = []
        for i in 1..<placed.count {
            if isCanceled() { return RouteResult(status: .canceled, message: "a newer request replaced this one") }
            guard let path = search(prepared, from: placed[i - 1], to: placed[i], space: space, traffic: weighted) else {
                return RouteResult(status: .noRouteFound,
                                   message: "no road route from waypoint \(i - 1) to waypoint \(i)", waypointIndex: i)
            }
            let leg = LegBuilder(router: self, graph: prepared.graph).leg(
                path: path, from: placed[i - 1], to: placed[i], origin: waypoints[i - 1], destination: waypoints[i])
            legs.append(leg)
        }
        return RouteResult(status: .ok, route: Route(legs: legs, drivingSide: drivingSide))
    }

    /// The request's waypoints (origin first) placed on the road, or the result saying why they cannot be.
    enum Placement {
        case placed([Waypoint], [PlacedWaypoint])
        case failed(RouteResult)
    }

    /// Checks the request and places its waypoints on the road.
    func placeWaypoints(_ request: RouteRequest, isCanceled: () -> Bool) -> Placement {
        if let storageError { return .failed(RouteResult(status: .internalError, message: "\(storageError)")) }
        guard request.travelMode == .driving else {
            return .failed(RouteResult(status: .travelModeUnsupported, message: "only driving routes are supported"))
        }
        guard let origin = request.origin else {
            return .failed(RouteResult(status: .locationUnavailable, message: "no origin (current location unknown)"))
        }
        guard !request.destinations.isEmpty else {
            return .failed(RouteResult(status: .noWaypoints, message: "no destination given"))
        }
        let waypoints = [origin] + request.destinations
        for i in 1..<waypoints.count where waypoints[i].coordinate == waypoints[i - 1].coordinate {
            return .failed(RouteResult(status: .duplicateWaypoints, message: "waypoint \(i) repeats waypoint \(i - 1)",
                                       waypointIndex: i))
        }
        if isCanceled() { return .failed(RouteResult(status: .canceled, message: "a newer request replaced this one")) }
        let snapper: SnapperBox
        do { snapper = try takeSnapper() } catch {
            return .failed(RouteResult(status: .internalError, message: "\(error)"))
        }
        defer { snappers.withLock { $0.append(snapper) } }
        var placed: [PlacedWaypoint] = []
        for (i, w) in waypoints.enumerated() {
            let placedOne: PlacedWaypoint?
            do {
                placedOne = try place(w, snapper: snapper.snapper, isOrigin: i == 0, isDestination: i > 0,
                                      continuesAfter: i + 1 < waypoints.count)
            } catch {
                // PROJ refusing the waypoint (far outside the map's frame) is the waypoint's fault; a GEOS failure is not.
                let status: RouteStatus
                if case .projection = error { status = .waypointError } else { status = .internalError }
                return .failed(RouteResult(status: status, message: "waypoint \(i) (\(w.coordinate.latitude),"
                                               + "\(w.coordinate.longitude)): \(error)", waypointIndex: i))
            }
            guard let p = placedOne else {
                return .failed(RouteResult(status: .waypointError,
                                           message: "waypoint \(i) (\(w.coordinate.latitude),\(w.coordinate.longitude)) "
                                               + "has no road within \(Int(waypointRadius)) m", waypointIndex: i))
            }
            placed.append(p)
        }
        return .placed(waypoints, placed)
    }

    /// Travel cost in milliseconds between two waypoints under `options` (the quantity routes minimise), or nil.
    public func cost(from a: Waypoint, to b: Waypoint, options: RoutingOptions = RoutingOptions()) -> Int64? {
        if storageError != nil { return nil }
        guard let snapper = try? takeSnapper() else { return nil }
        defer { snappers.withLock { $0.append(snapper) } }
        guard let pa = try? place(a, snapper: snapper.snapper, isOrigin: true),
              let pb = try? place(b, snapper: snapper.snapper, isOrigin: false) else { return nil }
        let space = takeSpace()
        defer { spaces.withLock { $0.append(space) } }
        return search(profile(options), from: pa, to: pb, space: space)?.cost
    }

    /// Size of the contraction hierarchy prepared for `options` (nil for Dijkstra routers), for benchmarks and logs.
    public func hierarchyStatistics(options: RoutingOptions = RoutingOptions()) -> HierarchyStatistics? {
        if storageError != nil { return nil }
        return profile(options).hierarchy.map {
            HierarchyStatistics(turnNodes: $0.nodeCount, shortcuts: $0.shortcutCount, coreSize: $0.coreSize,
                                contractionRounds: $0.rounds)
        }
    }

    // MARK: internals

    /// The cheapest path between two placed waypoints; with a `traffic` graph (same turns, re-weighted) by
    /// Dijkstra on it.
    func search(_ p: PreparedProfile, from a: PlacedWaypoint, to b: PlacedWaypoint, space: SearchSpace,
                traffic: TurnGraph? = nil) -> SearchPath?
    {
        searchWithEnds(p, from: a, to: b, space: space, traffic: traffic)?.path
    }

    /// `search` with the ends it succeeded with (preferred arcs first, then all arcs of either waypoint).
    func searchWithEnds(_ p: PreparedProfile, from a: PlacedWaypoint, to b: PlacedWaypoint, space: SearchSpace,
                        traffic: TurnGraph? = nil)
        -> (path: SearchPath, ends: SearchEnds, places: (from: [ArcPlace], to: [ArcPlace]))?
    {
        let attempts: [([ArcPlace], [ArcPlace])] = [
            (a.preferred, b.preferred), (a.all, b.preferred), (a.preferred, b.all), (a.all, b.all),
        ]
        var tried: Set<[ArcPlace]> = []
        for (from, to) in attempts {
            if !tried.insert(from + [ArcPlace(arc: -1, fraction: 0)] + to).inserted { continue }
            let ends = SearchEnds(graph: traffic ?? p.graph, from: from, to: to)
            let found = traffic.map { TurnDijkstra.route($0, ends, space: space) }
                ?? p.hierarchy.map { $0.route(ends, space: space) } ?? TurnDijkstra.route(p.graph, ends, space: space)
            if let found { return (found, ends, (from, to)) }
        }
        return nil
    }

    /// The prepared profile of an avoid combination, built on first use. Without a cancellation the build can fail
    /// only by running out of memory; the profile then routes by Dijkstra (same results, slower queries).
    func profile(_ options: RoutingOptions) -> PreparedProfile {
        if let p = try? prepareProfile(options, control: BuildControl()) { return p }
        let graph = TurnGraph(network: network, geometry: geometry, options: options, drivingSide: drivingSide)
        let fallback = PreparedProfile(graph: graph, hierarchy: nil)
        return profiles.withLock { table in
            if let p = table[Self.key(options)] { return p }
            table[Self.key(options)] = fallback
            return fallback
        }
    }

    private static func key(_ options: RoutingOptions) -> Int {
        (options.avoidsHighways ? 1 : 0) | (options.avoidsTolls ? 2 : 0) | (options.avoidsFerries ? 4 : 0)
    }

    func prepareProfile(_ options: RoutingOptions, control: BuildControl) throws(RoadSnapError) -> PreparedProfile {
        let key = Self.key(options)
        if let p = profiles.withLock({ $0[key] }) { return p }
        let prepared: PreparedProfile
        if key == 0, algorithm == .contractionHierarchy,
           let stored = CompiledMap.storedProfile(of: network, drivingSide: drivingSide)
        {
            prepared = stored  // the default options' hierarchy, read in place from a compiled map
        } else {
            control.progress?(BuildProgress(phase: "turn graph", fraction: 0))
            try control.checkCanceled("routing hierarchy")
            let graph = TurnGraph(network: network, geometry: geometry, options: options, drivingSide: drivingSide)
            control.progress?(BuildProgress(phase: "turn graph", fraction: 1))
            let ch = algorithm == .contractionHierarchy ? try ContractionHierarchy(graph: graph, control: control) : nil
            prepared = PreparedProfile(graph: graph, hierarchy: ch)
        }
        return profiles.withLock { table in
            if let p = table[key] { return p }
            table[key] = prepared
            return prepared
        }
    }

    private func takeSnapper() throws(RoadSnapError) -> SnapperBox {
        if let s = snappers.withLock({ $0.popLast() }) { return s }
        return SnapperBox(try Snapper(network: network))
    }

    func takeSpace() -> SearchSpace {
        if let s = spaces.withLock({ $0.popLast() }) { return s }
        return SearchSpace(count: network.edges.count * 2)
    }

    /// Places a waypoint on the nearest suitable road: arcs matching its heading (and, for destinations, its side
    /// of the road) are preferred; roads on tiny islands are used only when nothing else is near.
    /// A via waypoint (`continuesAfter` and not the origin) must be both reachable and left again.
    func place(_ w: Waypoint, snapper: Snapper, isOrigin: Bool, isDestination: Bool? = nil,
               continuesAfter: Bool = false) throws(RoadSnapError) -> PlacedWaypoint?
    {
        var cands = try snapper.candidates(near: w.coordinate, radius: min(waypointRadius, network.index.cacheRadius))
        if cands.isEmpty, waypointRadius > network.index.cacheRadius {
            cands = try snapper.candidates(near: w.coordinate, radius: waypointRadius, method: .strtree)
        }
        guard !cands.isEmpty else { return nil }
        let arrives = isDestination ?? !isOrigin, leaves = isOrigin || continuesAfter
        let geometry = geometry
        let connected = { (e: Int) -> Bool in
            (!arrives || geometry.endsOnMain[e]) && (!leaves || geometry.startsOnMain[e])
        }
        var mainland = cands.filter { connected($0.edge) }
        if mainland.isEmpty, waypointRadius > network.index.cacheRadius {
            // Only a cut-off fragment nearby: look farther for a road of the main network (as OSRM does).
            mainland = try snapper.candidates(near: w.coordinate, radius: waypointRadius, method: .strtree)
                .filter { connected($0.edge) }
        }
        let pool = mainland.isEmpty ? cands : mainland
        let point = try snapper.project(w.coordinate)
        func arcs(_ c: SnapCandidate) -> [ArcPlace] {
            let edge = network.edges[c.edge]
            let len = max(edge.length, 1e-9)
            var r: [ArcPlace] = []
            if edge.allows(forward: true) { r.append(ArcPlace(arc: 2 * c.edge, fraction: c.offset / len)) }
            if edge.allows(forward: false) { r.append(ArcPlace(arc: 2 * c.edge + 1, fraction: 1 - c.offset / len)) }
            return r
        }
        /// The way arc place `a` of candidate `c` runs at the candidate's point.
        func bearing(_ c: SnapCandidate, _ a: ArcPlace) -> Double {
            a.arc & 1 == 0 ? c.bearing : (c.bearing + 180).truncatingRemainder(dividingBy: 360)
        }
        func acceptable(_ c: SnapCandidate, _ a: ArcPlace) -> Bool {
            let bearing = bearing(c, a)
            if let h = w.preferredHeading, bearingDifference(h, bearing) > w.headingTolerance { return false }
            if !isOrigin, w.preferSameSideOfRoad, c.distance > 1, drivingSide != .none {
                let rad = bearing * Double.pi / 180
                let dx = RSMath.sin(rad), dy = RSMath.cos(rad)
                let cross = dx * (point.y - c.point.y) - dy * (point.x - c.point.x)  // > 0: point on the left
                if (cross > 0) != (drivingSide == .left) { return false }
            }
            return true
        }
        let nearest = pool[0]
        var chosen = nearest
        var preferred = arcs(nearest).filter { acceptable(nearest, $0) }
        if let h = w.preferredHeading {
            // Roads meeting where the nearest one is (a waypoint on a junction): the one going most nearly the
            // heading's way, not whichever the index lists first.
            func turn(_ c: SnapCandidate, _ a: ArcPlace) -> Double { bearingDifference(h, bearing(c, a)) }
            var best = preferred.map { turn(nearest, $0) }.min() ?? .infinity
            for c in pool.dropFirst() where c.distance <= nearest.distance + 1 {
                let ok = arcs(c).filter { acceptable(c, $0) }
                if let d = ok.map({ turn(c, $0) }).min(), d < best { chosen = c; preferred = ok; best = d }
            }
        }
        if preferred.isEmpty, w.preferredHeading != nil || w.preferSameSideOfRoad {
            // A slightly farther road that goes the right way (within 3x the nearest distance + 10 m).
            for c in pool.dropFirst() where c.distance <= nearest.distance * 3 + 10 {
                let ok = arcs(c).filter { acceptable(c, $0) }
                if !ok.isEmpty { chosen = c; preferred = ok; break }
            }
        }
        let all = arcs(chosen)
        guard !all.isEmpty else { return nil }
        let g = snapper.frame.inverse(chosen.point)
        return PlacedWaypoint(candidate: chosen, point: point,
                              snapped: GeoCoordinate(uncheckedLatitude: g.latitude, longitude: g.longitude),
                              preferred: preferred.isEmpty ? all : preferred, all: all)
    }
}

/// Size of a contraction hierarchy on the turn graph (nodes are arcs, links allowed turns).
public struct HierarchyStatistics: Hashable, Sendable {
    /// Nodes of the turn graph (two per edge).
    public var turnNodes: Int
    /// Shortcut links added by contraction.
    public var shortcuts: Int
    /// Nodes left uncontracted (searched by bidirectional Dijkstra).
    public var coreSize: Int
    /// Rounds of the contraction (each contracts an independent set of nodes in parallel).
    public var contractionRounds: Int
}

/// The turn graph and (when the algorithm uses one) the hierarchy of one avoid combination.
final class PreparedProfile: Sendable {
    let graph: TurnGraph
    let hierarchy: ContractionHierarchy?
    init(graph: TurnGraph, hierarchy: ContractionHierarchy?) { self.graph = graph; self.hierarchy = hierarchy }
}

/// A snapper handed out by the router's pool to one query at a time.
final class SnapperBox: @unchecked Sendable {
    let snapper: Snapper
    init(_ s: Snapper) { snapper = s }
}

/// A waypoint placed on the road.
struct PlacedWaypoint {
    var candidate: SnapCandidate
    /// The waypoint in the local frame.
    var point: LocalPoint
    var snapped: GeoCoordinate
    /// Arcs to start or end on: those matching heading and side, and all.
    var preferred: [ArcPlace]
    var all: [ArcPlace]
}

extension DrivingSide {
    /// Driving side at a place: left in the UK, Ireland, Japan, Australia, New Zealand, southern and eastern Africa,
    /// South Asia and a few islands (coarse boxes), right elsewhere.
    public static func at(_ c: GeoCoordinate) -> DrivingSide {
        let boxes: [(Double, Double, Double, Double)] = [  // lat min, lat max, lon min, lon max
            (49.8, 61.0, -8.7, 1.8),  // Great Britain
            (51.3, 55.5, -10.7, -5.9),  // Ireland
            (24.0, 46.0, 122.9, 146.0),  // Japan
            (-44.0, -10.0, 112.0, 154.0),  // Australia
            (-47.5, -34.0, 166.0, 179.0),  // New Zealand
            (6.0, 35.5, 68.0, 97.5),  // India, Bangladesh, Sri Lanka, Nepal
            (-35.0, -15.0, 16.0, 41.0),  // Southern Africa
            (-12.0, 5.0, 29.0, 42.0),  // Kenya, Tanzania, Uganda
            (-11.0, 7.0, 95.0, 141.0),  // Indonesia, Malaysia, Singapore
            (21.0, 23.0, 113.5, 114.5),  // Hong Kong, Macau
            (35.0, 35.8, 32.0, 34.7),  // Cyprus
            (35.7, 36.1, 14.1, 14.6),  // Malta
        ]
        for b in boxes where c.latitude >= b.0 && c.latitude <= b.1 && c.longitude >= b.2 && c.longitude <= b.3 {
            return .left
        }
        return .right
    }
}
