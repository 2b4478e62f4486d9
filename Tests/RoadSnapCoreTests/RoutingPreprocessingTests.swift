import RoadSnapBridge
@testable import RoadSnapCore
import Synchronization
import Testing

/// The parallel contraction (`HierarchyBuilder`, CShims/contract.c): exact on a tiled network, the same hierarchy on
/// any number of threads, progress reported, and a canceled build leaves nothing behind.
@Suite struct RoutingPreprocessingTests {
    /// 2x2 tiling of the real Andorra extract (8,256 edges, 16k turn-graph nodes; the tiles are joined by connector
    /// roads, so routes cross tiles): 300 random pairs, hierarchy cost == plain Dijkstra cost, and the unpacked path
    /// costs exactly that.
    @Test func contractionHierarchyEqualsDijkstraOnATiling() throws {
        let base = try RoadNetwork.load(osmPath: TestData.fixture("osm/andorra.osm.pbf"))
        let network = try base.tiled(rows: 2, columns: 2)
        #expect(network.edges.count > 4 * base.edges.count)  // four copies plus connector roads
        let router = Router(network: network)
        let prepared = router.profile(RoutingOptions())
        let g = prepared.graph
        let ch = try #require(prepared.hierarchy)
        let space = SearchSpace(count: g.arcCount)
        var reachable = 0, mismatches = 0, badPaths = 0, crossTile = 0
        let tileWidth = base.bounds.maxLongitude - base.bounds.minLongitude
        RoutingTestData.forEachRandomPair(g, network: network, seed: 2026, sources: 15, targetsPerSource: 20) {
            s, t, ends, reference in
            let fast = ch.route(ends, space: space)
            if reference != fast?.cost { mismatches += 1 }
            guard let fast else { return }
            reachable += 1
            if RoutingTestData.pathCost(g, arcs: fast.arcs, from: s, to: t) != fast.cost { badPaths += 1 }
            let lonS = network.shape[network.edges[s.arc >> 1].shapeStart].longitude
            let lonT = network.shape[network.edges[t.arc >> 1].shapeStart].longitude
            if abs(lonS - lonT) > tileWidth / 2 { crossTile += 1 }
        }
        #expect(mismatches == 0)
        #expect(badPaths == 0)
        #expect(reachable > 200)
        #expect(crossTile > 50)  // many routes use the connectors between tiles
        #expect(ch.shortcutCount > 0)
    }

    /// The C search (`rsc_ch_search_run`) answers as Dijkstra does with a workspace of the hierarchy's size, and
    /// refuses one sized for another hierarchy (no route rather than a read out of bounds). Monaco.
    @Test func hierarchySearchRefusesAWorkspaceOfAnotherSize() throws {
        let router = try RoutingTestData.router(RoutingTestData.monaco)
        let prepared = router.profile(RoutingOptions())
        let ch = try #require(prepared.hierarchy)
        let g = prepared.graph
        let right = SearchSpace(count: g.arcCount), wrong = SearchSpace(count: g.arcCount - 1)
        var found = 0
        for a in stride(from: 0, to: g.arcCount, by: 151) {
            let b = (a * 7 + 1_001) % g.arcCount
            let ends = SearchEnds(graph: g, from: [ArcPlace(arc: a, fraction: 0.5)], to: [ArcPlace(arc: b, fraction: 0.5)])
            let reference = TurnDijkstra.route(g, ends, space: right)?.cost
            #expect(ch.route(ends, space: right)?.cost == reference)
            guard reference != nil else { continue }
            found += 1
            #expect(ch.route(ends, space: wrong) == nil)
        }
        #expect(found > 10)
    }

