import CShims

/// Tuning of the hidden-Markov matcher (Newson & Krumm 2009). Distances in metres, times in seconds, angles in degrees.
public struct MatchParameters: Hashable, Sendable {
    /// GPS error standard deviation of the Gaussian emission.
    public var sigma: Double = 4.07
    /// Raise sigma to the track's own estimate (1.4826 × median nearest-road distance, from up to ~128 of its fixes)
    /// when that is larger: a noisy track is not forced through detours. Off: sigma is used as given.
    public var raiseSigmaToTrack: Bool = true
    /// Take sigma from each track (`MapMatcher.estimateSigma`: 1.4826 × median nearest-road distance over all its
    /// fixes) instead of the value given: `roadsnap match --sigma auto`, the C API's `estimate_sigma`.
    public var sigmaFromTrack: Bool = false
    /// Beyond this many sigmas the emission's log-probability falls linearly instead of quadratically (robust to
    /// roads drawn off their true line); 0 keeps it Gaussian throughout.
    public var huber: Double = 2
    /// Scale of the exponential transition on |route distance − great-circle distance|.
    public var beta: Double = 3.0
    /// Extra beta per second of sampling interval beyond 1 s, so sparse tracks tolerate longer detours.
    public var betaPerSecond: Double = 0.35
    /// Candidate search radius around each fix (grows to 3.5 sigma when `raiseSigmaToTrack` raises sigma).
    public var radius: Double = 50
    /// Nearest roads considered per fix: an edge and its twin (the same road drawn once per direction, as in
    /// networks of one-way arcs) count once; each edge gives one state per allowed direction.
    public var maxCandidates: Int = 8
    /// Route searches are bounded by max(distanceFactor × great circle, great circle + searchFloor).
    public var distanceFactor: Double = 3.0
    public var searchFloor: Double = 60
    /// With timestamps, a route longer than the great circle + maxSpeed × Δt is impossible (m/s).
    public var maxSpeed: Double = 50
    /// A longer time gap between consecutive fixes splits the track (0 disables) when the vehicle moved more than
    /// 2 sigma across it but slower than `gapMinSpeed` (m/s): its route is unknowable. Faster progress is bridged.
    public var maxGap: Double = 60
    public var gapMinSpeed: Double = 1
    /// Metres added to a route that turns back (in place, at a junction or at a dead end).
    public var uturnPenalty: Double = 60
    /// Metres (at least 3 sigma) a fix may fall back along the same road for free (stationary noise); further
    /// back costs like a U-turn plus the excess.
    public var backwardTolerance: Double = 12
    /// Standard deviation of course versus road bearing when a fix has a course.
    public var headingSigma: Double = 45
    /// The course is trusted only at or above this speed (m/s), when the fix reports a speed.
    public var minHeadingSpeed: Double = 2
    /// Log-probability window: previous states further below the best are not expanded. Wide enough that the road
    /// actually driven survives a run of fixes 30–40 m off it (a badly drawn bend) while a nearer spur leads nowhere.
    public var beam: Double = 60
    /// Consecutive unreachable fixes dropped as outliers before the track is split.
    public var maxOutliers: Int = 2
    /// When every reachable candidate's emission log-probability is this much below the best candidate's, the fix
    /// counts as unreachable: the road driven is not connected to the hypotheses (a missing link).
    public var disconnectMargin: Double = 20
    /// A fix closer than this to the last fix scored is not scored (stops and slow crawling add no evidence, only
    /// noise); it is placed on the matched path between the scored fixes around it. nil means 2 sigma (Newson &
    /// Krumm), and on dense tracks (median interval ≤ 2 s) max(2 s, 6 s − 24 m) with s the larger of sigma and the
    /// track's white-noise estimate (`MapMatcher.estimateJitter`), so a noisy 1 s track is scored about as often as
    /// it moves clear of its noise while a sparse track keeps every fix that moved.
    public var minFixDistance: Double? = nil
    /// Consecutive scored fixes at least this many seconds apart (without times: their distance over 10 m/s) and at
    /// least 10 m/s times as many metres apart are joined by one route search from all of the earlier fix's
    /// candidates at once, goal-directed toward the later fix; denser ones by one search per candidate arc, cached
    /// and reused by the following fixes (see docs/matching.md for why both).
    public var jointSearchInterval: Double = 5
    /// That search stops once every state it could still reach would be this far below the best state found so far
    /// (log-probability; the Viterbi `beam` would keep them: 8 gave the same or lower mismatch than 15 on the 70
    /// Kubicka tracks at 10-60 s, clean and with 10 m noise within 0.03 points, for 5-30 % more fixes/s).
    public var jointSearchBeam: Double = 8
    /// A fix whose candidates are all unreachable, or whose best candidate is reached only by turning back (a U-turn,
    /// or falling back along its road beyond `backwardTolerance`), is searched again for twice `maxCandidates` roads
    /// within max(this, `radius`) metres before it is dropped or kept: the road driven can lie beyond the radius or
    /// the nearest roads (an interchange crowded with ramps) while a road the other way (the opposite carriageway) is
    /// near the fixes. 0: never.
    public var recoveryRadius: Double = 100

