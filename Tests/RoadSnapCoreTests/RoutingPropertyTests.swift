import Foundation
import RoadSnapCore
import RoadSnapFormats
import Testing

@Suite struct RoutingPropertyTests {
    /// Random road vertices of a network as waypoints (deterministic).
    static func pairs(_ network: RoadNetwork, count: Int, seed: UInt64) -> [(Waypoint, Waypoint)] {
        var rng = SeededGenerator(seed: seed)
        func vertex() -> Waypoint { Waypoint(coordinate: network.shape.randomElement(using: &rng)!) }
        return (0..<count).map { _ in (vertex(), vertex()) }
    }

    /// 300 random routes on the Bellevue sample: legs, segments and steps are consistent with each other.
    @Test func legsSegmentsAndStepsAreConsistent() throws {
        let router = try RoutingTestData.router(TestData.bellevueMap)
        let net = router.network
        var ok = 0
        for (a, b) in Self.pairs(net, count: 300, seed: 11) where a.coordinate != b.coordinate {
            let result = router.route(RouteRequest(waypoints: [a, b]))
            guard let route = result.route else { continue }
            ok += 1
            let leg = try #require(route.legs.first)
            // Segments: allowed directions, offsets on the edge, joined at shared nodes, distances cumulative.
            var along = 0.0
            for (k, s) in leg.segments.enumerated() {
                #expect(net.edges[s.edge].allows(forward: s.isForward))
                #expect(s.fromOffset >= -1e-9 && s.fromOffset <= net.edges[s.edge].length + 1e-9)
                #expect(s.isForward ? s.toOffset >= s.fromOffset - 1e-9 : s.toOffset <= s.fromOffset + 1e-9)
                #expect(abs(s.distanceFromLegStart - along) < 1e-6)
                along += s.distance
                if k > 0 {
                    let prev = leg.segments[k - 1]
                    #expect(net.graph.arcHead[prev.arc] == net.graph.arcTail[s.arc])
                }
            }
            #expect(abs(along - leg.distance) < 1e-6)
            #expect(leg.geometry.first == leg.snappedOrigin && leg.geometry.last == leg.snappedDestination)
            // Steps: numbered, depart first, destination last, distances from the previous step add up.
            let steps = leg.steps
            #expect(steps.map(\.stepNumber) == Array(0..<steps.count))
            #expect(steps.first?.maneuver == .depart)
            #expect(steps.last?.maneuver.family == .destination)
            #expect(abs(steps.reduce(0) { $0 + $1.distanceFromPreviousStep } - leg.distance) < 1e-6)
            #expect(abs(steps.reduce(0) { $0 + $1.timeFromPreviousStep } - leg.duration) < 1e-6)
            #expect(steps.allSatisfy { !$0.instruction.isEmpty && $0.distanceFromPreviousStep >= -1e-9 })
            #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.segmentIndex <= $1.segmentIndex })
            #expect(steps.allSatisfy { ($0.maneuver.family == .roundabout) == ($0.roundaboutTurnNumber != -1)
                    || $0.maneuver == .roundaboutExitClockwise || $0.maneuver == .roundaboutExitCounterClockwise })
        }
        #expect(ok > 250)
    }

    /// One router shared by four threads gives exactly the routes it gives on one thread.
    @Test func concurrentQueriesMatchSequentialOnes() throws {
        let router = try RoutingTestData.router(RoutingTestData.monaco)
        let pairs = Self.pairs(router.network, count: 120, seed: 5)
        let sequential = pairs.map { router.route(RouteRequest(waypoints: [$0.0, $0.1])) }
        final class Box: @unchecked Sendable { var results = [RouteResult?](repeating: nil, count: 120) }
        let box = Box()
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for i in stride(from: t, to: pairs.count, by: 4) {
                let r = router.route(RouteRequest(waypoints: [pairs[i].0, pairs[i].1]))
                lock.lock(); box.results[i] = r; lock.unlock()
            }
        }
        #expect(box.results.map { $0 } == sequential.map { $0 })
        #expect(sequential.filter { $0.status == .ok }.count > 90)
    }

    /// JSON and GeoJSON outputs carry the status, legs, steps with maneuvers, lanes and OSM way ids.
    @Test func outputsCarryStepsAndSourceIDs() throws {
        let router = try RoutingTestData.router(TestData.bellevueMap)
        let result = router.route(RouteRequest(waypoints: [
            Waypoint(coordinate: GeoCoordinate(uncheckedLatitude: 47.58193333, longitude: -122.1122667)),
            Waypoint(coordinate: GeoCoordinate(uncheckedLatitude: 47.58026667, longitude: -122.1789)),
        ]))
        #expect(result.status == .ok)
        let json = try JSONSerialization.jsonObject(with: Data(
            RouteOutput.serialize(RouteOutput.jsonObject(result, network: router.network)).utf8)) as? [String: Any]
        #expect(json?["status"] as? String == "ok")
        let legs = try #require(json?["legs"] as? [[String: Any]])
        let steps = try #require(legs.first?["steps"] as? [[String: Any]])
        #expect(steps.first?["maneuver"] as? String == "depart")
        #expect(steps.contains { $0["lanes"] != nil })
        let segments = try #require(legs.first?["segments"] as? [[String: Any]])
        #expect(segments.allSatisfy { Int64($0["source_id"] as? String ?? "") != nil })  // OSM way ids
        let geo = RouteOutput.geoJSONObject(result, network: router.network)
        let features = try #require(geo["features"]?.array)
        #expect(features.count == 1 + (result.route?.legs[0].steps.count ?? 0))
        // The one JSON writer (JSONValue) gives the bytes JSONSerialization (.sortedKeys) gave before issue 10: the
        // document read back and written again by Foundation is the same text (this route's strings hold no `/`,
        // which Foundation alone escapes).
        for object in [RouteOutput.jsonObject(result, network: router.network), geo] {
            let text = RouteOutput.serialize(object)
            let reference = try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: Data(text.utf8)),
                                                       options: [.sortedKeys])
            #expect(text == String(decoding: reference, as: UTF8.self))
        }
        let text = RouteOutput.text(result)
        #expect(text.contains("Your destination is ahead"))
        let failed = RouteOutput.text(router.route(RouteRequest(origin: nil, destinations: [])))
        #expect(failed.hasPrefix("status: locationUnavailable"))
    }

    /// A waypoint on a junction of the Bellevue sample with a heading along one of the roads leaving it (junctions of
    /// 3+ roads leaving at least 60 degrees apart, no other road within 2 m): the route leaves along that road,
    /// whichever of the roads meeting there the index lists first (a navigator rerouting from a matched point on a
    /// junction gives such an origin). Before the tie-break in `Router.place`, 102 of 184 such routes did.
    @Test func anOriginOnAJunctionLeavesAlongTheRoadOfItsHeading() throws {
        let router = try RoutingTestData.router(TestData.bellevueMap)
        let net = router.network, g = net.graph
        let snapper = try Snapper(network: net)
        let destination = Waypoint(coordinate: GeoCoordinate(uncheckedLatitude: 47.57991667, longitude: -122.1830333))
        /// The node a leaving arc starts at and its first piece's bearing.
        func start(_ a: Int) -> (GeoCoordinate, Double) {
            let pts = Array(net.geometry(ofEdge: a >> 1))
            let (p, q) = a & 1 == 0 ? (pts[0], pts[1]) : (pts[pts.count - 1], pts[pts.count - 2])
            let dy = q.latitude - p.latitude
            let dx = (q.longitude - p.longitude) * cos(p.latitude * .pi / 180)
            let b = atan2(dx, dy) * 180 / .pi
            return (p, b < 0 ? b + 360 : b)
        }
        var routed = 0, leftAlong = 0, nodes = 0
        for v in 0..<g.nodeCount where nodes < 60 {
            let leaving = (Int(g.outStart[v])..<Int(g.outStart[v + 1])).map { Int(g.outArcs[$0]) }
            guard leaving.count >= 3 else { continue }
            let starts = leaving.map(start)
            let apart = starts.indices.allSatisfy { i in
                starts.indices.allSatisfy { j in i == j || bearingDifference(starts[i].1, starts[j].1) >= 60 }
            }
            // Only the node's own roads within 2 m of it (not a bridge over it, nor another node drawn on it).
            let own = Set(leaving.map { $0 >> 1 })
            // And on the network routes start from (a route without heading leaves along one of them; not an
            // island the router places no origin on).
            guard apart, try snapper.candidates(near: starts[0].0, radius: 2).allSatisfy({ own.contains($0.edge) }),
                  let plain = router.route(RouteRequest(waypoints: [Waypoint(coordinate: starts[0].0), destination]))
                      .route?.legs.first?.segments.first(where: { $0.distance > 0 }),
                  own.contains(plain.edge)
            else { continue }
            nodes += 1
            for (a, s) in zip(leaving, starts) {
                let origin = Waypoint(coordinate: s.0, preferredHeading: s.1, headingTolerance: 90)
                guard let leg = router.route(RouteRequest(waypoints: [origin, destination])).route?.legs.first,
                      let first = leg.segments.first(where: { $0.distance > 0 })
                else { continue }
                routed += 1
                if first.arc == a { leftAlong += 1 }
            }
        }
        #expect(nodes == 60)
        #expect(routed >= 150)
        #expect(leftAlong == routed)
    }
}
