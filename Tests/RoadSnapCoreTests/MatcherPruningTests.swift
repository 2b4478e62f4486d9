import Foundation
import Testing
@testable import RoadSnapCore
import RoadSnapFormats

/// The pruning of a batch run's Viterbi states and route entries (`CShims/match_prune.c`, issue 16 item 11) keeps
/// every result as it was. Big tracks prune from 65,536 states; here the thresholds are lowered so short real
/// tracks prune hundreds of times, and the results are compared with an unpruned run, value for value.
@Suite struct MatcherPruningTests {
    static func check(network: RoadNetwork, track: Track) throws {
        let plain = try MapMatcher(network: network)
        let expected = try plain.match(track)
        #expect(plain.engine.setPruning(states: 0, entries: 0) == 0, "a short track is not pruned by default")
        let pruned = try MapMatcher(network: network)
        pruned.engine.setPruning(states: 64, entries: 64)
        let got = try pruned.match(track)
        let prunes = pruned.engine.setPruning(states: 64, entries: 64)
        #expect(prunes > 100, "\(track.name): pruned \(prunes) times")
        #expect(expected.matchedCount > track.fixes.count / 2)
        #expect(got == expected, "\(track.name)")
        // A second run on the same matcher (buffers pruned and resized by the first) answers the same.
        #expect(try pruned.match(track) == expected)
    }

    @Test func pruningLeavesTheBellevueMatchUnchanged() throws {
        let network = try MapLoader.load(path: TestData.sample("bellevue-issue147.osm.gz"))
        let track = try TrackReader.read(path: TestData.sample("newson-krumm-bellevue.csv"))
        try Self.check(network: network, track: track)
    }

    @Test func pruningLeavesAKubickaMatchUnchanged() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("00000046.csv").path
        try ReliabilityCommandTests.kubickaCSV(count: 100_000).write(toFile: path, atomically: true, encoding: .utf8)
        let network = try MapLoader.load(path: ReliabilityCommandTests.network)
        try Self.check(network: network, track: try TrackReader.read(path: path))
    }
}
