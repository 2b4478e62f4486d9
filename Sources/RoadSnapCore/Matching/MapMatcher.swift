import RoadSnapBridge

extension MatchGraph {
    /// The matching graph of a network: its arcs, lengths and turn restrictions, read in place from the network's
    /// arrays (no copy). Build once, share between threads.
    public convenience init(network: RoadNetwork) throws(RoadSnapError) {
        try network.verifyStorage()
        let g = network.graph
        do {
            try self.init(borrowingNodeCount: g.nodeCount, outStart: g.outStart, outArcs: g.outArcs, arcTail: g.arcTail,
                          arcHead: g.arcHead, arcLength: g.arcLength, twin: g.reverseArc,
                          restrictionStart: g.restrictionStart, restrictionVia: g.restrictionVia,
                          restrictionTo: g.restrictionTo, restrictionMandatory: g.restrictionMandatory, owner: g)
        } catch { throw RoadSnapError(error) }
        // Node positions in the network's local frame (where fixes are matched and arc lengths measured), and each
        // arc's free-flow speed (arc 2e: edge e forward, 2e + 1 backward).
        var x = [Double](repeating: 0, count: g.nodeCount), y = [Double](repeating: 0, count: g.nodeCount)
        var speed = [Double](repeating: 1, count: 2 * network.edges.count)
        let shape = network.localShape
        for e in network.edges {
            let r = e.shapeRange
            x[e.fromNode] = shape[r.lowerBound].x
            y[e.fromNode] = shape[r.lowerBound].y
            x[e.toNode] = shape[r.upperBound - 1].x
            y[e.toNode] = shape[r.upperBound - 1].y
            let attributes = e.attributes
            let forward = attributes.speedKmh(forward: true), backward = attributes.speedKmh(forward: false)
            if forward.isFinite, forward > 0 { speed[2 * e.index] = forward / 3.6 }
            if backward.isFinite, backward > 0 { speed[2 * e.index + 1] = backward / 3.6 }
        }
        try native { () throws(NativeFailure) in try setNodePositions(x: x, y: y) }
        try native { () throws(NativeFailure) in try setArcSpeeds(speed) }
        // Turn costs apply only where roads have no speeds: elsewhere the directions would go unused.
        guard pricesTurns else { return }
        // Each arc's direction where it leaves its tail and enters its head: the first and last segments of the
        // edge's geometry that have a length (arc 2e + 1 runs them backwards).
        var leave = [Double](repeating: 0, count: 2 * network.edges.count)
        var enter = [Double](repeating: 0, count: 2 * network.edges.count)
        for e in network.edges {
            let r = e.shapeRange
            var first = 0.0, last = 0.0
            if let i = (r.lowerBound..<(r.upperBound - 1)).first(where: { shape[$0] != shape[$0 + 1] }) {
                first = RSMath.atan2(shape[i + 1].y - shape[i].y, shape[i + 1].x - shape[i].x)
            }
            if let i = (r.lowerBound..<(r.upperBound - 1)).last(where: { shape[$0] != shape[$0 + 1] }) {
                last = RSMath.atan2(shape[i + 1].y - shape[i].y, shape[i + 1].x - shape[i].x)
            }
            leave[2 * e.index] = first
            enter[2 * e.index] = last
            leave[2 * e.index + 1] = last + .pi
            enter[2 * e.index + 1] = first + .pi
        }
        try native { () throws(NativeFailure) in try setArcDirections(leave: leave, enter: enter) }
    }
}

/// One fix as matched: the edge and direction it was placed on, where, and how far it was from the road.
///
/// Stored compactly (56 bytes with its optional, was 72): a match result holds one per fix, so on a 1,000,000-fix
/// track every byte here is a megabyte (issue 16, item 11). Edge and sub-match numbers fit 32 bits (the matching
/// engine numbers arcs with 32-bit integers).
public struct MatchedFix: Hashable, Sendable {
    /// Metres along the sub-match's path from its start to the matched point.
    public var along: Double
    /// Metres from the edge's geometry start to the matched point.
    public var offset: Double
    /// Metres from the fix to the matched point.
    public var distance: Double
    /// The matched point on the road.
    public var coordinate: GeoCoordinate
    private var edgeNumber: Int32
    private var subMatchNumber: Int32
    /// Whether the fix travels the edge along its geometry.
    public var forward: Bool

    /// Edge index in the network.
    public var edge: Int {
        get { Int(edgeNumber) }
        set { edgeNumber = Int32(newValue) }
    }

    /// Index of the sub-match holding this fix.
    public var subMatch: Int {
        get { Int(subMatchNumber) }
        set { subMatchNumber = Int32(newValue) }
    }

