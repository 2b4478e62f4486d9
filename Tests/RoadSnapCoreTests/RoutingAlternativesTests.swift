import Foundation
@testable import RoadSnapCore
import Testing

/// Alternative routes and traffic-aware routing on the Bellevue sample (real OSM data, `Samples/SOURCE.md`).
@Suite struct RoutingAlternativesTests {
    /// A feed over real way ids of the sample: every way whose id is divisible by `every` at `kmh`.
    static func feed(_ network: RoadNetwork, every: Int64, kmh: Double) throws -> TrafficFeed {
        var speeds: [Int64: Double] = [:]
        for e in network.edges {
            if case let .osmWay(id) = e.sourceID, id % every == 0 { speeds[id] = kmh }
        }
        return try TrafficFeed(speedsKmh: speeds)
    }

    /// Arcs of a single-leg route.
    static func arcs(_ route: Route) -> [Int] { route.legs.flatMap(\.segments).map(\.arc) }

    /// 60 random pairs: every alternative is a connected path from the same origin to the same destination
    /// through allowed turns, differs from the main route and from the other alternatives, shares at most 80 % of
    /// the main route's length with it, costs at most 35 % more, and the main route equals the plain route.
    @Test func alternativesRespectOverlapAndStretch() throws {
        let router = try RoutingTestData.router(TestData.bellevueMap)
        let net = router.network
        let graph = router.profile(RoutingOptions()).graph
        let limits = try AlternativeRouteOptions(count: 3)
        var withAlternatives = 0, alternativesSeen = 0, pairs = 0
        for (a, b) in RoutingPropertyTests.pairs(net, count: 60, seed: 23) where a.coordinate != b.coordinate {
            let request = RouteRequest(waypoints: [a, b])
            let choice = router.routeChoice(request, alternatives: limits)
            let plain = router.route(request)
            guard plain.status == .ok else { #expect(choice.result.status == plain.status); continue }
            pairs += 1
            let main = try #require(choice.options.first)
            #expect(main.route == plain.route)
            #expect(main.cost == router.cost(from: a, to: b))
            #expect(choice.options.count <= 4)
            if choice.options.count > 1 { withAlternatives += 1 }
            let mainArcs = Set(Self.arcs(main.route))
            var previous = [Self.arcs(main.route)]
            for alt in choice.options.dropFirst() {
                alternativesSeen += 1
                let leg = try #require(alt.route.legs.first)
                let arcs = Self.arcs(alt.route)
                #expect(!previous.contains(arcs), "an alternative repeats an earlier route")
                previous.append(arcs)
                #expect(Set(arcs).count == arcs.count, "an alternative visits an arc twice")
                for k in 1..<max(1, arcs.count) {
                    #expect(net.graph.arcHead[arcs[k - 1]] == net.graph.arcTail[arcs[k]])
                    #expect(graph.turnOnly(from: arcs[k - 1], to: arcs[k]) != nil, "turn not allowed")
                }
                #expect(leg.segments.first?.edge == main.route.legs[0].segments.first?.edge)
                #expect(leg.snappedOrigin == main.route.legs[0].snappedOrigin)
                #expect(leg.snappedDestination == main.route.legs[0].snappedDestination)
                // Overlap recomputed from the segments.
                let shared = leg.segments.filter { mainArcs.contains($0.arc) }.reduce(0) { $0 + $1.distance }
                #expect(shared / main.route.distance <= 0.8 + 1e-9)
                #expect(abs(shared / main.route.distance - alt.overlap) < 1e-9)
                // Stretch on the minimised cost; the cost is the path's turn-graph cost.
                #expect(alt.cost > main.cost || (alt.cost == main.cost && arcs != Self.arcs(main.route)))
                #expect(Double(alt.cost) <= Double(main.cost) * 1.35 + 1)
                #expect(abs(alt.route.duration - alt.trafficDuration) < 1e-9)
            }
        }
        #expect(pairs >= 40)
        // The via-node method does not find an alternative for every pair (short trips, one way through);
        // on this suburban extract most pairs have one.
        #expect(withAlternatives * 2 >= pairs, "\(withAlternatives) of \(pairs) pairs have an alternative")
        #expect(alternativesSeen > withAlternatives, "some pairs should have more than one alternative")
    }

    /// Tighter limits give fewer (never more) alternatives, and count 0 gives the main route only.
    @Test func limitsNarrowTheChoice() throws {
        let router = try RoutingTestData.router(TestData.bellevueMap)
        var loose = 0, tight = 0
        for (a, b) in RoutingPropertyTests.pairs(router.network, count: 25, seed: 5) where a.coordinate != b.coordinate {
            let request = RouteRequest(waypoints: [a, b])
            loose += router.routeChoice(request, alternatives: try AlternativeRouteOptions(count: 3)).options.count - 1
            let narrow = try AlternativeRouteOptions(count: 3, maximumOverlap: 0.3, maximumStretch: 0.1)
            let t = router.routeChoice(request, alternatives: narrow)
            tight += max(0, t.options.count - 1)
            for alt in t.options.dropFirst() {
                #expect(alt.overlap <= 0.3 + 1e-9 && alt.stretch <= 0.1 + 1e-9)
            }
            let none = router.routeChoice(request, alternatives: try AlternativeRouteOptions(count: 0))
            #expect(none.options.count <= 1)
        }
        #expect(tight < loose)
        #expect(throws: RoadSnapError.self) { try AlternativeRouteOptions(count: -1) }
        #expect(throws: RoadSnapError.self) { try AlternativeRouteOptions(maximumOverlap: 1.5) }
    }

    /// With a feed slowing a third of the ways to 10 km/h, the traffic route's cost equals a plain one-to-all
    /// Dijkstra over the feed's costs on 40 sampled pairs, it is never slower under traffic than the free-flow
    /// route, and its traffic ETA is the sum of its segments' traffic times.
    @Test func trafficRoutingIsExact() throws {
        let router = try RoutingTestData.router(TestData.bellevueMap)
        let net = router.network
        let options = RoutingOptions()
        let prepared = router.profile(options)
        let feed = try Self.feed(net, every: 3, kmh: 10)
        let weighted = prepared.graph.reweighted(network: net, traffic: feed, options: options)
        var differs = 0, checked = 0
        for (a, b) in RoutingPropertyTests.pairs(net, count: 40, seed: 77) where a.coordinate != b.coordinate {
            let request = RouteRequest(waypoints: [a, b], options: options)
            let result = router.route(request, traffic: feed)
            let free = router.route(request)
            guard let route = result.route, let freeRoute = free.route else { continue }
            guard case let .placed(_, placed) = router.placeWaypoints(request, isCanceled: { false }),
                  let (_, ends, _) = router.searchWithEnds(prepared, from: placed[0], to: placed[1],
                                                          space: router.takeSpace(), traffic: weighted)
            else { Issue.record("placement failed for a routable pair"); continue }
            checked += 1
            // Reference: one-to-all Dijkstra over the traffic costs.
            let all = TurnDijkstra.costsToAll(weighted, sources: ends.sources)
            let reference = try #require(TurnDijkstra.cost(to: ends, costs: all))
            let cost = try #require(AlternativePaths.cost(of: Self.arcs(route), ends: ends, graph: weighted))
            #expect(cost == reference)
            if let freeCost = AlternativePaths.cost(of: Self.arcs(freeRoute), ends: ends, graph: weighted) {
                #expect(cost <= freeCost)
                if Self.arcs(freeRoute) != Self.arcs(route) { differs += 1 }
            }
            // Traffic ETA: free-flow segment time replaced by length / min(traffic, free) on covered ways.
            var eta = 0.0
            for s in route.legs[0].segments {
                let edge = net.edges[s.edge]
                let free = CarProfile.seconds(edge, length: s.distance, forward: s.isForward)
                if let kmh = feed.speedKmh(for: edge.sourceID), !edge.attributes.isFerry {
                    eta += s.duration - free + s.distance / (min(kmh, edge.attributes.speedKmh(forward: s.isForward)) / 3.6)
                } else {
                    eta += s.duration
                }
            }
            #expect(abs(route.duration(traffic: feed, network: net) - eta) < 1e-6)
            #expect(route.duration(traffic: feed, network: net) >= route.duration - 1e-9)
        }
        #expect(checked >= 30)
        #expect(differs >= 3, "the feed should move some routes (\(differs) moved)")
    }

    /// A feed at every way's own free-flow speed changes nothing: the traffic route costs what the hierarchy's does.
    @Test func freeFlowFeedGivesTheFreeFlowRoute() throws {
        let router = try RoutingTestData.router(TestData.bellevueMap)
        let net = router.network
        var speeds: [Int64: Double] = [:]
        for e in net.edges {
            guard case let .osmWay(id) = e.sourceID else { continue }
            speeds[id] = max(speeds[id] ?? 0, e.attributes.speedKmh(forward: true), e.attributes.speedKmh(forward: false))
        }
        let feed = try TrafficFeed(speedsKmh: speeds)
        for (a, b) in RoutingPropertyTests.pairs(net, count: 20, seed: 3) where a.coordinate != b.coordinate {
            let request = RouteRequest(waypoints: [a, b])
            let free = router.routeChoice(request, alternatives: try AlternativeRouteOptions(count: 0))
            let traffic = router.routeChoice(request, alternatives: try AlternativeRouteOptions(count: 0), traffic: feed)
            #expect(free.options.first?.cost == traffic.options.first?.cost)
            if let f = free.options.first, let t = traffic.options.first {
                #expect(abs(f.trafficDuration - t.trafficDuration) < 1e-6)
            }
        }
    }

    /// With traffic, alternatives are checked with traffic costs: stretch against the traffic-optimal route.
    @Test func alternativesUnderTraffic() throws {
        let router = try RoutingTestData.router(TestData.bellevueMap)
        let net = router.network
        let feed = try Self.feed(net, every: 4, kmh: 12)
        var seen = 0
        for (a, b) in RoutingPropertyTests.pairs(net, count: 25, seed: 41) where a.coordinate != b.coordinate {
            let request = RouteRequest(waypoints: [a, b])
            let choice = router.routeChoice(request, alternatives: try AlternativeRouteOptions(count: 2), traffic: feed)
            guard let main = choice.options.first else { continue }
            #expect(main.route == router.route(request, traffic: feed).route)
            #expect(abs(main.trafficDuration - main.route.duration(traffic: feed, network: net)) < 1e-9)
            for alt in choice.options.dropFirst() {
                seen += 1
                #expect(Double(alt.cost) <= Double(main.cost) * 1.35 + 1)
                #expect(alt.overlap <= 0.8 + 1e-9)
                #expect(abs(alt.trafficDuration - alt.route.duration(traffic: feed, network: net)) < 1e-9)
            }
        }
        #expect(seen >= 5)
    }
}
