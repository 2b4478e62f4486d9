import Foundation
@testable import RoadSnapCore
import Testing

/// Routers on real extracts, built once per test process.
enum RoutingTestData {
    nonisolated(unsafe) static var routers: [String: Router] = [:]
    static let lock = NSLock()

    static func router(_ path: String) throws -> Router {
        lock.lock(); defer { lock.unlock() }
        if let r = routers[path] { return r }
        let network = path == TestData.bellevueMap ? try TestData.bellevue() : try RoadNetwork.load(osmPath: path)
        let r = Router(network: network)
        routers[path] = r
        return r
    }

    static var monaco: String { TestData.fixture("osm/monaco.osm.pbf") }

    /// Cost of a path recomputed from the turn graph's link costs (checks the unpacked arcs, not the label).
    static func pathCost(_ g: TurnGraph, arcs: [Int], from s: ArcPlace, to t: ArcPlace) -> Int64? {
        func part(_ p: ArcPlace) -> Int64 { Int64((Double(g.arcCost[p.arc]) * p.fraction).rounded()) }
        guard arcs.first == s.arc, arcs.last == t.arc else { return nil }
        if arcs.count == 1 { return part(t) - part(s) }
        var c = Int64(g.arcCost[s.arc]) - part(s)
        for k in 1..<arcs.count {
            guard let turn = g.turnOnly(from: arcs[k - 1], to: arcs[k]) else { return nil }
            c += Int64(turn) + Int64(g.arcCost[arcs[k]])
        }
        return c - Int64(g.arcCost[t.arc]) + part(t)
    }

    /// Seeded random pairs of places on the network's allowed arcs, `sources` × `targetsPerSource`: `body` gets each
    /// source and target, their search ends and the reference cost from one Dijkstra to all arcs per source.
    static func forEachRandomPair(_ g: TurnGraph, network: RoadNetwork, seed: UInt64, sources: Int,
                                  targetsPerSource: Int,
                                  _ body: (ArcPlace, ArcPlace, SearchEnds, Int64?) throws -> Void) rethrows
    {
        let arcs = (0..<g.arcCount).filter { network.graph.arcTail[$0] >= 0 }
        var rng = SeededGenerator(seed: seed)
        func randomPlace() -> ArcPlace {
            ArcPlace(arc: arcs.randomElement(using: &rng)!, fraction: Double.random(in: 0...1, using: &rng))
        }
        for _ in 0..<sources {
            let s = randomPlace()
            let all = TurnDijkstra.costsToAll(g, sources: SearchEnds(graph: g, from: [s], to: []).sources)
            for _ in 0..<targetsPerSource {
                let t = randomPlace()
                let ends = SearchEnds(graph: g, from: [s], to: [t])
                try body(s, t, ends, TurnDijkstra.cost(to: ends, costs: all))
            }
        }
    }
}

@Suite struct RoutingAlgorithmTests {
    /// 1,000 random pairs (50 sources x 20 targets, random arcs and positions on them) on the Monaco extract: the
    /// contraction hierarchy gives exactly the plain Dijkstra cost, and its unpacked path costs exactly that: the
    /// default build (hybrid order: rounds, then a nested-dissection top, no core); the greedy order with contraction
    /// stopped early (`coreDegree` 6), so the core's bidirectional Dijkstra is checked too; and the nested-dissection
    /// order for every node.
    enum Build: CaseIterable, Sendable { case defaultBuild, greedyWithCore, nestedDissection }

    @Test(arguments: Build.allCases)
    func contractionHierarchyEqualsDijkstraOnAThousandPairs(build: Build) throws {
        let router = try RoutingTestData.router(RoutingTestData.monaco)
        let prepared = router.profile(RoutingOptions())
        let g = prepared.graph
        let ch: ContractionHierarchy
        switch build {
        case .defaultBuild: ch = try #require(prepared.hierarchy)
        case .greedyWithCore: ch = try ContractionHierarchy(graph: g, coreDegree: 6, order: .greedy)
        case .nestedDissection: ch = try ContractionHierarchy(graph: g, order: .nestedDissection)
        }
        if build == .greedyWithCore { #expect(ch.coreSize > 100) } else { #expect(ch.coreSize == 0) }
        let space = SearchSpace(count: g.arcCount)
        var pairs = 0, reachable = 0, mismatches = 0, badPaths = 0
        RoutingTestData.forEachRandomPair(g, network: router.network, seed: 44, sources: 50, targetsPerSource: 20) {
            s, t, ends, reference in
            let fast = ch.route(ends, space: space)
            let single = TurnDijkstra.route(g, ends, space: space)
            pairs += 1
            if reference != fast?.cost || reference != single?.cost { mismatches += 1 }
            if let fast {
                reachable += 1
                if RoutingTestData.pathCost(g, arcs: fast.arcs, from: s, to: t) != fast.cost { badPaths += 1 }
            }
        }
        #expect(pairs == 1000)
        #expect(mismatches == 0)
        #expect(badPaths == 0)
        #expect(reachable > 800)  // the pairs are mostly connected: the comparison is not vacuous
        #expect(ch.shortcutCount > 0)
    }

    /// The public API agrees too: routes by the hierarchy and by Dijkstra have the same cost on random coordinates.
    @Test func routerAlgorithmsAgreeOnRandomCoordinates() throws {
        let fast = try RoutingTestData.router(RoutingTestData.monaco)
        let slow = Router(network: fast.network, algorithm: .dijkstra)
        var rng = SeededGenerator(seed: 9)
        let b = fast.network.bounds
        var compared = 0
        for _ in 0..<40 {
            func random() -> Waypoint {
                Waypoint(coordinate: b.randomCoordinate(using: &rng))
            }
            let a = random(), z = random()
            let c1 = fast.cost(from: a, to: z), c2 = slow.cost(from: a, to: z)
            #expect(c1 == c2)
            if c1 != nil { compared += 1 }
        }
        #expect(compared > 10)
    }
}