    public init(edge: Int, forward: Bool, subMatch: Int, along: Double, offset: Double, distance: Double,
                coordinate: GeoCoordinate)
    {
        self.along = along
        self.offset = offset
        self.distance = distance
        self.coordinate = coordinate
        edgeNumber = Int32(edge)
        subMatchNumber = Int32(subMatch)
        self.forward = forward
    }

    /// Arc id (`RoadGraph` numbering) of the matched edge and direction.
    public var arc: Int { RoadGraph.arc(edge: edge, forward: forward) }
}

/// A run of fixes joined by drivable routes: the path driven and how much to trust it.
public struct SubMatch: Hashable, Sendable {
    /// First and last matched fix (indices into the track), inclusive.
    public var firstFix: Int
    public var lastFix: Int
    /// Fixes matched within `firstFix...lastFix` (the others were dropped as outliers or had no road near).
    public var matchedFixCount: Int
    /// The path driven: directed arcs (`RoadGraph` numbering) in order, each with the metres along it driven.
    public var steps: [PathStep]
    /// Route length in metres from the first to the last matched point.
    public var length: Double
    /// Seconds from the first to the last matched fix, when the track has times.
    public var duration: Double?
    /// How much to trust this sub-match, in [0, 1]: agreement of route and straight-line distances, share of fixes
    /// matched, and (for a lone fix) its distance to the road.
    public var confidence: Double
    /// The matched path as a polyline from the first to the last matched point.
    public var geometry: [GeoCoordinate]

    /// Directed arcs traversed, in driving order.
    public var arcs: [Int] { steps.map(\.arc) }

    /// Edges traversed in order (consecutive repeats of one edge collapsed).
    public var edges: [Int] {
        var out: [Int] = []
        for a in arcs where out.last != RoadGraph.edge(ofArc: a) { out.append(RoadGraph.edge(ofArc: a)) }
        return out
    }
}

/// The map-matching result of one track.
public struct MatchResult: Hashable, Sendable {
    /// One entry per input fix, nil where the fix was not matched.
    public var fixes: [MatchedFix?]
    public var subMatches: [SubMatch]
    /// The parameters used (with the sigma actually applied to this track).
    public var parameters: MatchParameters

    /// Number of matched fixes.
    public var matchedCount: Int { fixes.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    /// Source ids of the edges a sub-match traversed, consecutive repeats collapsed.
    public func edgeSourceIDs(of sub: SubMatch, in network: RoadNetwork) -> [EdgeSourceID] {
        var out: [EdgeSourceID] = []
        for e in sub.edges where out.last != network.edges[e].sourceID { out.append(network.edges[e].sourceID) }
        return out
    }
}

/// Per-thread hidden-Markov map matcher (Newson & Krumm 2009) on one network. Not thread-safe: make one per thread;
/// they can share the network and its `MatchGraph`.
public final class MapMatcher {
    public let network: RoadNetwork
    public let graph: MatchGraph
    public let frame: LocalFrame
    public let query: SegmentQuery
    let engine: MatchEngine
    public var parameters: MatchParameters
    private var xs: [Double] = [], ys: [Double] = []

    /// `graph` defaults to a new one; pass a shared one when making matchers for several threads.
    public init(network: RoadNetwork, graph: MatchGraph? = nil, parameters: MatchParameters = MatchParameters())
        throws(RoadSnapError)
    {
        try parameters.validate()
        self.network = network
        let graph = if let graph { graph } else { try MatchGraph(network: network) }
        self.graph = graph
        frame = try network.makeFrame()
        let query = try network.makeQuery(capacity: 256)
        self.query = query
        engine = try native { () throws(NativeFailure) in try MatchEngine(graph: graph, query: query) }
        self.parameters = parameters
    }

    /// Robust GPS error estimate for a track (Newson & Krumm): 1.4826 × the median distance from each fix to its
    /// nearest road within the search radius. Nil when no fix has a road near.
    /// Throws when PROJ refuses a fix or the GEOS search fails.
    public func estimateSigma(_ track: Track) throws(RoadSnapError) -> Double? {
        try native { () throws(NativeFailure) in try frame.forward(latitudes: track.fixes.map(\.coordinate.latitude),
                          longitudes: track.fixes.map(\.coordinate.longitude), x: &xs, y: &ys) }
        return try estimateSigma(x: xs, y: ys, samples: Int.max)
    }

    /// The estimate from at most about `samples` fixes spread evenly over the track (local metres).
    func estimateSigma(x: [Double], y: [Double], samples: Int) throws(RoadSnapError) -> Double? {
        let stride = max(1, x.count / max(1, samples))
        var d: [Double] = []
        d.reserveCapacity(x.count / stride + 1)
        var i = 0
        while i < x.count {
            if x[i].isFinite, y[i].isFinite {
                if let nearest = try native { () throws(NativeFailure) in
                    try query.nearestDistance(to: LocalPoint(x: x[i], y: y[i]), radius: parameters.radius)
                },
                   nearest.isFinite {
                    d.append(nearest)
                }
            }
            i += stride
        }
        guard let median = RSMath.median(&d) else { return nil }
        return max(1.0, 1.4826 * median)
    }

