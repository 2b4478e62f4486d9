import CShims

/// Text of a NUL-terminated C error buffer.
func messageFrom(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// One candidate road position for a fix: the nearest point of one edge within the search radius.
public struct SnapCandidate: Hashable, Sendable {
    /// Edge index in the network.
    public var edge: Int
    /// Foot point in the local metric frame.
    public var point: LocalPoint
    /// Metres from the fix to the foot point.
    public var distance: Double
    /// Metres from the edge's start to the foot point.
    public var offset: Double
    /// Road bearing at the foot point in the edge's forward direction, degrees clockwise from north.
    public var bearing: Double

    public init(edge: Int, point: LocalPoint, distance: Double, offset: Double, bearing: Double) {
        self.edge = edge; self.point = point; self.distance = distance; self.offset = offset; self.bearing = bearing
    }

    init(_ c: rsc_candidate) {
        self.init(edge: Int(c.edge), point: LocalPoint(x: c.x, y: c.y), distance: c.distance, offset: c.offset,
                  bearing: c.bearing)
    }
}

/// Owns an immutable GEOS STRtree over a network's edge segments (plus its per-cell cache of query results).
/// Shareable between threads; each thread queries through its own `SegmentQuery`.
public final class SegmentIndex: @unchecked Sendable {
    let handle: OpaquePointer
    /// The largest radius answered from the cell cache; larger radii query the STRtree directly.
    public let cacheRadius: Double
    /// Keeps borrowed arrays (a compiled map's mapping) alive; nil when the index owns copies.
    private let owner: MemoryOwner?

    /// Segment `i` runs from (ax[i], ay[i]) to (bx[i], by[i]) in metres, belongs to edge `edge[i]` and starts
    /// `offset[i]` metres along it; one entry of `directions` per edge: 0 both ways, 1 forward only, -1 backward
    /// only (the raw values of Core's `TravelDirection`: the Bridge knows no domain type).
    package init(ax: [Double], ay: [Double], bx: [Double], by: [Double], edge: [Int32], offset: [Double],
                 directions: [Int8], cacheRadius: Double) throws(NativeFailure)
    {
        let n = ax.count
        guard ay.count == n, bx.count == n, by.count == n, edge.count == n, offset.count == n else {
            throw .invalidArgument("segment arrays differ in length")
        }
        var err = [CChar](repeating: 0, count: 256)
        let h = rsc_index_create(ax, ay, bx, by, edge, offset, n, directions, directions.count, cacheRadius, &err,
                                 err.count)
        guard let h else { throw .geometry(messageFrom(err)) }
        handle = h
        self.cacheRadius = cacheRadius
        owner = nil
    }

    /// An index reading the arrays of `view` in place (no copy; the STRtree for radii above the cache radius is
    /// built on first such query); `owner` keeps them alive. A compiled map verified lazily is checked by Core
    /// (`RoadNetwork.makeQuery`) before any query context reads the arrays.
    package init(borrowing view: rsc_index_view, owner: MemoryOwner) throws(NativeFailure) {
        var err = [CChar](repeating: 0, count: 256)
        var v = view
        guard let h = rsc_index_borrow(&v, &err, err.count) else { throw .geometry(messageFrom(err)) }
        handle = h
        cacheRadius = view.cache_radius
        self.owner = owner
    }

    /// The index's arrays (pointers valid while the index lives), for writing a compiled map.
    package func exportView() throws(NativeFailure) -> rsc_index_view {
        var v = rsc_index_view()
        guard rsc_index_export(handle, &v) == RSC_OK else {
            throw .internalError("a borrowed segment index cannot be exported again; compile from the source map")
        }
        return v
    }

    deinit { rsc_index_destroy(handle) }

    /// Number of indexed segments.
    public var segmentCount: Int { rsc_index_segment_count(handle) }
    /// Number of non-empty cells in the query cache.
    public var cachedCellCount: Int { rsc_index_cache_cells(handle) }
}

/// Owns one thread's query context on a `SegmentIndex` (its own GEOS context and scratch). Not thread-safe.
public final class SegmentQuery {
    let handle: OpaquePointer
    /// The index queried; kept alive by this context.
    public let index: SegmentIndex
    private var buffer: [rsc_candidate]

    package init(index: SegmentIndex, capacity: Int = 64) throws(NativeFailure) {
        guard let h = rsc_query_create(index.handle) else { throw .geometry("could not create a GEOS query context") }
        handle = h
        self.index = index
        buffer = [rsc_candidate](repeating: rsc_candidate(), count: max(1, capacity))
    }

    deinit { rsc_query_destroy(handle) }

    /// How a candidate search is answered.
    public enum Method: Sendable { case cached, strtree, bruteForce }

    /// Every edge within `radius` metres of `point`, one candidate per edge, nearest first (at most the capacity).
    /// Throws `.geometry` when GEOS fails (not loadable, no STRtree, a failed query): a failure is not "no road".
    package func candidates(near point: LocalPoint, radius: Double, method: Method = .cached) throws(NativeFailure)
        -> [SnapCandidate]
    {
        var result: [SnapCandidate] = []
        try forEachCandidate(near: point, radius: radius, method: method) { result.append($0) }
        return result
    }

    /// Edge `edge`'s candidate near `point` (its nearest point if within `radius`), from that edge's segments alone;
    /// nil when it lies farther or the edge is out of range.
    package func candidate(ofEdge edge: Int, near point: LocalPoint, radius: Double) throws(NativeFailure)
        -> SnapCandidate?
    {
        var c = rsc_candidate()
        let n = rsc_query_edge_candidate(handle, Int32(truncatingIfNeeded: edge), point.x, point.y, radius, &c)
        if n < 0, n != RSC_EINVAL { throw failure(n, near: point, radius: radius) }
        return n == 1 ? SnapCandidate(c) : nil
    }

    /// What the query's last failed call failed on (GEOS's own message where it gave one).
    var failureMessage: String { nativeMessage(rsc_query_failure(handle)) }

    /// The error for a failed C call on this query.
    func failure(_ status: Int32, near point: LocalPoint? = nil, radius: Double? = nil) -> NativeFailure {
        var what = "candidate search"
        if let point, let radius { what += " within \(radius) m of (\(point.x), \(point.y))" }
        return nativeFailure(status, failureMessage, doing: what)
    }

    /// Metres from `point` to the nearest edge within `radius`, nil when none (the first candidate, without
    /// collecting the others).
    package func nearestDistance(to point: LocalPoint, radius: Double) throws(NativeFailure) -> Double? {
        let n = buffer.withUnsafeMutableBufferPointer { b -> Int32 in
            rsc_query_candidates(handle, point.x, point.y, radius, 1, b.baseAddress, 1)
        }
        if n < 0, n != RSC_EINVAL { throw failure(n, near: point, radius: radius) }
        return n > 0 ? buffer[0].distance : nil
    }

    /// Calls `body` with each candidate near `point`, nearest first, without allocating an array. A non-finite
    /// point or radius has no candidate; a GEOS failure throws `.geometry`.
    package func forEachCandidate(near point: LocalPoint, radius: Double, method: Method = .cached,
                                 _ body: (SnapCandidate) -> Void) throws(NativeFailure)
    {
        let cap = Int32(buffer.count)
        let n = buffer.withUnsafeMutableBufferPointer { b -> Int32 in
            switch method {
            case .cached: return rsc_query_candidates(handle, point.x, point.y, radius, 1, b.baseAddress, cap)
            case .strtree: return rsc_query_candidates(handle, point.x, point.y, radius, 0, b.baseAddress, cap)
            case .bruteForce: return rsc_query_candidates_brute(handle, point.x, point.y, radius, b.baseAddress, cap)
            }
        }
        if n < 0, n != RSC_EINVAL { throw failure(n, near: point, radius: radius) }
        if n <= 0 { return }
        for i in 0..<Int(n) { body(SnapCandidate(buffer[i])) }
    }

    /// Raw batch snapping into caller-owned C candidates (edge -1 where none): no Swift value per fix.
    /// Returns the number of fixes snapped.
    package func snapBatchRaw(x: UnsafePointer<Double>, y: UnsafePointer<Double>, course: UnsafePointer<Double>?,
                             count: Int, radius: Double, useCache: Bool = true,
                             into out: UnsafeMutablePointer<rsc_candidate>) throws(NativeFailure) -> Int
    {
        let rc = rsc_query_snap_batch(handle, x, y, course, count, radius, useCache ? 1 : 0, out)
        if rc < 0 { throw failure(rc) }
        return Int(rc)
    }

    /// The heading-aware best candidate for each fix (metres in the local frame; course in degrees or NaN).
    /// Entries are nil where no edge lies within `radius`. No allocation per fix.
    package func snapBatch(x: [Double], y: [Double], course: [Double]?, radius: Double, useCache: Bool = true,
                          into out: inout [SnapCandidate?]) throws(NativeFailure)
    {
        let cache: Int32 = useCache ? 1 : 0
        let n = min(x.count, y.count)
        var raw = [rsc_candidate](repeating: rsc_candidate(), count: n)
        let rc: Int32
        if let course {
            guard course.count >= n else { throw .invalidArgument("course array shorter than the fixes") }
            rc = rsc_query_snap_batch(handle, x, y, course, n, radius, cache, &raw)
        } else {
            rc = rsc_query_snap_batch(handle, x, y, nil, n, radius, cache, &raw)
        }
        if rc < 0 { throw failure(rc) }
        out.removeAll(keepingCapacity: true)
        for c in raw { out.append(c.edge >= 0 ? SnapCandidate(c) : nil) }
    }

    /// The index within `candidates` of the heading-aware choice for a fix with `course` (degrees, NaN unknown).
    public func choose(among candidates: [SnapCandidate], course: Double) -> Int? {
        let raw = candidates.map { c in
            rsc_candidate(edge: Int32(c.edge), segment: -1, x: c.point.x, y: c.point.y, distance: c.distance,
                          offset: c.offset, bearing: c.bearing)
        }
        let k = rsc_choose_candidate(index.handle, raw, Int32(raw.count), course)
        return k >= 0 ? Int(k) : nil
    }
}
