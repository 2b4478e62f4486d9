import RoadSnapBridge

/// One answer of the streaming matcher: where a fix lies on the road network (see `StreamMatcher`).
public struct StreamMatch: Hashable, Sendable {
    /// Directed arc (2 × edge, + 1 against the edge's geometry).
    public var arc: Int
    public var edge: Int { arc >> 1 }
    public var isForward: Bool { arc & 1 == 0 }
    /// Metres along the arc from its tail.
    public var offset: Double
    /// Metres from the edge's geometry start (`offset` turned round for an arc against the geometry).
    public var edgeOffset: Double
    /// Bearing of the road at the matched point in the arc's travel direction, degrees [0, 360).
    public var bearing: Double
    /// The matched point (local metres of the network's frame) and its coordinate.
    public var point: LocalPoint
    public var coordinate: GeoCoordinate
    /// Fix to matched point, metres.
    public var distance: Double
    /// The fix was within the minimum fix distance of the last scored fix and took its match.
    public var held: Bool
}

/// Map matching of a live feed, one fix at a time, on the batch matcher's engine (`MatchStream`: the same
/// candidates, emission, transition and route search as `MapMatcher`, turn restrictions included): the answer for
/// the newest fix (lag 0), or for one up to `maxLag` fixes back once that many more arrived. A route's arcs can be
/// favoured (`setRoute`, navigation); `reset` after a reroute or a long gap. Memory stays bounded on an endless
/// drive. Not thread-safe.
public final class StreamMatcher {
    public let network: RoadNetwork
    public let graph: MatchGraph
    public let frame: LocalFrame
    public let query: SegmentQuery
    public let parameters: MatchParameters
    let stream: MatchStream

    /// `graph` defaults to a new one (share one between threads); `parameters` as for `MapMatcher`: with
    /// `raiseSigmaToTrack` (the default) sigma and the radius are raised to the feed's own estimate as fixes arrive
    /// (the batch run's rule over the fixes scored so far; kept across `reset`), otherwise used as given; `routeBonus`
    /// log units of emission for the route's arcs.
    public init(network: RoadNetwork, graph: MatchGraph? = nil, parameters: MatchParameters = MatchParameters(),
                maxLag: Int = 5, routeBonus: Double = 2) throws(RoadSnapError)
    {
        self.network = network
        if let graph { self.graph = graph } else { self.graph = try MatchGraph(network: network) }
        frame = try network.makeFrame()
        try parameters.validate()
        let graph = self.graph
        let query = try network.makeQuery(capacity: 256)
        self.query = query
        stream = try native { () throws(NativeFailure) in
            try MatchStream(graph: graph, query: query, parameters: parameters.engine, maxLag: maxLag,
                            routeBonus: routeBonus, raiseSigma: parameters.raiseSigmaToTrack)
        }
        self.parameters = parameters
    }

    public var maxLag: Int { stream.maxLag }

    /// The coordinate in the network's local frame (what `push(_:at:)` takes); throws `.projection` (which point,
    /// PROJ's reason) when PROJ refuses it.
    public func project(_ c: GeoCoordinate) throws(RoadSnapError) -> LocalPoint {
        try native { () throws(NativeFailure) in try frame.project(latitude: c.latitude, longitude: c.longitude) }
    }

    /// Pushes one fix (its local position is computed here, once). A fix PROJ refuses is pushed as an unmatched
    /// fix (so the lags of the fixes after it stay aligned) and then reported: this throws `.projection` naming
    /// PROJ's reason.
    public func push(_ fix: Fix) throws(RoadSnapError) {
        let p: LocalPoint
        do {
            p = try project(fix.coordinate)
        } catch {
            try push(fix, at: LocalPoint(x: .nan, y: .nan))
            throw error
        }
        try push(fix, at: p)
    }

    /// Pushes one fix whose local position the caller already has.
    public func push(_ fix: Fix, at p: LocalPoint) throws(RoadSnapError) {
        try native { () throws(NativeFailure) in
            try stream.push(x: p.x, y: p.y, time: fix.time ?? .nan, course: fix.course ?? .nan, speed: fix.speed ?? .nan,
                            accuracy: fix.horizontalAccuracy ?? .nan)
        }
    }

    /// The answer for the fix pushed `lag` fixes before the newest: nil when unmatched, when `lag` exceeds `maxLag`
    /// or the fixes pushed since the last reset.
    public func result(lag: Int = 0) -> StreamMatch? {
        guard let a = stream.result(lag: lag), a.fix.arc >= 0 else { return nil }
        let f = a.fix
        let edge = f.arc >> 1, forward = f.arc & 1 == 0
        let edgeOffset = forward ? f.offset : max(0, network.edges.length(edge) - f.offset)
        let (coordinate, along) = pointOnEdge(edge, offset: edgeOffset) ?? {
            let g = frame.inverse(a.point)
            return (GeoCoordinate(uncheckedLatitude: g.latitude, longitude: g.longitude),
                    network.bearing(onEdge: edge, offset: edgeOffset))
        }()
        let bearing = forward ? along : (along + 180).truncatingRemainder(dividingBy: 360)
        return StreamMatch(arc: f.arc, offset: f.offset, edgeOffset: edgeOffset, bearing: bearing, point: a.point,
                           coordinate: coordinate, distance: f.distance, held: f.held)
    }

    /// The coordinate and the road's bearing `offset` metres from the start of edge `edge`'s geometry: one walk
    /// along the edge (`RoadNetwork.position(onEdge:offset:)`, the one walk), the coordinate interpolated between
    /// the two shape vertices around it (the same fraction as in the local frame; a segment is straight in both to
    /// well under a millimetre on a city map), instead of a PROJ inverse per answer. Nil for a degenerate edge.
    private func pointOnEdge(_ edge: Int, offset: Double) -> (GeoCoordinate, Double)? {
        guard network.edges.shapeRange(edge).count >= 2 else { return nil }
        let p = network.position(onEdge: edge, offset: offset)
        let t = p.length > 0 ? min(1, p.along / p.length) : 1
        let k = p.index
        let ga = network.shape[k], gb = network.shape[k + 1]
        let c = GeoCoordinate(uncheckedLatitude: ga.latitude + t * (gb.latitude - ga.latitude),
                              longitude: ga.longitude + t * (gb.longitude - ga.longitude))
        return (c, localBearing(from: network.localShape[k], to: network.localShape[k + 1]))
    }

    /// Favours these arcs (the route being followed) from the next fix; empty clears.
    public func setRoute(arcs: [Int32]) throws(RoadSnapError) {
        try native { () throws(NativeFailure) in try stream.setRoute(arcs: arcs) }
    }

    /// Forgets every fix (after a reroute or a long gap); the route and the noise estimate stay.
    public func reset() { stream.reset() }

    /// The sigma (metres) the stream matches with now: `parameters.sigma`, or the feed's own estimate once that is
    /// larger (`raiseSigmaToTrack`; the radius is then 5 of these sigmas at least).
    public var sigma: Double { stream.sigma }

    /// Bytes held by the stream's growable buffers.
    public var memoryBytes: Int { stream.memoryBytes }

    /// Fixes at the end of the stream held as possible outliers: unreachable from the chain, unanswered at lag 0 (at
    /// lag >= 1 answered as the run would go on its own) until a later fix bridges them (they were outliers) or ends
    /// the chain (the car went elsewhere). 0 once a fix is scored.
    public var pendingOutliers: Int { stream.pendingOutliers }
}
