import Testing
@testable import RoadSnapCore

/// The one walk along an edge's geometry (`RoadNetwork.position(onEdge:offset:)` and what is built on it: point,
/// bearing, coordinate and the part between two offsets) against a slow, obvious reference: every vertex's offset
/// summed up front, the segment found by scanning those offsets, the point interpolated on it (issue 18).
@Suite struct EdgeGeometryTests {
    /// Offsets of every shape point of edge `e` from its start (local metres).
    static func vertexOffsets(_ n: RoadNetwork, _ e: Int) -> [Double] {
        let r = n.edges[e].shapeRange
        var offsets = [0.0]
        for i in r.lowerBound..<(r.upperBound - 1) {
            let a = n.localShape[i], b = n.localShape[i + 1]
            offsets.append(offsets[offsets.count - 1] + ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot())
        }
        return offsets
    }

    /// Reference: the segment k (0-based within the edge) and fraction t of the point `offset` metres along.
    static func reference(_ n: RoadNetwork, _ e: Int, _ offset: Double) -> (k: Int, t: Double) {
        let cum = vertexOffsets(n, e)
        let o = min(max(offset, 0), cum[cum.count - 1])
        for k in 0..<(cum.count - 1) where cum[k + 1] - cum[k] > 0 && o <= cum[k + 1] {
            return (k, max(0, (o - cum[k]) / (cum[k + 1] - cum[k])))
        }
        return (cum.count - 2, 1)
    }

    static func offsets(_ n: RoadNetwork, _ e: Int, _ rng: inout SeededGenerator) -> [Double] {
        let len = n.edges[e].length
        let cum = vertexOffsets(n, e)
        return [-5, 0, len, len + 7, len * Double(rng.next() % 1000) / 1000] + cum  // vertices exactly, ends, beyond
    }

    @Test func pointBearingAndCoordinateEqualTheReference() throws {
        let n = try TestData.bellevue()
        var rng = SeededGenerator(seed: 18)
        var checked = 0
        for _ in 0..<400 {
            let e = Int(rng.next() % UInt64(n.edges.count))
            let s = n.edges[e].shapeRange.lowerBound
            for o in Self.offsets(n, e, &rng) {
                let (k, t) = Self.reference(n, e, o)
                let a = n.localShape[s + k], b = n.localShape[s + k + 1]
                let p = n.localPoint(onEdge: e, offset: o)
                #expect(abs(p.x - (a.x + t * (b.x - a.x))) < 1e-6 && abs(p.y - (a.y + t * (b.y - a.y))) < 1e-6,
                        "edge \(e) offset \(o)")
                // At a vertex either segment is right (summed and subtracted offsets may round apart there).
                let atVertex = Self.vertexOffsets(n, e).contains { abs($0 - o) < 1e-6 }
                if !atVertex, (b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y) > 1e-6 {
                    var want = atan2Degrees(b.x - a.x, b.y - a.y)
                    if want < 0 { want += 360 }
                    #expect(abs(n.bearing(onEdge: e, offset: o) - want) < 1e-9, "edge \(e) offset \(o)")
                }
                let g = n.shape[s + k], h = n.shape[s + k + 1]
                let c = n.coordinate(onEdge: e, offset: o)
                #expect(abs(c.latitude - (g.latitude + t * (h.latitude - g.latitude))) < 1e-12
                        && abs(c.longitude - (g.longitude + t * (h.longitude - g.longitude))) < 1e-12,
                        "edge \(e) offset \(o)")
                checked += 1
            }
        }
        #expect(checked > 2000)
    }

    @Test func thePartBetweenTwoOffsetsEqualsTheReference() throws {
        let n = try TestData.bellevue()
        var rng = SeededGenerator(seed: 81)
        for _ in 0..<400 {
            let e = Int(rng.next() % UInt64(n.edges.count))
            let len = n.edges[e].length
            let cum = Self.vertexOffsets(n, e)
            let s = n.edges[e].shapeRange.lowerBound
            let x = len * Double(rng.next() % 1000) / 1000, y = len * Double(rng.next() % 1000) / 1000
            let lo = min(x, y), hi = max(x, y)
            var got: [GeoCoordinate] = []
            n.forEachPoint(ofEdge: e, from: lo, to: hi) { got.append($0) }
            // Reference: the two ends, and the vertices whose summed offset lies strictly between.
            let inner = (1..<cum.count).filter { cum[$0] > lo && cum[$0] < hi }.map { n.shape[s + $0] }
            #expect(got.count == inner.count + 2, "edge \(e) \(lo)...\(hi)")
            #expect(Array(got.dropFirst().dropLast()) == inner)
            let (k0, t0) = Self.reference(n, e, lo), (k1, t1) = Self.reference(n, e, hi)
            for (c, k, t) in [(got[0], k0, t0), (got[got.count - 1], k1, t1)] {
                let g = n.shape[s + k], h = n.shape[s + k + 1]
                #expect(abs(c.latitude - (g.latitude + t * (h.latitude - g.latitude))) < 1e-12
                        && abs(c.longitude - (g.longitude + t * (h.longitude - g.longitude))) < 1e-12)
            }
            // Travelled backward, the matcher's polyline is the same part reversed (repeats dropped).
            var back: [GeoCoordinate] = [], scratch: [GeoCoordinate] = []
            n.appendPolyline(edge: e, forward: false, from: len - hi, to: len - lo, into: &back, scratch: &scratch)
            var want: [GeoCoordinate] = []
            for p in got.reversed() where want.last != p { want.append(p) }
            // (len - (len - lo)) need not be lo to the last bit: the ends agree to rounding, the vertices exactly.
            #expect(back.count == want.count, "edge \(e) backward")
            for (p, q) in zip(back, want) {
                #expect(abs(p.latitude - q.latitude) < 1e-12 && abs(p.longitude - q.longitude) < 1e-12)
            }
            #expect(Array(back.dropFirst().dropLast()) == Array(want.dropFirst().dropLast()))
        }
    }
}
