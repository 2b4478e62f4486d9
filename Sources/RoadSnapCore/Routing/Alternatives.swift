/// Limits on alternative routes (the via-node method of Abraham, Delling, Goldberg and Werneck, "Alternative
/// routes in road networks", on the contraction hierarchy).
public struct AlternativeRouteOptions: Hashable, Sendable {
    /// Alternatives wanted besides the main route (0 gives the main route only).
    public var count: Int
    /// Largest share of the main route's length an alternative may share with it, and with each alternative
    /// accepted before it (default 0.8).
    public var maximumOverlap: Double
    /// Largest extra cost over the main route, as a share of its cost (default 0.35: at most 35 % slower).
    public var maximumStretch: Double
    /// Local optimality: the stretch of the alternative around its via arc, `localOptimality` x the main route's
    /// cost on either side (or to the ends when closer), must be a shortest path (default 0.25; 0 turns the check
    /// off).
    public var localOptimality: Double

    /// Checks the limits: `count` >= 0, overlap in [0, 1], stretch >= 0, local optimality in [0, 0.5].
    public init(count: Int = 2, maximumOverlap: Double = 0.8, maximumStretch: Double = 0.35,
                localOptimality: Double = 0.25) throws(RoadSnapError)
    {
        guard count >= 0 else { throw .invalidArgument("alternative count must be >= 0, got \(count)") }
        guard maximumOverlap >= 0, maximumOverlap <= 1 else {
            throw .invalidArgument("maximum overlap must be a share in [0, 1], got \(maximumOverlap)")
        }
        guard maximumStretch >= 0, maximumStretch.isFinite else {
            throw .invalidArgument("maximum stretch must be a share >= 0 (0.35 = 35 % slower), got \(maximumStretch)")
        }
        guard localOptimality >= 0, localOptimality <= 0.5 else {
            throw .invalidArgument("local optimality must be a share in [0, 0.5], got \(localOptimality)")
        }
        self.count = count; self.maximumOverlap = maximumOverlap; self.maximumStretch = maximumStretch
        self.localOptimality = localOptimality
    }
}

/// One route of a choice: the main route (first) or an alternative, with how it compares to the main route.
public struct RouteOption: Hashable, Sendable {
    public var route: Route
    /// The cost the router minimised, milliseconds (traffic costs when a feed was given).
    public var cost: Int64
    /// Share of the main route's length this route shares with it (1 for the main route).
    public var overlap: Double
    /// Extra cost over the main route as a share of its cost (0 for the main route).
    public var stretch: Double
    /// Duration under the traffic feed, seconds (`Route.duration(traffic:network:)`); the free-flow duration
    /// without a feed.
    public var trafficDuration: Double

    public init(route: Route, cost: Int64, overlap: Double, stretch: Double, trafficDuration: Double) {
        self.route = route; self.cost = cost; self.overlap = overlap; self.stretch = stretch
        self.trafficDuration = trafficDuration
    }
}

/// A main route and its alternatives.
public struct RouteChoice: Hashable, Sendable {
    /// The main route's result (status and message when there is no route).
    public var result: RouteResult
    /// The main route first, then the alternatives by cost; empty when the status is not ok.
    public var options: [RouteOption]

    public init(result: RouteResult, options: [RouteOption]) { self.result = result; self.options = options }
}

