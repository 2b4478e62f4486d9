import Foundation
import RoadSnapBridge
@testable import RoadSnapCore
import Testing

@Suite struct SnapperTests {
    /// 10,000 random fixes over the Bellevue extract: the cached and the direct STRtree answers equal a brute-force
    /// scan of every segment (same edges, distances and offsets).
    @Test(arguments: [SegmentQuery.Method.cached, .strtree])
    func indexedCandidatesEqualBruteForce(method: SegmentQuery.Method) throws {
        let network = try TestData.bellevue()
        let snapper = try Snapper(network: network, maxCandidates: 256)
        var rng = SeededGenerator(seed: 2024)
        let b = network.bounds
        var mismatches = 0, nonEmpty = 0
        for i in 0..<10_000 {
            let c = b.randomCoordinate(using: &rng)
            let radius = i % 4 == 0 ? 25.0 : 50.0
            let p = try snapper.project(c)
            let fast = try snapper.query.candidates(near: p, radius: radius, method: method)
            let slow = try snapper.query.candidates(near: p, radius: radius, method: .bruteForce)
            if !fast.isEmpty { nonEmpty += 1 }
            if fast != slow { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(nonEmpty > 1000)  // the test exercises real candidates, not empty space
    }

    /// One edge's candidate looked up from its own segments (what held fixes are placed with) equals that edge's
    /// entry in the brute-force list of every edge, and is nil exactly where the list has no entry for it: for the
    /// listed edges and for edges just beyond the radius.
    @Test func edgeCandidateEqualsItsEntryInTheFullList() throws {
        let network = try TestData.bellevue()
        let snapper = try Snapper(network: network, maxCandidates: 4096)
        var rng = SeededGenerator(seed: 77)
        let b = network.bounds
        var compared = 0, absent = 0
        for i in 0..<3_000 {
            let radius = [10.0, 35.0, 60.0][i % 3]
            let p = try snapper.project(b.randomCoordinate(using: &rng))
            let all = try snapper.query.candidates(near: p, radius: radius, method: .bruteForce)
            let wider = try snapper.query.candidates(near: p, radius: radius * 2, method: .bruteForce)
            for c in wider {
                let one = try snapper.query.candidate(ofEdge: c.edge, near: p, radius: radius)
                let listed = all.first { $0.edge == c.edge }
                #expect(one == listed)
                if listed == nil { absent += 1 } else { compared += 1 }
            }
        }
        #expect(compared > 1000 && absent > 1000)
        #expect(try snapper.query.candidate(ofEdge: network.edges.count, near: LocalPoint(x: 0, y: 0), radius: 50) == nil)
    }

    /// An independent reference in plain Swift (point-to-segment geometry over every edge's local shape, nearest point
    /// per edge, sorted by distance then edge): the indexed answers agree on edges, distances, offsets, foot points and
    /// bearings on 3,000 random fixes. (`.bruteForce` above shares the C scan's arithmetic; this does not.)
    @Test func indexedCandidatesEqualAnIndependentSwiftReference() throws {
        let network = try TestData.bellevue()
        let snapper = try Snapper(network: network, maxCandidates: 256)
        var rng = SeededGenerator(seed: 31)
        let radius = 50.0
        let shapes = network.edges.indices.map { Array(network.localGeometry(ofEdge: $0)) }
        // Each edge's box, grown by the radius: an edge whose box misses the fix has no point within the radius.
        let boxes = shapes.map { s in
            (s.map(\.x).min()! - radius, s.map(\.y).min()! - radius, s.map(\.x).max()! + radius, s.map(\.y).max()! + radius)
        }
        var compared = 0, interiorBearings = 0
        for _ in 0..<3_000 {
            let p = try snapper.project(network.bounds.randomCoordinate(using: &rng))
            var reference: [(edge: Int, x: Double, y: Double, d: Double, offset: Double, bearing: Double?)] = []
            for e in network.edges.indices {
                let box = boxes[e]
                guard p.x >= box.0, p.y >= box.1, p.x <= box.2, p.y <= box.3 else { continue }
                let shape = shapes[e]
                var best: (x: Double, y: Double, d: Double, offset: Double, bearing: Double?)? = nil
                var along = 0.0
                for i in 0..<(shape.count - 1) {
                    let a = shape[i], b = shape[i + 1]
                    let dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy
                    let t = len2 == 0 ? 0 : max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2))
                    let fx = a.x + t * dx, fy = a.y + t * dy
                    let d = ((p.x - fx) * (p.x - fx) + (p.y - fy) * (p.y - fy)).squareRoot()
                    let len = len2.squareRoot()
                    if d < (best?.d ?? .infinity) - 1e-9 {
                        var bearing = atan2(dx, dy) * 180 / .pi
                        if bearing < 0 { bearing += 360 }
                        best = (fx, fy, d, along + t * len, t > 1e-6 && t < 1 - 1e-6 ? bearing : nil)
                    }
                    along += len
                }
                if let best, best.d <= radius { reference.append((e, best.x, best.y, best.d, best.offset, best.bearing)) }
            }
            reference.sort { ($0.d, $0.edge) < ($1.d, $1.edge) }
            let fast = try snapper.query.candidates(near: p, radius: radius, method: .cached)
            #expect(fast.count == reference.count)
            guard fast.count == reference.count else { continue }
            // Edges in order; where two distances tie to within rounding, either order is right.
            #expect(Set(fast.map(\.edge)) == Set(reference.map(\.edge)))
            let byEdge = Dictionary(uniqueKeysWithValues: reference.map { ($0.edge, $0) })
            for (i, c) in fast.enumerated() {
                let r = try #require(byEdge[c.edge])
                #expect(abs(c.distance - r.d) < 1e-6)
                #expect(abs(c.offset - r.offset) < 1e-6, "edge \(c.edge): offset \(c.offset) vs \(r.offset)")
                #expect(abs(c.point.x - r.x) < 1e-6 && abs(c.point.y - r.y) < 1e-6)
                if let b = r.bearing {
                    let diff = abs(c.bearing - b)
                    #expect(min(diff, 360 - diff) < 1e-6, "edge \(c.edge): bearing \(c.bearing) vs \(b)")
                    interiorBearings += 1
                }
                if i > 0 { #expect(fast[i - 1].distance <= c.distance) }
                compared += 1
            }
        }
        #expect(compared > 3_000)  // real candidates were compared, not empty space
        #expect(interiorBearings > 1_000)
    }

    /// `nearestDistance` (one candidate asked for) equals the smallest distance of a brute-force scan, and is nil
    /// exactly where the scan finds nothing, on 2,000 random fixes.
    @Test func nearestDistanceEqualsTheBruteForceMinimum() throws {
        let network = try TestData.bellevue()
        let snapper = try Snapper(network: network, maxCandidates: 256)
        var rng = SeededGenerator(seed: 7)
        let b = network.bounds
        var found = 0
        for _ in 0..<2_000 {
            let c = b.randomCoordinate(using: &rng)
            let p = try snapper.project(c)
            let slow = try snapper.query.candidates(near: p, radius: 40, method: .bruteForce).map(\.distance).min()
            #expect(try snapper.query.nearestDistance(to: p, radius: 40) == slow)
            if slow != nil { found += 1 }
        }
        #expect(found > 200 && found < 2_000)
    }

    @Test func radiusAboveCacheRadiusUsesTheTreeAndStillAgrees() throws {
        let network = try TestData.bellevue()
        let snapper = try Snapper(network: network, maxCandidates: 512)
        var rng = SeededGenerator(seed: 5)
        let b = network.bounds
        for _ in 0..<500 {
            let c = b.randomCoordinate(using: &rng)
            let p = try snapper.project(c)
            #expect(try snapper.query.candidates(near: p, radius: 120, method: .cached)
                    == snapper.query.candidates(near: p, radius: 120, method: .bruteForce))
        }
    }

