import Dispatch
import Foundation
@testable import RoadSnapCore
import Testing

/// Records reroute offers (on the session's listener queue).
final class OfferRecorder: NavigatorListener, @unchecked Sendable {
    var offers: [RerouteOffer] = []
    var routeChanges = 0
    func navigator(_ navigator: Navigator, didOffer offer: RerouteOffer) { offers.append(offer) }
    func navigatorDidChangeRoute(_ navigator: Navigator) { routeChanges += 1 }
}

/// Route choice during guidance on the Bellevue sample: a chosen alternative, and faster-route offers when a
/// traffic feed slows the current route (virtual clock, simulated drive).
@Suite(.serialized) struct NavigationRouteChoiceTests {
    static let origin = waypoint(47.5759, -122.1404, "start")
    static let destination = waypoint(47.5700, -122.0990, "East")

    /// The main route and its first alternative for the trip, and the ways only the main route uses.
    static func trip() throws -> (main: Route, alternative: Route, mainOnlyWays: [Int64]) {
        let router = try NavigationFixtures.router(TestData.bellevueMap)
        let choice = router.routeChoice(RouteRequest(waypoints: [origin, destination]),
                                        alternatives: try AlternativeRouteOptions(count: 1))
        let main = try #require(choice.options.first?.route)
        let alternative = try #require(choice.options.dropFirst().first?.route)
        func ways(_ r: Route) -> Set<Int64> {
            Set(r.legs.flatMap(\.segments).compactMap { s -> Int64? in
                if case let .osmWay(id) = router.network.edges[s.edge].sourceID { return id } else { return nil }
            })
        }
        return (main, alternative, Array(ways(main).subtracting(ways(alternative))).sorted())
    }

    /// A feed that slows the main route to 5 km/h (where the alternative does not go) half a minute into the
    /// drive brings an offer within the check interval: its current ETA is the rest of the main route under
    /// traffic, the offered ETA at least 10 % lower; accepting it installs a route avoiding the slowed ways.
    /// Without a feed nothing is offered.
    @Test func slowedRouteBringsAFasterRouteOffer() throws {
        let (main, _, slowed) = try Self.trip()
        #expect(!slowed.isEmpty)
        let h = try Harness(map: TestData.bellevueMap, start: utc(2009, 1, 17, 20))
        let offers = OfferRecorder()
        let nav = h.session.navigator
        nav.add(offers)
        h.session.locationSimulator.simulateLocation(at: Self.origin.coordinate)
        #expect(h.setDestinations([Self.destination]) == .ok)
        #expect(nav.routeLegs.first?.segments.map(\.arc) == main.legs[0].segments.map(\.arc))
        nav.isGuidanceActive = true
        #expect(h.session.locationSimulator.simulateLocationsAlongExistingRoute())
        h.run(seconds: 30)
        #expect(h.onQueue { offers.offers.isEmpty })
        let feed = try TrafficFeed(speedsKmh: Dictionary(uniqueKeysWithValues: slowed.map { ($0, 5.0) }))
        nav.trafficFeed = feed
        h.run(seconds: 90) { !offers.offers.isEmpty }
        let offer = try #require(h.onQueue { offers.offers.first })
        #expect(offer.offeredETA <= offer.currentETA * 0.9)
        #expect(offer.savingPercent >= 10)
        #expect(abs(offer.offeredETA - offer.route.duration(traffic: feed, network: h.session.navigator.engine.network))
            < 1e-6)
        // The current ETA is the rest of the main route under the feed: far above even the whole main route at free
        // flow, and what the navigator reports as the time to go (its remaining time uses the feed's speeds too).
        #expect(offer.currentETA > main.duration * 1.5)
        #expect(abs(offer.currentETA / (nav.timeToNextDestination ?? 0) - 1) < 0.05)
        #expect(nav.pendingRerouteOffer == offer)
        let changesBefore = h.onQueue { offers.routeChanges }
        #expect(nav.acceptRerouteOffer())
        h.onQueue {}
        #expect(h.onQueue { offers.routeChanges } == changesBefore + 1)
        #expect(nav.pendingRerouteOffer == nil)
        #expect(nav.routeLegs.first?.segments.map(\.arc) == offer.route.legs[0].segments.map(\.arc))
        let network = try NavigationFixtures.router(TestData.bellevueMap).network
        // Past the way the car is on when the offer is made, the new route avoids every slowed way.
        let usesSlowed = offer.route.legs[0].segments.dropFirst().contains { s in
            if case let .osmWay(id) = network.edges[s.edge].sourceID { return feed.speedsKmh[id] != nil } else { return false }
        }
        #expect(!usesSlowed)
        #expect(!nav.acceptRerouteOffer(), "an offer is taken once")
        // The drive goes on to the destination on the new route.
        h.run(seconds: 900) { h.recorder.arrivals.count == 1 }
        #expect(h.onQueue { h.recorder.arrivals } == ["East"])
    }

    /// A route made on another map is refused, and the navigator keeps its route.
    @Test func routeFromAnotherMapIsRefused() throws {
        let monaco = try NavigationFixtures.router(NavigationFixtures.monaco)
        let foreign = try #require(monaco.route(RouteRequest(waypoints: [
            waypoint(43.7315, 7.4197, "a"), waypoint(43.7365, 7.4215, "b")])).route)
        let h = try Harness(map: TestData.bellevueMap, start: utc(2009, 1, 17, 20))
        #expect(throws: RoadSnapError.self) { try h.session.navigator.setRoute(foreign) }
        #expect(h.session.navigator.routeLegs.isEmpty)
    }

    /// `setRoute` guides along a chosen alternative: it becomes the route, guidance follows it to arrival.
    @Test func chosenAlternativeIsGuided() throws {
        let (_, alternative, _) = try Self.trip()
        let h = try Harness(map: TestData.bellevueMap, start: utc(2009, 1, 17, 20))
        let nav = h.session.navigator
        h.session.locationSimulator.simulateLocation(at: Self.origin.coordinate)
        h.run(seconds: 1)
        try nav.setRoute(alternative)
        h.onQueue {}
        #expect(nav.routeLegs.first?.segments.map(\.arc) == alternative.legs[0].segments.map(\.arc))
        nav.isGuidanceActive = true
        #expect(h.session.locationSimulator.simulateLocationsAlongExistingRoute())
        let driven = h.run(seconds: 900) { h.recorder.arrivals.count == 1 }
        // Driven at the simulator's speeds: about the alternative's free-flow duration.
        #expect(Double(driven) > alternative.duration * 0.7, "arrived after \(driven) s")
        h.onQueue {
            #expect(h.recorder.arrivals == ["East"])
            // No reroute: the route changed once (setRoute), and the drive stayed on it.
            #expect(h.recorder.count(.routeChanged) == 1)
        }
    }
}
