import Testing
@testable import RoadSnapCore
import RoadSnapFormats

/// The route search between far-apart fixes: one goal-directed search from all of the previous fix's candidates at
/// once (`MatchParameters.jointSearchInterval`) against one search per candidate arc, on real Kubicka tracks.
@Suite struct MatchingSparseTests {
    static func edges(_ result: MatchResult, _ network: RoadNetwork) -> [String] {
        result.subMatches.flatMap { result.edgeSourceIDs(of: $0, in: network) }.map(\.description)
    }

    @Test(arguments: [10.0, 30.0, 60.0])
    func jointSearchMatchesLikeOneSearchPerCandidate(interval: Double) throws {
        for name in ["00000005", "00000046", "00000072"] {
            let k = try KubickaTrack.load(directory: TestData.fixture("kubicka/\(name)"))
            let track = k.track.subsampled(every: interval)
            var perArc = MatchParameters()
            perArc.jointSearchInterval = .infinity
            var joint = MatchParameters()
            joint.jointSearchInterval = 0
            let a = try MapMatcher(network: k.network, parameters: perArc).match(track)
            let b = try MapMatcher(network: k.network, parameters: joint).match(track)
            #expect(Self.edges(a, k.network) == Self.edges(b, k.network), "\(name) at \(interval) s")
            #expect(a.subMatches.count == b.subMatches.count)
            #expect(a.matchedCount == b.matchedCount)
        }
    }

    @Test func goalDirectionChangesNothingButTheWork() throws {
        // The same graph with and without node positions: A* toward the next fix and plain Dijkstra agree.
        let k = try KubickaTrack.load(directory: TestData.fixture("kubicka/00000005"))
        let g = k.network.graph
        let plain = try MatchGraph(nodeCount: g.nodeCount, outStart: Array(g.outStart), outArcs: Array(g.outArcs),
                                   arcTail: Array(g.arcTail), arcHead: Array(g.arcHead),
                                   arcLength: Array(g.arcLength), reverseArc: Array(g.reverseArc), restrictions: [])
        let positioned = try MatchGraph(network: k.network)
        let track = k.track.subsampled(every: 30)
        let a = try MapMatcher(network: k.network, graph: plain).match(track)
        let b = try MapMatcher(network: k.network, graph: positioned).match(track)
        #expect(Self.edges(a, k.network) == Self.edges(b, k.network))
        #expect(a.fixes == b.fixes)
    }

    @Test func nodePositionsAreChecked() throws {
        let k = try KubickaTrack.load(directory: TestData.fixture("kubicka/00000005"))
        let graph = try MatchGraph(network: k.network)
        #expect(throws: NativeFailure.self) { try graph.setNodePositions(x: [0], y: [0]) }
        let n = k.network.graph.nodeCount
        var x = [Double](repeating: 0, count: n)
        x[0] = .nan
        #expect(throws: NativeFailure.self) { try graph.setNodePositions(x: x, y: [Double](repeating: 0, count: n)) }
    }
}