    @Test func candidateGeometryIsConsistent() throws {
        let network = try TestData.bellevue()
        let snapper = try Snapper(network: network)
        let c = GeoCoordinate(uncheckedLatitude: 47.5802, longitude: -122.1380)
        let cands = try snapper.candidates(near: c, radius: 50)
        #expect(!cands.isEmpty)
        for cand in cands {
            #expect(cand.offset >= 0 && cand.offset <= network.edges[cand.edge].length + 1e-6)
            let onEdge = network.localPoint(onEdge: cand.edge, offset: cand.offset)
            #expect(abs(onEdge.x - cand.point.x) < 1e-6 && abs(onEdge.y - cand.point.y) < 1e-6)
        }
        #expect(zip(cands, cands.dropFirst()).allSatisfy { $0.distance <= $1.distance })
    }

    /// On a two-carriageway motorway, the fix's course picks the carriageway going its way, never the wrong way.
    @Test func courseAndOneWayChooseTheRightCarriageway() throws {
        let network = try TestData.bellevue()
        let snapper = try Snapper(network: network)
        var checked = 0
        for e in network.edges.indices where network.edges[e].attributes.roadClass == .motorway && network.edges[e].length > 200 {
            let mid = network.localPoint(onEdge: e, offset: network.edges[e].length / 2)
            let g = snapper.frame.inverse(mid)
            let travel = network.edges[e].direction == .backward
                ? (network.bearing(onEdge: e, offset: network.edges[e].length / 2) + 180).truncatingRemainder(dividingBy: 360)
                : network.bearing(onEdge: e, offset: network.edges[e].length / 2)
            let fix = Fix(coordinate: GeoCoordinate(uncheckedLatitude: g.latitude, longitude: g.longitude), course: travel)
            guard let s = try snapper.snap(fix) else { Issue.record("no snap on motorway edge \(e)"); continue }
            #expect(network.edges[s.edge].allows(forward: bearingDifference(s.bearing, network.bearing(onEdge: s.edge, offset: s.offset)) < 90))
            #expect(bearingDifference(s.bearing, travel) < 45)
            checked += 1
            if checked >= 40 { break }
        }
        #expect(checked >= 20)
    }