    /// The sweep (no core: each side's upward-reachable nodes once, in rank order, the two sides interleaved) finds
    /// the cost the stall-on-demand Dijkstra finds (the same search with slot 0 taken as a core of one), from ends
    /// with offsets and two targets, and its meeting node's two labels add up to it; bounded at 1.25 times that cost
    /// (via paths), both leave the same via arcs with the same costs (Monaco).
    @Test func cheapestPathSweepEqualsStallOnDemandSearch() throws {
        let router = try RoutingTestData.router(RoutingTestData.monaco)
        let prepared = router.profile(RoutingOptions())
        let ch = try #require(prepared.hierarchy)
        #expect(ch.coreSize == 0)
        let g = prepared.graph
        let w = try #require(HierarchySearch(nodeCount: ch.nodeCount))
        var found = 0, met = 0, bounded = 0
        for a in stride(from: 0, to: g.arcCount, by: 41) {
            let b = (a * 13 + 501) % g.arcCount
            let ends = SearchEnds(graph: g, from: [ArcPlace(arc: a, fraction: 0.3)],
                                  to: [ArcPlace(arc: b, fraction: 0.7), ArcPlace(arc: (b + 1) % g.arcCount, fraction: 0.2)])
            func run(coreSize: Int, bound: Int64? = nil) -> (best: Int64, meet: Int)? {
                w.run(hierarchyNodeCount: ch.nodeCount, upStart: ch.upStart.baseAddress, upTarget: ch.upTarget.baseAddress,
                      upCost: ch.upCost.baseAddress, upLink: ch.upLink.baseAddress, downStart: ch.downStart.baseAddress,
                      downSource: ch.downSource.baseAddress, downCost: ch.downCost.baseAddress,
                      downLink: ch.downLink.baseAddress, slotOfNode: ch.slotOfNode.baseAddress,
                      nodeOfSlot: ch.nodeOfSlot.baseAddress, coreSize: coreSize,
                      sources: ends.sources.map { ($0.arc, $0.cost, -1) },
                      targets: ends.targets.map { ($0.arc, $0.cost, -2 - $0.target) },
                      direct: ends.direct?.cost ?? .max, bound: bound)
            }
            /// The via arcs a bounded run leaves: every arc reached forward whose two labels add up within the bound.
            func viaArcs(bound: Int64) -> [Int: Int64] {
                var out: [Int: Int64] = [:]
                for v in w.settled {
                    let f = w.label(v, backward: false), b = w.label(v, backward: true)
                    if f < .max, b < .max, f + b <= bound { out[v] = f + b }
                }
                return out
            }
            let sweep = try #require(run(coreSize: 0))
            if sweep.meet >= 0 {
                met += 1
                #expect(w.label(sweep.meet, backward: false) + w.label(sweep.meet, backward: true) == sweep.best)
            }
            let dijkstra = try #require(run(coreSize: 1))
            #expect(sweep.best == dijkstra.best)
            if sweep.best < .max { found += 1 } else { continue }
            // Bounded (via paths): the same via arcs with the same costs.
            let bound = sweep.best + sweep.best / 4
            _ = try #require(run(coreSize: 0, bound: bound))
            let sweptVia = viaArcs(bound: bound)
            _ = try #require(run(coreSize: 1, bound: bound))
            let dijkstraVia = viaArcs(bound: bound)
            #expect(sweptVia == dijkstraVia)
            if sweptVia.count > 1 { bounded += 1 }
        }
        #expect(found > 50)
        #expect(met > 50)
        #expect(bounded > 50)
    }

    /// The rounds are deterministic: one thread and two threads build identical arrays (Monaco).
    @Test func hierarchyIsTheSameOnOneAndTwoThreads() throws {
        let router = try RoutingTestData.router(RoutingTestData.monaco)
        let g = router.profile(RoutingOptions()).graph
        let one = try ContractionHierarchy(graph: g, control: BuildControl(threads: 1))
        let two = try ContractionHierarchy(graph: g, control: BuildControl(threads: 2))
        #expect(one.shortcutCount > 0)
        #expect(one.shortcutCount == two.shortcutCount)
        #expect(one.upStart == two.upStart && one.upTarget == two.upTarget && one.upCost == two.upCost)
        #expect(one.downStart == two.downStart && one.downSource == two.downSource && one.downLink == two.downLink)
        #expect(one.linkFirst == two.linkFirst && one.linkSecond == two.linkSecond)
    }

