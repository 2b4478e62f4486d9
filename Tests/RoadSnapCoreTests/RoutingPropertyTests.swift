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
}