    /// Standard deviation of the track's white GPS noise (see `jitterSigma`); 0 without times or dense fixes.
    /// Throws when PROJ refuses a fix.
    public func estimateJitter(_ track: Track) throws(RoadSnapError) -> Double {
        guard track.fixes.allSatisfy({ $0.time != nil }) else { return 0 }
        try native { () throws(NativeFailure) in try frame.forward(latitudes: track.fixes.map(\.coordinate.latitude),
                          longitudes: track.fixes.map(\.coordinate.longitude), x: &xs, y: &ys) }
        return jitterSigma(x: xs, y: ys, time: track.fixes.map { $0.time ?? .nan }, samples: Int.max)
    }

    /// Median of the positive intervals between consecutive timed fixes (from at most about `samples`), nil when
    /// there are none.
    func medianInterval(_ time: [Double], samples: Int) -> Double? {
        guard time.count >= 2 else { return nil }
        let stride = max(1, (time.count - 1) / max(1, samples))
        var d: [Double] = []
        var i = 1
        while i < time.count {
            let dt = time[i] - time[i - 1]
            if dt > 0 { d.append(dt) }
            i += stride
        }
        return RSMath.median(&d)
    }

    /// Standard deviation of the white (fix-to-fix independent) part of the GPS error, from the second differences
    /// of fixes at most 2 s apart with equal spacing: 1.4826 × their median per axis / √6 (a smooth path and a
    /// slowly drifting error cancel out). From at most about `samples` triples; 0 when the track has fewer than 16.
    func jitterSigma(x: [Double], y: [Double], time: [Double], samples: Int) -> Double {
        let n = min(x.count, y.count, time.count)
        guard n >= 3 else { return 0 }
        let stride = max(1, (n - 2) / max(1, samples))
        var d: [Double] = []
        d.reserveCapacity(2 * ((n - 2) / stride + 1))
        var i = 1
        while i + 1 < n {
            let a = time[i] - time[i - 1], b = time[i + 1] - time[i]
            if a > 0, b > 0, max(a, b) <= 2, abs(a - b) <= 0.1 * max(a, b) {
                let ddx = x[i - 1] - 2 * x[i] + x[i + 1], ddy = y[i - 1] - 2 * y[i] + y[i + 1]
                if ddx.isFinite, ddy.isFinite {
                    d.append(abs(ddx))
                    d.append(abs(ddy))
                }
            }
            i += stride
        }
        guard d.count >= 32, let median = RSMath.median(&d) else { return 0 }  // few: a turn or an outlier
        return 1.4826 * median / 6.0.squareRoot()
    }