    @Test func batchSnapAgreesWithSingleSnaps() throws {
        let network = try TestData.bellevue()
        let snapper = try Snapper(network: network)
        var rng = SeededGenerator(seed: 11)
        let b = network.bounds
        let fixes = (0..<2000).map { i in
            Fix(coordinate: b.randomCoordinate(using: &rng),
                course: i % 2 == 0 ? Double.random(in: 0..<360, using: &rng) : nil)
        }
        let batch = try snapper.snap(fixes)
        for (fix, b) in zip(fixes, batch) {
            let one = try snapper.snap(fix)
            #expect(one?.edge == b?.edge)
            #expect(one?.offset == b?.offset)
        }
        #expect(batch.contains { $0 != nil })
        #expect(batch.contains { $0 == nil })
    }
}

@Suite struct WideMapCellCacheTests {
    /// The Bellevue roads plus one road ~150 km away: the box is too large for a 50 m grid under the cell cap, so
    /// the cache's cells grow; its answers still equal a brute-force scan.
    @Test func coarserCellsOnAWideMapEqualBruteForce() throws {
        let bellevue = try TestData.bellevue()
        var ways = bellevue.edges.map { e in
            RoadWay(sourceID: e.sourceID, coordinates: Array(bellevue.shape[e.shapeRange]), direction: e.direction,
                    attributes: e.attributes)
        }
        ways.append(RoadWay(sourceID: .number(-1),
                            coordinates: [GeoCoordinate(uncheckedLatitude: 48.9, longitude: -120.8),
                                          GeoCoordinate(uncheckedLatitude: 48.91, longitude: -120.8)],
                            direction: .both, attributes: RoadAttributes(roadClass: .primary)))
        let wide = try RoadNetwork(ways: ways, sourceName: "bellevue+far")
        let snapper = try Snapper(network: wide, maxCandidates: 256)
        var rng = SeededGenerator(seed: 99)
        let b = bellevue.bounds
        var nonEmpty = 0
        for i in 0..<10_000 {
            let c = b.randomCoordinate(using: &rng)
            let p = try snapper.project(c)
            let radius = i % 3 == 0 ? 20.0 : 50.0
            let fast = try snapper.query.candidates(near: p, radius: radius, method: .cached)
            #expect(try fast == snapper.query.candidates(near: p, radius: radius, method: .bruteForce))
            if !fast.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty > 1000)
        // The far road is found too, and the empty country between is answered without candidates.
        #expect(try !snapper.candidates(near: GeoCoordinate(uncheckedLatitude: 48.905, longitude: -120.8001)).isEmpty)
        #expect(try snapper.candidates(near: GeoCoordinate(uncheckedLatitude: 48.2, longitude: -121.5)).isEmpty)
    }
}
