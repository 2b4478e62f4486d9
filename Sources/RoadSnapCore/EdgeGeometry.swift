import RoadSnapBridge

/// The one walk along an edge's geometry (issue 18): the point at an offset, the bearing there, and the part of the
/// edge between two offsets, for the network (snapping, navigation), the matcher's path geometry and the route's
/// leg geometry alike. Offsets are metres from the edge's geometry start, measured on the local-frame segments.
extension RoadNetwork {
    /// Where the point `offset` metres along an edge lies: on the segment from shape point `index` to `index + 1`
    /// (of local length `length` > 0 unless the edge has no other), `along` metres into it.
    struct EdgePosition {
        var index: Int
        var along: Double
        var length: Double
    }

    /// The position `offset` metres along edge `e` (clamped to the edge): the first segment of non-zero length that
    /// reaches it; before the start, the start of the first such segment; past the end, the end of the last segment.
    func position(onEdge e: Int, offset: Double) -> EdgePosition {
        let r = edges.shapeRange(e)
        let local = localShape  // one reference, not one per vertex read
        var remaining = max(0, offset)
        var i = r.lowerBound
        while i + 1 < r.upperBound {
            let a = local[i], b = local[i + 1]
            let len = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            if remaining <= len, len > 0 { return EdgePosition(index: i, along: remaining, length: len) }
            remaining -= len
            i += 1
        }
        let last = r.upperBound - 2
        let a = local[last], b = local[last + 1]
        let len = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
        return EdgePosition(index: last, along: len, length: len)
    }

