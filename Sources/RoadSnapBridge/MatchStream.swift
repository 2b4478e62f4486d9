import CShims

/// The stream's answer for one fix (`rsc_stream_answer`): the engine's result and the matched point in the local frame
/// (NaN when unmatched), which a batch run does not keep per fix.
public struct StreamAnswer: Hashable, Sendable {
    public var fix: EngineFix
    public var point: LocalPoint
}

/// The matching engine's incremental, lag-bounded mode (`rsc_stream_*`): push one fix at a time (local metres) and
/// read the answer for the newest fix (lag 0) or one up to `maxLag` pushes back, which settles as fixes arrive. The
/// same candidates, emission, transition, route search and step as `MatchEngine.run`; the route's arcs (see
/// `setRoute`) get `routeBonus` log units of emission. Memory stays bounded on an endless drive. Not thread-safe.
public final class MatchStream {
    let handle: OpaquePointer
    public let graph: MatchGraph
    public let query: SegmentQuery
    public let maxLag: Int

    /// `parameters` are checked (`MatchEngineParameters.check`); `maxLag` 0...1024; `routeBonus` finite, >= 0.
    /// `raiseSigma`: sigma (and the radius) raised to the feed's own estimate as fixes arrive (`rsc_stream_raise_sigma`).
    package init(graph: MatchGraph, query: SegmentQuery, parameters: MatchEngineParameters, maxLag: Int,
                 routeBonus: Double, raiseSigma: Bool = false) throws(NativeFailure)
    {
        try parameters.check()
        guard (0...1024).contains(maxLag) else { throw .invalidArgument("lag must be in [0, 1024] fixes, got \(maxLag)") }
        guard routeBonus.isFinite, routeBonus >= 0 else {
            throw .invalidArgument("route bonus must be a finite number >= 0, got \(routeBonus)")
        }
        var raw = parameters.raw
        guard let h = rsc_stream_create(graph.handle, query.handle, &raw, Int32(maxLag), routeBonus) else {
            throw .internalError("could not create a match stream (out of memory)")
        }
        if raiseSigma, rsc_stream_raise_sigma(h, 1) != RSC_OK {
            rsc_stream_destroy(h)
            throw .internalError("could not create a match stream (out of memory)")
        }
        handle = h
        self.graph = graph
        self.query = query
        self.maxLag = maxLag
    }

    deinit { rsc_stream_destroy(handle) }

    /// Pushes one fix; `time`, `course`, `speed`, `accuracy` (horizontal, 1 sigma, metres) NaN when unknown; a
    /// non-finite position is an unmatched fix.
    package func push(x: Double, y: Double, time: Double = .nan, course: Double = .nan, speed: Double = .nan,
                     accuracy: Double = .nan) throws(NativeFailure)
    {
        let rc = rsc_stream_push(handle, x, y, time, course, speed, accuracy)
        if rc != RSC_OK {
            throw nativeFailure(rc, query.failureMessage, doing: "match stream (the stream was reset)")
        }
    }

    /// The answer for the fix pushed `lag` fixes before the newest (0: the newest); nil when `lag` exceeds `maxLag` or
    /// the fixes pushed since the last reset. `fix.arc` is -1 (and `subMatch`, `pathIndex` always -1) when unmatched.
    public func result(lag: Int = 0) -> StreamAnswer? {
        guard lag >= 0, lag <= maxLag else { return nil }
        var a = rsc_stream_answer()
        guard rsc_stream_result(handle, Int32(lag), &a) == RSC_OK else { return nil }
        return StreamAnswer(fix: EngineFix(arc: Int(a.fix.arc), subMatch: -1, pathIndex: -1, offset: a.fix.offset,
                                           distance: a.fix.distance, held: a.fix.held != 0),
                            point: LocalPoint(x: a.x, y: a.y))
    }

    /// Arcs of the current route (favoured by the route bonus from the next push); empty clears it.
    package func setRoute(arcs: [Int32]) throws(NativeFailure) {
        let rc = rsc_stream_set_route(handle, arcs, arcs.count)
        if rc == RSC_EINVAL { throw .invalidArgument("route arcs out of range for the match graph") }
        if rc != RSC_OK { throw .internalError("match stream: out of memory setting the route") }
    }

    /// Forgets every fix and state (after a reroute or a long gap); the route stays.
    public func reset() { rsc_stream_reset(handle) }

    /// Bytes held in the stream's growable buffers (stays flat on an endless drive).
    public var memoryBytes: Int { Int(rsc_stream_memory(handle)) }

    /// The sigma the stream matches with now: the one given, or raised to the feed's own estimate (`raiseSigma`).
    public var sigma: Double { rsc_stream_sigma(handle) }

    /// Fixes at the end of the stream held as possible outliers (unanswered at lag 0 until a later fix settles them).
    public var pendingOutliers: Int { Int(rsc_stream_pending(handle)) }
}
