import CShims

/// The matcher's tuning as the C engine takes it (`rsc_match_params`; Core's `MatchParameters` holds the defaults,
/// the tuning notes and the rules, and builds this). Checked by `check()`, the engine's one validation.
package struct MatchEngineParameters: Hashable, Sendable {
    package var sigma, huber, beta, radius: Double
    package var maxCandidates: Int32
    package var distanceFactor, searchFloor, maxSpeed, maxGap, gapMinSpeed, uturnPenalty, backwardTolerance: Double
    package var headingSigma, minHeadingSpeed, beam, betaPerSecond: Double
    package var maxOutliers: Int32
    package var disconnectMargin, minFixDistance, jointInterval, jointBeam, recoveryRadius, outlierPenalty: Double
    package var outlierWindow, turnCost, offRoad: Double

    package init(sigma: Double, huber: Double, beta: Double, radius: Double, maxCandidates: Int32,
                 distanceFactor: Double, searchFloor: Double, maxSpeed: Double, maxGap: Double, gapMinSpeed: Double,
                 uturnPenalty: Double, backwardTolerance: Double, headingSigma: Double, minHeadingSpeed: Double,
                 beam: Double, betaPerSecond: Double, maxOutliers: Int32, disconnectMargin: Double,
                 minFixDistance: Double, jointInterval: Double, jointBeam: Double, recoveryRadius: Double,
                 outlierPenalty: Double, outlierWindow: Double, turnCost: Double, offRoad: Double)
    {
        self.sigma = sigma; self.huber = huber; self.beta = beta; self.radius = radius
        self.maxCandidates = maxCandidates; self.distanceFactor = distanceFactor; self.searchFloor = searchFloor
        self.maxSpeed = maxSpeed; self.maxGap = maxGap; self.gapMinSpeed = gapMinSpeed
        self.uturnPenalty = uturnPenalty; self.backwardTolerance = backwardTolerance
        self.headingSigma = headingSigma; self.minHeadingSpeed = minHeadingSpeed; self.beam = beam
        self.betaPerSecond = betaPerSecond; self.maxOutliers = maxOutliers; self.disconnectMargin = disconnectMargin
        self.minFixDistance = minFixDistance; self.jointInterval = jointInterval; self.jointBeam = jointBeam
        self.recoveryRadius = recoveryRadius; self.outlierPenalty = outlierPenalty
        self.outlierWindow = outlierWindow; self.turnCost = turnCost; self.offRoad = offRoad
    }

    /// Every value finite and within its lower and upper bound (`rsc_match_params_check`); the failure names the
    /// first bad value, its range and the value given.
    package func check() throws(NativeFailure) {
        var params = raw
        var message = [CChar](repeating: 0, count: 256)
        guard rsc_match_params_check(&params, &message, message.count) != RSC_OK else { return }
        throw .invalidArgument(messageFrom(message))
    }

    var raw: rsc_match_params {
        rsc_match_params(sigma: sigma, huber: huber, beta: beta, radius: radius, max_candidates: maxCandidates,
                         distance_factor: distanceFactor, search_floor: searchFloor, max_speed: maxSpeed,
                         max_gap: maxGap, gap_min_speed: gapMinSpeed, uturn_penalty: uturnPenalty,
                         backward_tolerance: backwardTolerance, heading_sigma: headingSigma,
                         min_heading_speed: minHeadingSpeed, beam: beam, beta_per_second: betaPerSecond,
                         max_outliers: maxOutliers, disconnect_margin: disconnectMargin,
                         min_fix_distance: minFixDistance, joint_interval: jointInterval, joint_beam: jointBeam,
                         recovery_radius: recoveryRadius, outlier_penalty: outlierPenalty,
                         outlier_window: outlierWindow, turn_cost: turnCost, off_road: offRoad)
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
    package init(nodeCount: Int, outStart: [Int32], outArcs: [Int32], arcTail: [Int32], arcHead: [Int32],
                arcLength: [Double], reverseArc: [Int32],
                restrictions: [(fromEdge: Int32, via: Int32, toEdge: Int32, mandatory: Bool)])
        throws(NativeFailure)
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
    package init(borrowingNodeCount nodeCount: Int, outStart: MappedArray<Int32>, outArcs: MappedArray<Int32>,
                arcTail: MappedArray<Int32>, arcHead: MappedArray<Int32>, arcLength: MappedArray<Double>,
                twin: MappedArray<Int32>, restrictionStart: MappedArray<Int32>, restrictionVia: MappedArray<Int32>,
                restrictionTo: MappedArray<Int32>, restrictionMandatory: MappedArray<Int8>, owner: AnyObject)
        throws(NativeFailure)
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
    package func setNodePositions(x: [Double], y: [Double]) throws(NativeFailure) {
        guard x.count == y.count, x.count >= nodeCount else {
            throw .invalidArgument("node positions: \(x.count) x and \(y.count) y for \(nodeCount) nodes")
        }
        let rc = rsc_match_graph_set_node_positions(handle, x, y)
        if rc == RSC_EINVAL { throw .invalidArgument("node positions must be finite") }
        if rc != RSC_OK { throw .internalError("could not store node positions (out of memory)") }
    }

    /// Gives the graph each arc's free-flow speed (m/s, one per arc, each finite and > 0), so the path between two
    /// fixes joined by a route search is the quickest route when it is clearly quicker than the shortest. Call before
    /// sharing the graph between threads.
    package func setArcSpeeds(_ speed: [Double]) throws(NativeFailure) {
        guard speed.count == arcCount else {
            throw .invalidArgument("arc speeds: \(speed.count) values for \(arcCount) arcs")
        }
        let rc = rsc_match_graph_set_arc_speeds(handle, speed)
        if rc == RSC_EINVAL { throw .invalidArgument("arc speeds must be finite and positive") }
        if rc != RSC_OK { throw .internalError("could not store arc speeds (out of memory)") }
    }

    /// Gives the graph each arc's direction where it leaves its tail and where it enters its head (radians,
    /// atan2(dy, dx) in the local frame, one per arc), so route searches price turns beyond the straightest way on
    /// (`MatchParameters.turnCost`) when `pricesTurns`. Call before sharing the graph between threads.
    package func setArcDirections(leave: [Double], enter: [Double]) throws(NativeFailure) {
        guard leave.count == arcCount, enter.count == arcCount else {
            throw .invalidArgument("arc directions: \(leave.count) and \(enter.count) values for \(arcCount) arcs")
        }
        let rc = rsc_match_graph_set_arc_directions(handle, leave, enter)
        if rc == RSC_EINVAL { throw .invalidArgument("arc directions must be finite") }
        if rc != RSC_OK { throw .internalError("could not store arc directions (out of memory)") }
    }

    /// Whether route searches would price turns given arc directions: no arc speeds, or all of them equal.
    package var pricesTurns: Bool { rsc_match_graph_prices_turns(handle) != 0 }

    deinit { rsc_match_graph_destroy(handle) }

    /// Whether turn restrictions allow going from arc `from` onto arc `to` at their shared node.
    public func isTurnAllowed(from: Int, to: Int) -> Bool {
        rsc_match_turn_allowed(handle, Int32(from), Int32(to)) != 0
    }
}

/// One fix as the engine matched it: `arc` is -1 when unmatched; offset is along the arc from its tail. The matched
/// point is not kept per fix (the engine's record is 32 bytes, one per fix of a big track: issue 16, item 11); the
/// stream's answer carries it (`StreamAnswer`), a batch caller places the fix from arc and offset.
public struct EngineFix: Hashable, Sendable {
    public var arc: Int
    public var subMatch: Int
    /// Position of `arc` in its sub-match's arc path.
    public var pathIndex: Int
    public var offset: Double
    public var distance: Double
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

    package init(graph: MatchGraph, query: SegmentQuery) throws(NativeFailure) {
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
    package func run(parameters: MatchEngineParameters, x: [Double], y: [Double], time: [Double]?, course: [Double]?,
                    speed: [Double]?, accuracy: [Double]? = nil) throws(NativeFailure) -> Int
    {
        lastCount = 0
        lastSubs = 0
        let n = min(x.count, y.count)
        for a in [time, course, speed, accuracy] {
            if let a, a.count < n { throw .invalidArgument("per-fix arrays differ in length") }
        }
        let rc = withOptionalBuffer(time) { t in
            withOptionalBuffer(course) { c in
                withOptionalBuffer(speed) { s in
                    withOptionalBuffer(accuracy) { a in
                        Result { () throws(NativeFailure) in
                            try run(parameters: parameters, x: x, y: y,
                                    columns: FixColumns(stride: 1, time: t, course: c, speed: s, accuracy: a))
                        }
                    }
                }
            }
        }
        return try rc.get()
    }

    /// Time, course, speed and accuracy per fix as the engine reads them: fix i's value of each at `[i * stride]`
    /// (nil: not given; NaN = unknown). Stride 1 for arrays of their own; a caller holding its fixes as records of
    /// doubles points each into the first record with the record's size in doubles, so no column is copied per fix
    /// (issue 16, item 11). The pointers must stay valid during `run`, which reads them only then.
    package struct FixColumns {
        package var stride: Int
        package var time, course, speed, accuracy: UnsafePointer<Double>?
        package init(stride: Int, time: UnsafePointer<Double>?, course: UnsafePointer<Double>?,
                     speed: UnsafePointer<Double>?, accuracy: UnsafePointer<Double>?)
        {
            self.stride = stride; self.time = time; self.course = course; self.speed = speed; self.accuracy = accuracy
        }
    }

    /// The same run with the per-fix values read in place through `columns` (each holding at least
    /// `min(x.count, y.count)` fixes' values).
    @discardableResult
    package func run(parameters: MatchEngineParameters, x: [Double], y: [Double], columns: FixColumns)
        throws(NativeFailure) -> Int
    {
        // A failed run leaves no results, not the previous run's.
        lastCount = 0
        lastSubs = 0
        let n = min(x.count, y.count)
        guard columns.stride >= 1 else { throw .invalidArgument("per-fix columns need a stride of at least 1") }
        guard n <= Int(Int32.max) else {
            throw .invalidArgument("a track of \(n) fixes is more than one run takes (at most \(Int32.max)): split it")
        }
        var params = parameters.raw
        let rc = rsc_matcher_run(handle, &params, n, x, y, columns.time, columns.course, columns.speed,
                                 columns.accuracy, columns.stride)
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
                         distance: f[i].distance, held: f[i].held != 0)
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
