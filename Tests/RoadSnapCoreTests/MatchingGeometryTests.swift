import Testing
import RoadSnapBridge
@testable import RoadSnapCore
import RoadSnapFormats

/// The matched path's geometry (one walk per path step) against the obvious construction: each step's two ends
/// placed by `coordinate(onEdge:offset:)`, the edge's vertices strictly between them, reversed against the geometry
/// direction, repeated points dropped. Real Kubicka tracks at 1 s and 30 s (paths with many steps per fix, U-turns).
@Suite struct MatchingGeometryTests {
    static func reference(_ steps: [PathStep], _ network: RoadNetwork) -> [GeoCoordinate] {
        var points: [GeoCoordinate] = []
        for st in steps {
            let edge = RoadGraph.edge(ofArc: st.arc), forward = RoadGraph.isForward(st.arc)
            let from = st.from, to = max(st.from, st.to)
            let len = network.edges[edge].length
            let g0 = forward ? from : len - to, g1 = forward ? to : len - from
            var piece = [network.coordinate(onEdge: edge, offset: g0)]
            var acc = 0.0
            let r = network.edges[edge].shapeRange
            for i in r.lowerBound..<(r.upperBound - 1) {
                let a = network.localShape[i], b = network.localShape[i + 1]
                acc += ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
                if acc > g0 && acc < g1 { piece.append(network.shape[i + 1]) }
            }
            piece.append(network.coordinate(onEdge: edge, offset: g1))
            if !forward { piece.reverse() }
            for p in piece where points.last != p { points.append(p) }
        }
        return points
    }

    /// Checks every sub-match of `result`; returns the steps seen and how many ran against their edge's geometry.
    static func check(_ result: MatchResult, _ network: RoadNetwork, _ label: String) -> (steps: Int, backward: Int) {
        var steps = 0, backward = 0
        #expect(!result.subMatches.isEmpty, "\(label)")
        for sub in result.subMatches {
            #expect(sub.geometry == Self.reference(sub.steps, network), "\(label) fixes \(sub.firstFix)...")
            #expect(!sub.geometry.isEmpty)
            steps += sub.steps.count
            backward += sub.steps.filter { !RoadGraph.isForward($0.arc) }.count
        }
        return (steps, backward)
    }

    @Test(arguments: [0.0, 30.0])
    func pathGeometryEqualsThePerStepConstruction(interval: Double) throws {
        var steps = 0
        for name in ["00000005", "00000046", "00000072", "00000090"] {
            let k = try KubickaTrack.load(directory: TestData.fixture("kubicka/\(name)"))
            let track = interval > 0 ? k.track.subsampled(every: interval) : k.track
            steps += Self.check(try MapMatcher(network: k.network).match(track), k.network, "\(name)").steps
        }
        #expect(steps > 20)
        // The OSM sample drive: two-way edges, so steps run both with and against their edge's geometry.
        let network = try TestData.bellevue()
        var drive = try TrackReader.read(path: TestData.bellevueDrive)
        if interval > 0 { drive = drive.subsampled(every: interval) }
        let (n, backward) = Self.check(try MapMatcher(network: network).match(drive), network, "sample drive")
        #expect(n > 20 && backward > 0 && backward < n)
    }
}
