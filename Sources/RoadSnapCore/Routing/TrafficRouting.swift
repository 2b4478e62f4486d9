import RoadSnapBridge

/// Travel times under a traffic feed, for routing and ETAs: one definition shared by the router's re-weighted
/// turn graph, the traffic ETA of a route and the navigator's reroute offers.
extension TrafficFeed {
    /// Seconds to drive `length` metres of `edge` in a direction under the feed: length / min(traffic speed,
    /// free-flow speed) where the feed covers the edge's way (as `DelayClassifier` counts it), else the car
    /// profile's free-flow time. Ferries keep their timetable.
    public func seconds(_ edge: RoadEdge, length: Double, forward: Bool) -> Double {
        let free = CarProfile.seconds(edge, length: length, forward: forward)
        guard !edge.attributes.isFerry, let kmh = speedKmh(for: edge.sourceID) else { return free }
        let freeKmh = max(1, edge.attributes.speedKmh(forward: forward))
        return length / (min(kmh, freeKmh) / 3.6)
    }
}

extension Route {
    /// The route's duration under the traffic feed: each segment's free-flow travel time replaced by its traffic
    /// time (`TrafficFeed.seconds`), turn times kept. Equals `duration` where the feed covers none of the route.
    public func duration(traffic: TrafficFeed, network: RoadNetwork) -> Double {
        var total = 0.0
        for leg in legs {
            for s in leg.segments {
                let edge = network.edges[s.edge]
                let free = CarProfile.seconds(edge, length: s.distance, forward: s.isForward)
                total += s.duration - free + traffic.seconds(edge, length: s.distance, forward: s.isForward)
            }
        }
        return total
    }
}

extension TurnGraph {
    /// The same turns with every arc's travel time taken under the feed (`TrafficFeed.seconds`), with the car
    /// profile's access and avoid factors, in whole milliseconds as `init(network:...)` computes them.
    func reweighted(network: RoadNetwork, traffic: TrafficFeed, options: RoutingOptions) -> TurnGraph {
        // Arcs the feed does not cover keep their cost (the same formula at free flow); only covered arcs decode
        // their edge's attributes.
        var cost = Array(arcCost)
        for a in 0..<arcCount {
            guard network.graph.arcTail[a] >= 0 else { continue }
            let edge = network.edges[a >> 1]
            guard traffic.speedKmh(for: edge.sourceID) != nil else { continue }
            var s = traffic.seconds(edge, length: edge.length, forward: a & 1 == 0)
            if edge.attributes.access == .destination { s *= CarProfile.destinationAccessFactor }
            if CarProfile.avoids(edge.attributes, options: options) { s *= CarProfile.avoidFactor }
            cost[a] = Int32(min(Double(Int32.max / 8), (s * 1000).rounded()))
        }
        var turns = [Int32](repeating: 0, count: turnTarget.count)
        for k in 0..<turns.count {
            let b = Int(turnTarget[k])
            turns[k] = turnCost[k] - arcCost[b] + cost[b]
        }
        var reverse = [Int32](repeating: 0, count: reverseSource.count)
        for b in 0..<arcCount {
            for k in Int(reverseStart[b])..<Int(reverseStart[b + 1]) {
                reverse[k] = reverseCost[k] - arcCost[b] + cost[b]
            }
        }
        return TurnGraph(arcCount: arcCount, arcCost: MappedArray(cost), turnStart: turnStart,
                         turnTarget: turnTarget, turnCost: MappedArray(turns), reverseStart: reverseStart,
                         reverseSource: reverseSource, reverseCost: MappedArray(reverse))
    }
}
