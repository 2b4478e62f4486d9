import RoadSnapCore
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
            let p = snapper.project(c)
            let fast = snapper.query.candidates(near: p, radius: radius, method: method)
            let slow = snapper.query.candidates(near: p, radius: radius, method: .bruteForce)
            if !fast.isEmpty { nonEmpty += 1 }
            if fast != slow { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(nonEmpty > 1000)  // the test exercises real candidates, not empty space
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
            let p = snapper.project(c)
            let slow = snapper.query.candidates(near: p, radius: 40, method: .bruteForce).map(\.distance).min()
            #expect(snapper.query.nearestDistance(to: p, radius: 40) == slow)
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
            let p = snapper.project(c)
            #expect(snapper.query.candidates(near: p, radius: 120, method: .cached)
                    == snapper.query.candidates(near: p, radius: 120, method: .bruteForce))
        }
    }

    @Test func candidateGeometryIsConsistent() throws {
        let network = try TestData.bellevue()
        let snapper = try Snapper(network: network)
        let c = GeoCoordinate(uncheckedLatitude: 47.5802, longitude: -122.1380)
        let cands = snapper.candidates(near: c, radius: 50)
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
            guard let s = snapper.snap(fix) else { Issue.record("no snap on motorway edge \(e)"); continue }
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
            let one = snapper.snap(fix)
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
            let p = snapper.project(c)
            let radius = i % 3 == 0 ? 20.0 : 50.0
            let fast = snapper.query.candidates(near: p, radius: radius, method: .cached)
            #expect(fast == snapper.query.candidates(near: p, radius: radius, method: .bruteForce))
            if !fast.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty > 1000)
        // The far road is found too, and the empty country between is answered without candidates.
        #expect(!snapper.candidates(near: GeoCoordinate(uncheckedLatitude: 48.905, longitude: -120.8001)).isEmpty)
        #expect(snapper.candidates(near: GeoCoordinate(uncheckedLatitude: 48.2, longitude: -121.5)).isEmpty)
    }
}