extension Router {
    /// The main route and up to `alternatives.count` alternatives between an origin and one destination.
    ///
    /// Candidates are via arcs reached by both the forward and the backward search of the hierarchy, both run on
    /// past the shortest path to (1 + stretch) x its cost; each via path (source to via arc, via arc to target,
    /// unpacked) is accepted, cheapest first, when it visits no arc twice, costs at most (1 + maximumStretch) x the
    /// main route, shares at most `maximumOverlap` of the main route's length with the main route and with each
    /// accepted alternative, and passes the local optimality test. With a traffic feed the main route is the
    /// traffic-optimal one (`route(_:traffic:)`), candidates come from the free-flow hierarchy and every limit is
    /// checked with traffic costs. Requests with via waypoints, and routers without a hierarchy (Dijkstra), give
    /// the main route only.
    public func routeChoice(_ request: RouteRequest, alternatives: AlternativeRouteOptions,
                            traffic: TrafficFeed? = nil) -> RouteChoice
    {
        let placed: [PlacedWaypoint], waypoints: [Waypoint]
        switch placeWaypoints(request, isCanceled: { false }) {
        case let .failed(result): return RouteChoice(result: result, options: [])
        case let .placed(w, p): waypoints = w; placed = p
        }
        let prepared = profile(request.options)
        let weighted = traffic.map { prepared.graph.reweighted(network: network, traffic: $0, options: request.options) }
        let graph = weighted ?? prepared.graph
        let space = takeSpace()
        defer { spaces.withLock { $0.append(space) } }
        guard placed.count == 2 else {
            // Via waypoints: the plain route, one leg per destination (its cost is not summed: 0).
            let result = route(request, traffic: traffic)
            return RouteChoice(result: result, options: result.route.map { [option($0, cost: 0, traffic: traffic)] } ?? [])
        }
        guard let (main, ends, places) = searchWithEnds(prepared, from: placed[0], to: placed[1], space: space,
                                                traffic: weighted) else {
            return RouteChoice(result: RouteResult(status: .noRouteFound, message: "no road route from waypoint 0 to "
                                                       + "waypoint 1", waypointIndex: 1), options: [])
        }
        let builder = LegBuilder(router: self, graph: prepared.graph)
        func build(_ path: SearchPath) -> Route {
            Route(legs: [builder.leg(path: path, from: placed[0], to: placed[1], origin: waypoints[0],
                                     destination: waypoints[1])], drivingSide: drivingSide)
        }
        let mainRoute = build(main)
        var options = [option(mainRoute, cost: main.cost, traffic: traffic)]
        guard alternatives.count > 0, let ch = prepared.hierarchy else {
            return RouteChoice(result: RouteResult(status: .ok, route: mainRoute), options: options)
        }
        // Candidate ends on the free-flow graph (same arcs as the main search's ends).
        let freeEnds = weighted == nil ? ends : SearchEnds(graph: prepared.graph, from: places.from, to: places.to)
        let bound = Double(main.cost) * (1 + alternatives.maximumStretch)
        // Free-flow search radius: with traffic the free-flow costs of a candidate can be lower than its traffic
        // cost, never higher (traffic only slows), so the traffic bound covers every admissible candidate.
        let candidates = ch.viaPaths(freeEnds, space: space, bound: Int64(bound.rounded(.up)), limit: 48,
                                     avoiding: Set(main.arcs))
        let mainLength = mainRoute.distance
        var accepted: [(route: Route, arcs: Set<Int>)] = [(mainRoute, Set(mainRoute.legs[0].segments.map(\.arc)))]
        for (arcs, via) in candidates where options.count <= alternatives.count {
            guard Set(arcs).count == arcs.count,
                  let cost = AlternativePaths.cost(of: arcs, ends: ends, graph: graph),
                  Double(cost) <= bound
            else { continue }
            let candidate = build(SearchPath(cost: cost, arcs: arcs))
            var overlapMain = 0.0
            var tooClose = false
            for (k, other) in accepted.enumerated() {
                var shared = 0.0
                for s in candidate.legs[0].segments where other.arcs.contains(s.arc) { shared += s.distance }
                let share = shared / max(k == 0 ? mainLength : other.route.distance, 1e-9)
                if k == 0 { overlapMain = share }
                if share > alternatives.maximumOverlap { tooClose = true; break }
            }
            if tooClose { continue }
            if alternatives.localOptimality > 0,
               !AlternativePaths.isLocallyOptimal(arcs, via: via, graph: graph, hierarchy: weighted == nil ? ch : nil,
                                                  span: alternatives.localOptimality * Double(main.cost), space: space)
            { continue }
            accepted.append((candidate, Set(arcs)))
            options.append(RouteOption(route: candidate, cost: cost, overlap: overlapMain,
                                       stretch: Double(cost) / Double(max(main.cost, 1)) - 1,
                                       trafficDuration: traffic.map { candidate.duration(traffic: $0, network: network) }
                                           ?? candidate.duration))
        }
        let rest = options.dropFirst().sorted { $0.cost < $1.cost }
        return RouteChoice(result: RouteResult(status: .ok, route: mainRoute), options: [options[0]] + rest)
    }

    private func option(_ route: Route, cost: Int64, traffic: TrafficFeed?) -> RouteOption {
        RouteOption(route: route, cost: cost, overlap: 1, stretch: 0,
                    trafficDuration: traffic.map { route.duration(traffic: $0, network: network) } ?? route.duration)
    }
}