    /// Matches one track. Fixes without a road within the radius, and isolated unreachable fixes, come back nil;
    /// where no route joins consecutive fixes (or time jumps beyond `maxGap`) the result splits into sub-matches.
    public func match(_ track: Track) throws(RoadSnapError) -> MatchResult {
        let fixes = track.fixes
        let n = fixes.count
        try native { () throws(NativeFailure) in
            try frame.forward(latitudes: fixes.map(\.coordinate.latitude), longitudes: fixes.map(\.coordinate.longitude),
                              x: &xs, y: &ys)
        }
        let hasTime = fixes.contains { $0.time != nil }
        var used = parameters
        if used.sigmaFromTrack, let estimate = try estimateSigma(x: xs, y: ys, samples: Int.max) { used.sigma = estimate }
        if used.raiseSigmaToTrack, let estimate = try estimateSigma(x: xs, y: ys, samples: 128), estimate > used.sigma {
            used.sigma = estimate
            // A noisy track's fixes stray further from the road driven: search 5 of its sigmas around each (roads
            // further than that are no candidates: with the emission's linear tail they would still be cheap enough
            // to stand in for a road that needs a loop between two sparse fixes).
            used.radius = max(used.radius, 5 * estimate)
        }
        if used.minFixDistance == nil {
            // A dense noisy track (fixes every second or two) is thinned until each scored fix is clear of the
            // noise, white noise included (fixes scattered around the vehicle); it has fixes to spare. On a sparse
            // track every fix is evidence: only those within 2 sigma (a stop) are held.
            used.minFixDistance = 2 * used.sigma
            if hasTime {
                // an array for these estimates only, freed before the run (which reads the fixes in place)
                let times = fixes.map { $0.time ?? .nan }
                if let interval = medianInterval(times, samples: 256), interval <= 2 {
                    let jitter = jitterSigma(x: xs, y: ys, time: times, samples: 256)
                    let noise = max(used.sigma, min(jitter, used.radius))
                    used.minFixDistance = max(2 * noise, 6 * noise - 24)
                }
            }
        }
        try runEngine(fixes, parameters: used.engine, hasTime: hasTime)
        if n > 1 << 16 {
            // a big track's positions are not kept for the next one (8 MB per million fixes each)
            xs = []
            ys = []
        }

        let engineSubs = engine.subMatches
        // Cumulative length before each path arc, per sub-match, to place fixes along their path.
        let before: [[Double]] = engineSubs.map { s in
            var acc = 0.0
            return s.steps.map { st in
                defer { acc += st.to - st.from }
                return acc - st.from
            }
        }
        // read from the engine fix by fix (no per-fix copy of its results: issue 16, item 11)
        var matched = [MatchedFix?](repeating: nil, count: n)
        for i in 0..<n {
            guard let r = engine.fix(i), r.arc >= 0 else { continue }
            let edge = RoadGraph.edge(ofArc: r.arc), forward = RoadGraph.isForward(r.arc)
            let offset = forward ? r.offset : max(0, network.edges[edge].length - r.offset)
            matched[i] = MatchedFix(edge: edge, forward: forward, subMatch: r.subMatch,
                                    along: max(0, before[r.subMatch][r.pathIndex] + r.offset), offset: offset,
                                    distance: r.distance, coordinate: network.coordinate(onEdge: edge, offset: offset))
        }
        let subs = engineSubs.map { s -> SubMatch in
            var confidence: Double
            if s.matchedFixes <= 1 {
                let z = s.meanDistance / used.sigma
                confidence = 0.5 * RSMath.exp(-0.5 * z * z)
            } else {
                let scale = max(s.greatCircle, s.length, 1)
                confidence = max(0, 1 - s.deviation / scale)
                confidence *= Double(s.matchedFixes) / Double(s.lastFix - s.firstFix + 1)
            }
            var duration: Double? = nil
            if let t0 = fixes[s.firstFix].time, let t1 = fixes[s.lastFix].time { duration = t1 - t0 }
            return SubMatch(firstFix: s.firstFix, lastFix: s.lastFix, matchedFixCount: s.matchedFixes, steps: s.steps,
                            length: s.length, duration: duration, confidence: min(1, max(0, confidence)),
                            geometry: geometry(of: s.steps))
        }
        if n > 1 << 16 { engine.releaseResults() }  // copied into `matched` and `subs` above
        return MatchResult(fixes: matched, subMatches: subs, parameters: used)
    }

    /// Runs the engine on the projected positions (`xs`, `ys`), reading each fix's time, course, speed and accuracy
    /// in place from `fixes` (`Fix.doubleLayout`) rather than from a copied array per value (8 bytes per fix each
    /// on a big track: issue 16, item 11). A value no fix has is not given to the engine, as before.
    private func runEngine(_ fixes: [Fix], parameters: MatchEngineParameters, hasTime: Bool) throws(RoadSnapError) {
        guard let layout = Fix.doubleLayout else {
            throw .internalError("a fix is not a record of doubles; the matcher cannot read its times in place")
        }
        let hasCourse = fixes.contains { $0.course != nil }, hasSpeed = fixes.contains { $0.speed != nil }
        let hasAccuracy = fixes.contains { $0.horizontalAccuracy != nil }
        let run = fixes.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: Double.self) { doubles in
                let base = doubles.baseAddress
                func column(_ given: Bool, _ offset: Int) -> UnsafePointer<Double>? { given ? base.map { $0 + offset } : nil }
                let columns = MatchEngine.FixColumns(
                    stride: layout.stride, time: column(hasTime, layout.time), course: column(hasCourse, layout.course),
                    speed: column(hasSpeed, layout.speed), accuracy: column(hasAccuracy, layout.accuracy))
                return Result { () throws(NativeFailure) in
                    try engine.run(parameters: parameters, x: xs, y: ys, columns: columns)
                }
            }
        }
        try native { () throws(NativeFailure) in _ = try run.get() }
    }

    /// The polyline along path steps: the edges' own vertices between points interpolated at the step ends.
    public func geometry(of steps: [PathStep]) -> [GeoCoordinate] {
        var points: [GeoCoordinate] = []
        var scratch: [GeoCoordinate] = []
        for st in steps {
            network.appendPolyline(edge: RoadGraph.edge(ofArc: st.arc), forward: RoadGraph.isForward(st.arc),
                                   from: st.from, to: max(st.from, st.to), into: &points, scratch: &scratch)
        }
        return points
    }
}