    /// The local-frame point `offset` metres along edge `e` (clamped to the edge).
    public func localPoint(onEdge e: Int, offset: Double) -> LocalPoint {
        let p = position(onEdge: e, offset: offset)
        let a = localShape[p.index], b = localShape[p.index + 1]
        guard p.length > 0, p.along < p.length else { return b }
        let t = p.along / p.length
        return LocalPoint(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
    }

    /// Bearing (degrees) of edge `e` in its geometry direction at `offset` metres.
    public func bearing(onEdge e: Int, offset: Double) -> Double {
        let p = position(onEdge: e, offset: offset)
        return localBearing(from: localShape[p.index], to: localShape[p.index + 1])
    }

    /// The point `offset` metres along edge `e` from its geometry start (clamped), interpolated between the edge's
    /// WGS84 vertices by the local-frame segment lengths (no projection call); a vertex itself where the offset
    /// reaches it exactly.
    public func coordinate(onEdge e: Int, offset: Double) -> GeoCoordinate {
        coordinate(at: position(onEdge: e, offset: offset), shape)
    }

    /// The WGS84 point at a position (the one interpolation of `coordinate(onEdge:offset:)` and `forEachPoint`).
    @inline(__always)
    func coordinate(at pos: EdgePosition, _ shape: MappedArray<GeoCoordinate>) -> GeoCoordinate {
        let p = shape[pos.index], q = shape[pos.index + 1]
        guard pos.length > 0, pos.along < pos.length else { return q }
        let t = pos.along / pos.length
        return GeoCoordinate(uncheckedLatitude: p.latitude + t * (q.latitude - p.latitude),
                             longitude: p.longitude + t * (q.longitude - p.longitude))
    }

    /// The shape indices of edge `e`'s vertices whose geometry offsets lie strictly between `lo` and `hi`, in
    /// geometry order.
    func forEachVertex(ofEdge e: Int, between lo: Double, and hi: Double, _ body: (Int) -> Void) {
        let r = edges.shapeRange(e)
        let local = localShape
        var acc = 0.0
        var i = r.lowerBound
        while i + 1 < r.upperBound {
            let a = local[i], b = local[i + 1]
            acc += ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            if acc > lo && acc < hi { body(i + 1) }
            i += 1
        }
    }

    /// The part of edge `e` between geometry offsets `lo` ≤ `hi`, in geometry order: the point at `lo`, every vertex
    /// whose offset lies strictly between them, the point at `hi` (repeats are the caller's to drop).
    ///
    /// One walk along the segments gives all three, with the arithmetic of `position(onEdge:offset:)` (a remainder
    /// counted down per end) and `forEachVertex` (the offsets summed), so the points are those of the three walks it
    /// replaces (a matched path's geometry walks every step's edge: most of its cost at sparse sampling). When
    /// rounding lets a vertex pass `lo` before the remainder for `lo` reaches its segment (the point at `lo` must
    /// come first), it falls back to the three walks.
    func forEachPoint(ofEdge e: Int, from lo: Double, to hi: Double, _ body: (GeoCoordinate) -> Void) {
        let r = edges[e].shapeRange
        let local = localShape, shape = shape
        var remLo = max(0, lo), remHi = max(0, hi), acc = 0.0
        var atLo: EdgePosition? = nil, atHi: EdgePosition? = nil
        var i = r.lowerBound
        while i + 1 < r.upperBound {
            let a = local[i], b = local[i + 1]
            let len = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            if atLo == nil {
                if remLo <= len, len > 0 {
                    let pos = EdgePosition(index: i, along: remLo, length: len)
                    atLo = pos
                    body(coordinate(at: pos, shape))
                } else {
                    remLo -= len
                }
            }
            if atHi == nil {
                if remHi <= len, len > 0 { atHi = EdgePosition(index: i, along: remHi, length: len) } else { remHi -= len }
            }
            acc += len
            if acc > lo && acc < hi {
                guard atLo != nil else { return forEachPointInThreeWalks(ofEdge: e, from: lo, to: hi, body) }
                body(shape[i + 1])
            }
            if atLo != nil && atHi != nil && acc >= hi { break }  // the offsets only grow: no vertex is left before hi
            i += 1
        }
        let last = r.upperBound - 2
        if atLo == nil || atHi == nil {
            let a = local[last], b = local[last + 1]
            let len = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            let end = EdgePosition(index: last, along: len, length: len)  // past the end, as position(onEdge:offset:)
            if atLo == nil { body(coordinate(at: end, shape)) }
            if atHi == nil { atHi = end }
        }
        if let atHi { body(coordinate(at: atHi, shape)) }
    }

    /// `forEachPoint` as three walks: the point at `lo`, the vertices between, the point at `hi`.
    private func forEachPointInThreeWalks(ofEdge e: Int, from lo: Double, to hi: Double,
                                          _ body: (GeoCoordinate) -> Void) {
        body(coordinate(onEdge: e, offset: lo))
        let shape = shape
        forEachVertex(ofEdge: e, between: lo, and: hi) { body(shape[$0]) }
        body(coordinate(onEdge: e, offset: hi))
    }

    /// The same part in the local frame.
    func forEachLocalPoint(ofEdge e: Int, from lo: Double, to hi: Double, _ body: (LocalPoint) -> Void) {
        body(localPoint(onEdge: e, offset: lo))
        let local = localShape
        forEachVertex(ofEdge: e, between: lo, and: hi) { body(local[$0]) }
        body(localPoint(onEdge: e, offset: hi))
    }

    /// Appends the part of edge `edge` between `from` and `to` metres (measured in the travel direction) to `points`,
    /// skipping every point equal to the last one already there. `scratch` holds the piece (reused between calls, so a
    /// path's geometry allocates nothing per step).
    func appendPolyline(edge: Int, forward: Bool, from: Double, to: Double, into points: inout [GeoCoordinate],
                        scratch: inout [GeoCoordinate]) {
        let len = edges.length(edge)
        let g0 = forward ? from : len - to, g1 = forward ? to : len - from  // geometry offsets
        scratch.removeAll(keepingCapacity: true)
        forEachPoint(ofEdge: edge, from: g0, to: g1) { scratch.append($0) }
        if forward {
            for p in scratch where points.last != p { points.append(p) }
        } else {
            for p in scratch.reversed() where points.last != p { points.append(p) }
        }
    }
}