/// Path checks for alternatives.
enum AlternativePaths {
    /// Cost of a path of arcs from one of the ends' sources to one of its targets on `graph` (the sum the searches
    /// minimise), or nil when a turn of it is not allowed or it does not start or end at the ends.
    static func cost(of arcs: [Int], ends: SearchEnds, graph: TurnGraph) -> Int64? {
        guard let first = arcs.first else { return nil }
        if arcs.count == 1 { return ends.direct.flatMap { $0.arc == first ? $0.cost : nil } }
        guard let source = ends.sources.first(where: { Int($0.arc) == first }) else { return nil }
        var total = source.cost
        for i in 1..<(arcs.count - 1) {
            guard let t = turn(graph, arcs[i - 1], arcs[i]) else { return nil }
            total += Int64(t)
        }
        let p = arcs[arcs.count - 2], target = arcs[arcs.count - 1]
        guard let end = ends.targets.first(where: { Int($0.arc) == p && Int($0.target) == target }) else { return nil }
        return total + end.cost
    }

    /// Cost of the turn `a -> b` including travelling `b`, or nil.
    static func turn(_ g: TurnGraph, _ a: Int, _ b: Int) -> Int32? {
        for k in Int(g.turnStart[a])..<Int(g.turnStart[a + 1]) where Int(g.turnTarget[k]) == b { return g.turnCost[k] }
        return nil
    }

    /// The T-test around the via arc `arcs[via]`: the sub-path from `span` (cost) before it to `span` after it,
    /// clamped to the path, must be a shortest path between its end arcs (by the hierarchy when given, else by
    /// Dijkstra on `graph`): an alternative must not make a detour a driver would see as pointless.
    static func isLocallyOptimal(_ arcs: [Int], via v: Int, graph: TurnGraph, hierarchy: ContractionHierarchy?,
                                 span: Double, space: SearchSpace) -> Bool
    {
        guard arcs.count >= 3, v >= 0, v < arcs.count else { return true }
        // Cost at the head of each arc, from the head of the first.
        var at = [Int64](repeating: 0, count: arcs.count)
        for i in 1..<arcs.count {
            guard let t = turn(graph, arcs[i - 1], arcs[i]) else { return false }
            at[i] = at[i - 1] + Int64(t)
        }
        var u = v, w = v
        while u > 0, Double(at[v] - at[u]) < span { u -= 1 }
        while w < arcs.count - 1, Double(at[w] - at[v]) < span { w += 1 }
        guard u < w else { return true }
        let local = SearchEnds(graph: graph, from: [ArcPlace(arc: arcs[u], fraction: 1)],
                               to: [ArcPlace(arc: arcs[w], fraction: 1)])
        let found = hierarchy.map { $0.route(local, space: space) } ?? TurnDijkstra.route(graph, local, space: space)
        guard let best = found?.cost else { return false }
        return best >= at[w] - at[u]
    }
}

extension ContractionHierarchy {
    /// Via paths: the forward and backward searches run without stalling until both frontiers pass `bound`; every
    /// arc both reached (not on `avoiding`, the main route) is a via arc, and its path (forward tree to it, backward
    /// tree from it, unpacked) a candidate. Candidates come cheapest first, at most `limit`, skipping via arcs that
    /// lie on a candidate already returned (they give the same path). Each comes with the index of its via arc.
    func viaPaths(_ ends: SearchEnds, space: SearchSpace, bound: Int64, limit: Int, avoiding: Set<Int>)
        -> [(arcs: [Int], via: Int)]
    {
        guard let w = space.hierarchySearch, search(ends, w, stop: .beyond(bound: bound)) != nil else { return [] }
        var via: [(cost: Int64, arc: Int)] = []
        for v in w.settled where !avoiding.contains(v) {
            let fv = w.label(v, backward: false), bv = w.label(v, backward: true)
            if fv < .max, bv < .max, fv + bv <= bound { via.append((fv + bv, v)) }
        }
        via.sort { $0.cost < $1.cost || ($0.cost == $1.cost && $0.arc < $1.arc) }
        var covered = Set<Int>()
        var paths: [(arcs: [Int], via: Int)] = []
        for (_, meet) in via where paths.count < limit && !covered.contains(meet) {
            guard let path = path(meeting: meet, w) else { continue }
            covered.formUnion(path.arcs)
            paths.append((path.arcs, path.meetIndex))
        }
        return paths
    }
}