    /// The search graph is numbered by slot, highest rank first: the two maps are inverse permutations, ranks fall
    /// (never rise) along the slots, core nodes (greedy order with a small core degree) come first in node order,
    /// and every link lies at its lower end's slot pointing at its upper end's slot (Monaco).
    @Test(arguments: [HierarchyOrder.hybrid, .greedy])
    func searchGraphIsNumberedByRankHighestFirst(order: HierarchyOrder) throws {
        let router = try RoutingTestData.router(RoutingTestData.monaco)
        let g = router.profile(RoutingOptions()).graph
        let h = try HierarchyBuilder.build(nodeCount: g.arcCount, starts: Array(g.turnStart),
                                           targets: Array(g.turnTarget), costs: Array(g.turnCost),
                                           options: HierarchyBuildOptions(coreDegree: order == .greedy ? 6 : 128,
                                                                          order: order))
        let n = h.nodeCount
        #expect(h.slotOfNode.count == n && h.nodeOfSlot.count == n)
        for v in 0..<n { #expect(Int(h.nodeOfSlot[Int(h.slotOfNode[v])]) == v) }
        var core = 0
        for s in 1..<n { #expect(h.rank[Int(h.nodeOfSlot[s - 1])] >= h.rank[Int(h.nodeOfSlot[s])]) }
        for s in 0..<n where h.rank[Int(h.nodeOfSlot[s])] == Int32.max {
            core += 1
            if s > 0 { #expect(h.nodeOfSlot[s - 1] < h.nodeOfSlot[s]) }
        }
        #expect(core == h.coreSize)
        if order == .greedy { #expect(core > 0) }
        for s in 0..<n {
            let v = Int(h.nodeOfSlot[s])
            for k in Int(h.upStart[s])..<Int(h.upStart[s + 1]) {
                let l = Int(h.upLink[k]), w = Int(h.nodeOfSlot[Int(h.upTarget[k])])
                #expect(Int(h.linkTail[l]) == v && Int(h.linkHead[l]) == w && h.rank[w] >= h.rank[v])
            }
            for k in Int(h.downStart[s])..<Int(h.downStart[s + 1]) {
                let l = Int(h.downLink[k]), u = Int(h.nodeOfSlot[Int(h.downSource[k])])
                #expect(Int(h.linkTail[l]) == u && Int(h.linkHead[l]) == v && h.rank[u] >= h.rank[v])
            }
        }
    }

    /// Progress arrives phase by phase with fractions rising to 1, ending with the search graph.
    @Test func routerBuildReportsProgress() throws {
        let network = try RoutingTestData.router(RoutingTestData.monaco).network
        let seen = Mutex<[BuildProgress]>([])
        let router = try Router(network: network, control: BuildControl(progress: { p in seen.withLock { $0.append(p) } }))
        let reports = seen.withLock { $0 }
        #expect(router.hierarchyStatistics() != nil)
        let phases = reports.map(\.phase).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(phases == ["turn graph", "priorities", "contracting", "search graph"])
        let contracting = reports.filter { $0.phase == "contracting" }.map(\.fraction)
        #expect(contracting.count > 3)
        #expect(contracting == contracting.sorted())
        #expect(contracting.last == 1)
        #expect(reports.last == BuildProgress(phase: "search graph", fraction: 1))
    }

    /// Canceling mid-contraction (from the progress callback, as a UI's cancel button would between reports) and
    /// before the build starts both throw `.canceled` and make no router; the same network builds fine afterwards.
    @Test func canceledBuildThrowsAndMakesNoRouter() throws {
        let network = try RoutingTestData.router(RoutingTestData.monaco).network
        let cancellation = BuildCancellation()
        let afterCancel = Mutex(0)
        let control = BuildControl(progress: { p in
            if cancellation.isCanceled { afterCancel.withLock { $0 += 1 } }
            if p.phase == "contracting", p.fraction > 0.3 { cancellation.cancel() }
        }, cancellation: cancellation)
        var made: Router? = nil
        #expect(throws: RoadSnapError.canceled("routing hierarchy")) { made = try Router(network: network, control: control) }
        #expect(made == nil)
        #expect(cancellation.isCanceled)
        #expect(afterCancel.withLock { $0 } <= 1)  // stopped at the next check, not after the whole build

        let early = BuildCancellation()
        early.cancel()
        #expect(throws: RoadSnapError.canceled("routing hierarchy")) {
            _ = try Router(network: network, control: BuildControl(cancellation: early))
        }
        // A flag polled from elsewhere (as the C API's cancel pointer is).
        #expect(throws: RoadSnapError.canceled("routing hierarchy")) {
            _ = try Router(network: network, control: BuildControl(cancellation: BuildCancellation(polling: { true })))
        }
        #expect(try Router(network: network, control: BuildControl()).hierarchyStatistics() != nil)
    }

    /// Canceling inside the nested-dissection contraction (every "contracting" report of that order comes from it)
    /// stops it too, at the next check.
    @Test func cancelingTheNestedDissectionOrderStopsIt() throws {
        let router = try RoutingTestData.router(RoutingTestData.monaco)
        let g = router.profile(RoutingOptions()).graph
        let cancellation = BuildCancellation()
        let afterCancel = Mutex(0)
        let control = BuildControl(progress: { p in
            if cancellation.isCanceled { afterCancel.withLock { $0 += 1 } }
            if p.phase == "contracting", p.fraction > 0.5 { cancellation.cancel() }
        }, cancellation: cancellation)
        #expect(throws: RoadSnapError.canceled("routing hierarchy")) {
            _ = try ContractionHierarchy(graph: g, order: .nestedDissection, control: control)
        }
        #expect(cancellation.isCanceled)
        #expect(afterCancel.withLock { $0 } <= 1)
        #expect(try ContractionHierarchy(graph: g, order: .nestedDissection).coreSize == 0)
    }
}