    public init() {}

    /// The one sigma rule (CLI `--sigma M|auto`, the C API's `sigma` and `estimate_sigma`): a sigma given is used as
    /// given (not raised to the track's estimate); `fromTrack` takes it from each track instead; neither keeps the
    /// default, raised to the track's own estimate when larger. Checked by `validate`.
    public mutating func chooseSigma(given: Double?, fromTrack: Bool) {
        if let given {
            sigma = given
            raiseSigmaToTrack = false
        }
        sigmaFromTrack = fromTrack
    }

    /// Checks every value is finite and in its range, lower and upper bound (sigma in (0, 1000] m, beta in
    /// (0, 10000] m, radius in (0, 10000] m, candidates 1...256, ...): the engine's one validation
    /// (`rsc_match_params_check`), which the CLI, the Swift API and the C API all go through. The error names the
    /// first bad value, its range and the value given.
    public func validate() throws(RoadSnapError) {
        guard (-1_000_000...1_000_000).contains(maxCandidates), (-1_000_000...1_000_000).contains(maxOutliers) else {
            throw .invalidArgument("candidates must be in [1, 256] roads and max outliers in [0, 100000] fixes, got "
                                   + "\(maxCandidates) and \(maxOutliers)")
        }
        var params = raw
        var message = [CChar](repeating: 0, count: 256)
        guard rsc_match_params_check(&params, &message, message.count) != RSC_OK else { return }
        throw .invalidArgument(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    var raw: rsc_match_params {
        rsc_match_params(sigma: sigma, huber: huber, beta: beta, radius: radius, max_candidates: Int32(maxCandidates),
                         distance_factor: distanceFactor, search_floor: searchFloor, max_speed: maxSpeed,
                         max_gap: maxGap, gap_min_speed: gapMinSpeed, uturn_penalty: uturnPenalty, backward_tolerance: backwardTolerance,
                         heading_sigma: headingSigma, min_heading_speed: minHeadingSpeed, beam: beam,
                         beta_per_second: betaPerSecond, max_outliers: Int32(maxOutliers),
                         disconnect_margin: disconnectMargin,
                         min_fix_distance: minFixDistance ?? max(2 * sigma, 6 * sigma - 24),
                         joint_interval: jointSearchInterval, joint_beam: jointSearchBeam,
                         recovery_radius: recoveryRadius)
    }
}

/// Owns the C copy of a directed road graph for matching. Immutable; share it between threads.
public final class MatchGraph: @unchecked Sendable {
    let handle: OpaquePointer
    public let arcCount: Int
    /// Keeps borrowed arrays alive (`init(borrowing...)`); nil when the graph owns copies.
    private let owner: AnyObject?
    public let nodeCount: Int

    /// Arc arrays as `RoadGraph` holds them (arc 2e = edge e forward, 2e+1 backward; tail/head -1 when not allowed);
    /// turn restrictions per edge: from edge, via node, to edge, and whether it is an `only_*` restriction.
    public init(nodeCount: Int, outStart: [Int32], outArcs: [Int32], arcTail: [Int32], arcHead: [Int32],
                arcLength: [Double], reverseArc: [Int32],
                restrictions: [(fromEdge: Int32, via: Int32, toEdge: Int32, mandatory: Bool)])
        throws(RoadSnapError)
    {
        guard outStart.count == nodeCount + 1, arcTail.count == arcHead.count, arcTail.count == arcLength.count,
              reverseArc.count == arcTail.count
        else {
            throw .invalidArgument("match graph arrays differ in length")
        }
        let from = restrictions.map(\.fromEdge), via = restrictions.map(\.via), to = restrictions.map(\.toEdge)
        let mandatory = restrictions.map { Int8($0.mandatory ? 1 : 0) }
        guard let h = rsc_match_graph_create(nodeCount, arcTail.count, outStart, outArcs, arcTail, arcHead, arcLength,
                                             reverseArc, restrictions.count, from, via, to, mandatory)
        else { throw .internalError("could not build the matching graph (inconsistent arcs or out of memory)") }
        handle = h
        arcCount = arcTail.count
        owner = nil
        self.nodeCount = nodeCount
    }

    /// A graph reading the arrays in place (no copy): `twin` is the reverse arc (-1 for arcs not allowed), turn
    /// restrictions grouped by from edge (`restrictionStart` has one entry per edge plus one). `owner` keeps the
    /// arrays alive.
    public init(borrowingNodeCount nodeCount: Int, outStart: MappedArray<Int32>, outArcs: MappedArray<Int32>,
                arcTail: MappedArray<Int32>, arcHead: MappedArray<Int32>, arcLength: MappedArray<Double>,
                twin: MappedArray<Int32>, restrictionStart: MappedArray<Int32>, restrictionVia: MappedArray<Int32>,
                restrictionTo: MappedArray<Int32>, restrictionMandatory: MappedArray<Int8>, owner: AnyObject)
        throws(RoadSnapError)
    {
        let arcs = arcTail.count
        guard outStart.count == nodeCount + 1, arcHead.count == arcs, arcLength.count == arcs, twin.count == arcs,
              restrictionStart.count == arcs / 2 + 1, restrictionVia.count == restrictionTo.count,
              restrictionMandatory.count == restrictionVia.count
        else { throw .invalidArgument("match graph arrays differ in length") }
        let rc = restrictionVia.count
        guard let h = rsc_match_graph_borrow(
            nodeCount, arcs, outStart.baseAddress, outArcs.baseAddress, arcTail.baseAddress, arcHead.baseAddress,
            arcLength.baseAddress, twin.baseAddress, rc, rc > 0 ? restrictionStart.baseAddress : nil,
            rc > 0 ? restrictionVia.baseAddress : nil, rc > 0 ? restrictionTo.baseAddress : nil,
            rc > 0 ? restrictionMandatory.baseAddress : nil)
        else { throw .internalError("could not build the matching graph (inconsistent arcs)") }
        handle = h
        arcCount = arcs
        self.owner = owner
        self.nodeCount = nodeCount
    }

    /// Gives the graph its node positions (local metres, the frame the fixes are matched in; every arc at least as
    /// long as the straight line between its end nodes), so route searches head toward the next fix. Call before
    /// sharing the graph between threads.
    public func setNodePositions(x: [Double], y: [Double]) throws(RoadSnapError) {
        guard x.count == y.count, x.count >= nodeCount else {
            throw .invalidArgument("node positions: \(x.count) x and \(y.count) y for \(nodeCount) nodes")
        }
        let rc = rsc_match_graph_set_node_positions(handle, x, y)
        if rc == RSC_EINVAL { throw .invalidArgument("node positions must be finite") }
        if rc != RSC_OK { throw .internalError("could not store node positions (out of memory)") }
    }

    deinit { rsc_match_graph_destroy(handle) }

    /// Whether turn restrictions allow going from arc `from` onto arc `to` at their shared node.
    public func isTurnAllowed(from: Int, to: Int) -> Bool {
        rsc_match_turn_allowed(handle, Int32(from), Int32(to)) != 0
    }
}

/// One fix as the engine matched it: `arc` is -1 when unmatched; offset is along the arc from its tail.
public struct EngineFix: Hashable, Sendable {
    public var arc: Int
    public var subMatch: Int
    /// Position of `arc` in its sub-match's arc path.
    public var pathIndex: Int
    public var offset: Double
    public var distance: Double
    public var point: LocalPoint
    /// The fix was too close to the last scored fix to be scored and took its match.
    public var held: Bool
}

/// One step of a matched path: metres `from` to `to` along directed arc `arc` (measured from the arc's tail).
public struct PathStep: Hashable, Sendable {
    public var arc: Int
    public var from: Double
    public var to: Double
    public init(arc: Int, from: Double, to: Double) { self.arc = arc; self.from = from; self.to = to }
}

/// One sub-match as the engine produced it (see `rsc_match_sub`).
public struct EngineSubMatch: Hashable, Sendable {
    public var firstFix: Int, lastFix: Int, matchedFixes: Int
    /// Steps driven, in order.
    public var steps: [PathStep]
    public var length: Double, greatCircle: Double, deviation: Double, meanDistance: Double
}

/// Per-thread HMM matching engine over a shared `MatchGraph` and the thread's `SegmentQuery`. Not thread-safe.
public final class MatchEngine {
    let handle: OpaquePointer
    public let graph: MatchGraph
    public let query: SegmentQuery

    public init(graph: MatchGraph, query: SegmentQuery) throws(RoadSnapError) {
        guard let h = rsc_matcher_create(graph.handle, query.handle) else {
            throw .internalError("could not create a matcher (out of memory)")
        }
        handle = h
        self.graph = graph
        self.query = query
    }

    deinit { rsc_matcher_destroy(handle) }

    /// Matches fixes at local positions `x`/`y`; `time`, `course`, `speed`, `accuracy` (horizontal, 1 sigma, metres:
    /// a fix's larger one widens its emission) are nil or per fix (NaN = unknown).
    /// Returns the number of sub-matches; read the results with `fixes` and `subMatches`.
    @discardableResult
    public func run(parameters: MatchParameters, x: [Double], y: [Double], time: [Double]?, course: [Double]?,
                    speed: [Double]?, accuracy: [Double]? = nil) throws(RoadSnapError) -> Int
    {
        // A failed run leaves no results, not the previous run's.
        lastCount = 0
        lastSubs = 0
        let n = min(x.count, y.count)
        for a in [time, course, speed, accuracy] {
            if let a, a.count < n { throw .invalidArgument("per-fix arrays differ in length") }
        }
        var params = parameters.raw
        let rc = withOptionalBuffer(time) { t in
            withOptionalBuffer(course) { c in
                withOptionalBuffer(speed) { s in
                    withOptionalBuffer(accuracy) { a in
                        rsc_matcher_run(handle, &params, n, x, y, t, c, s, a)
                    }
                }
            }
        }
        if rc == RSC_EINVAL { throw .invalidArgument("matching parameters out of range") }
        if rc < 0 { throw nativeFailure(rc, query.failureMessage, doing: "matching") }
        lastCount = n
        lastSubs = Int(rc)
        return Int(rc)
    }

    private var lastCount = 0
    private var lastSubs = 0

    /// Forgets the last run's results and frees the engine's buffers that grew past 16 MB (a big track's), so they
    /// are not held while the caller's copy of the results is written out (issue 16, item 11).
    public func releaseResults() {
        rsc_matcher_release(handle)
        lastCount = 0
        lastSubs = 0
    }

    /// Tests: prunes a run's Viterbi states from `states` states and its route entries from `entries` entries (0: the
    /// defaults) so a short track exercises the pruning big tracks need; returns how often the last run pruned.
    @discardableResult
    package func setPruning(states: Int, entries: Int) -> Int {
        Int(rsc_matcher_set_pruning(handle, max(0, states), max(0, entries)))
    }

    /// Per-fix results of the last run.
    public var fixes: [EngineFix] { (0..<lastCount).compactMap { fix($0) } }

    /// The result for fix `i` of the last run (nil when `i` is out of range), read in place.
    public func fix(_ i: Int) -> EngineFix? {
        guard i >= 0, i < lastCount, let f = rsc_matcher_fixes(handle) else { return nil }
        return EngineFix(arc: Int(f[i].arc), subMatch: Int(f[i].sub), pathIndex: Int(f[i].path_index), offset: f[i].offset,
                         distance: f[i].distance, point: LocalPoint(x: f[i].x, y: f[i].y), held: f[i].held != 0)
    }

    /// Sub-matches of the last run, in track order.
    public var subMatches: [EngineSubMatch] {
        guard lastSubs > 0, let s = rsc_matcher_subs(handle), let p = rsc_matcher_path(handle) else { return [] }
        return (0..<lastSubs).map { i in
            let r = s[i]
            let steps = (0..<Int(r.path_count)).map { k in
                let st = p[Int(r.path_start) + k]
                return PathStep(arc: Int(st.arc), from: st.from, to: st.to)
            }
            return EngineSubMatch(firstFix: Int(r.first_fix), lastFix: Int(r.last_fix),
                                  matchedFixes: Int(r.matched_fixes), steps: steps, length: r.length,
                                  greatCircle: r.great_circle,
                                  deviation: r.deviation, meanDistance: r.mean_distance)
        }
    }
}

private func withOptionalBuffer<R>(_ a: [Double]?, _ body: (UnsafePointer<Double>?) -> R) -> R {
    guard let a else { return body(nil) }
    return a.withUnsafeBufferPointer { body($0.baseAddress) }
}
