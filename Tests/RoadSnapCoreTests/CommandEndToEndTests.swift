import Foundation
import RoadSnapCore
import RoadSnapFormats
import Testing

/// `info`, `snap`, `route`, `eval` and `match`'s tuning flags run through the real binary on the sample map and drive,
/// each checked against what the library computes in-process or against a value derived independently (issue 18).
@Suite struct CommandEndToEndTests {
    static func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try CommandLineTests.run(args)
    }

    /// The first `rows` fixes of the sample drive as a CSV file in `dir`.
    static func drivePiece(rows: Int, in dir: URL) throws -> String {
        let lines = try String(contentsOfFile: TestData.bellevueDrive, encoding: .utf8).split(separator: "\n")
        let path = dir.appendingPathComponent("piece.csv").path
        try (lines.prefix(rows + 1).joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func infoCountsWhatTheNetworkHolds() throws {
        let network = try TestData.bellevue()
        let r = try Self.run(["info", "--map", TestData.bellevueMap])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        #expect(lines.contains("edges: \(network.edges.count)"))
        #expect(lines.contains("nodes: \(network.nodes.count)"))
        #expect(lines.contains("turn restrictions: \(network.turnRestrictions.count)"))
        let total = try #require(lines.first { $0.hasPrefix("  total") }?.split(separator: " ").last.flatMap { Double($0) })
        let km = network.edges.reduce(0) { $0 + $1.length } / 1000
        #expect(abs(total - km) < 0.01, "\(total) km printed, \(km) km in the network")
    }

    @Test func snapCSVHasOneRowPerFixAndHonoursTheRadius() throws {
        let network = try TestData.bellevue()
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        let wide = try Self.run(["snap", "--map", TestData.bellevueMap, TestData.bellevueDrive])
        #expect(wide.status == 0, "\(wide.err)")
        let rows = wide.out.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.count == track.fixes.count)
        // Row k: the fix's own coordinate, and the snapped point at the printed distance from it.
        let snapper = try Snapper(network: network)
        for (k, row) in rows.enumerated() where k % 50 == 0 {
            #expect(Int(row[0]) == k)
            #expect(abs(Double(row[2])! - track.fixes[k].coordinate.latitude) < 1e-7)
            let snapped = try GeoCoordinate(latitude: Double(row[6])!, longitude: Double(row[7])!)
            let a = try snapper.project(snapped), b = try snapper.project(track.fixes[k].coordinate)
            let d = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
            #expect(abs(d - Double(row[8])!) < 0.01, "fix \(k): \(d) vs \(row[8])")
        }
        let narrow = try Self.run(["snap", "--map", TestData.bellevueMap, "--radius", "2", TestData.bellevueDrive])
        let narrowRows = narrow.out.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(narrowRows.count == track.fixes.count)
        let snappedNarrow = narrowRows.filter { $0[4] == "true" }
        #expect(snappedNarrow.count < rows.count / 2 && !snappedNarrow.isEmpty)
        #expect(snappedNarrow.allSatisfy { Double($0[8])! <= 2 })
    }

    @Test func routeJSONEqualsTheRouterInProcess() throws {
        let network = try TestData.bellevue()
        let from = try GeoCoordinate(latitude: 47.58193, longitude: -122.11226)
        let to = try GeoCoordinate(latitude: 47.57605, longitude: -122.16935)
        let r = try Self.run(["route", "--map", TestData.bellevueMap, "--from", "47.58193,-122.11226",
                              "--to", "47.57605,-122.16935", "--format", "json"])
        #expect(r.status == 0, "\(r.err)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        let result = Router(network: network).route(RouteRequest(waypoints: [Waypoint(coordinate: from),
                                                                             Waypoint(coordinate: to)]))
        let route = try #require(result.route)
        #expect(abs((json["distance_m"] as? Double ?? 0) - route.distance) < 0.1)
        #expect(abs((json["duration_s"] as? Double ?? 0) - route.duration) < 0.1)
        let geojson = try Self.run(["route", "--map", TestData.bellevueMap, "--from", "47.58193,-122.11226",
                                    "--to", "47.57605,-122.16935", "--format", "geojson"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(geojson.out.utf8)) as? [String: Any])
        #expect(doc["type"] as? String == "FeatureCollection")
        let text = try Self.run(["route", "--map", TestData.bellevueMap, "--from", "47.58193,-122.11226",
                                 "--to", "47.57605,-122.16935"])
        #expect(text.status == 0 && text.out.contains("Your destination is ahead"), "\(text.out.prefix(300))")
    }

    @Test func evalScoresAgainstATruthFile() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let piece = try Self.drivePiece(rows: 400, in: dir)
        let out = dir.appendingPathComponent("out")
        let m = try Self.run(["match", "--map", TestData.bellevueMap, "--out", out.path, piece])
        #expect(m.status == 0, "\(m.err)")
        let matched = out.appendingPathComponent("piece.matched.geojson").path
        let ids = try MatchedPathReader.edgeIDs(path: matched)
        #expect(ids.count > 3)
        // Truth = the match itself: no mismatch. Truth with one more way: that way's length is missing.
        let network = try TestData.bellevue()
        var lengths: [String: Double] = [:]
        for e in network.edges { lengths[e.sourceID.description, default: 0] += e.length }
        let truthLength = ids.reduce(0) { $0 + lengths[$1]! }  // a way driven twice counts twice
        let extra = try #require(lengths.keys.sorted().first { !ids.contains($0) && lengths[$0]! > 100 })
        let same = dir.appendingPathComponent("same.txt").path, more = dir.appendingPathComponent("more.txt").path
        try ids.joined(separator: "\n").write(toFile: same, atomically: true, encoding: .utf8)
        try (ids + [extra]).joined(separator: "\n").write(toFile: more, atomically: true, encoding: .utf8)
        let zero = try Self.run(["eval", "--map", TestData.bellevueMap, "--truth", same, matched])
        #expect(zero.status == 0, "\(zero.err)")
        #expect(zero.out.hasPrefix("route_mismatch=0.000000 "), "\(zero.out)")
        let one = try Self.run(["eval", "--map", TestData.bellevueMap, "--truth", more, matched])
        let value = try #require(one.out.split(separator: " ").first?.split(separator: "=").last.flatMap { Double($0) })
        let expected = lengths[extra]! / (truthLength + lengths[extra]!)
        #expect(abs(value - expected) < 1e-5, "\(one.out) expected \(expected)")
    }

    /// Each of `--sigma`, `--beta`, `--radius`, `--candidates` reaches the matcher: the CLI's CSV equals an in-process
    /// match with that parameter set, and differs from the defaults' output.
    @Test func everyMatchTuningFlagReachesTheMatcher() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let piece = try Self.drivePiece(rows: 400, in: dir)
        let network = try TestData.bellevue()
        let track = try TrackReader.read(path: piece)
        func cli(_ flags: [String]) throws -> String {
            let r = try Self.run(["match", "--map", TestData.bellevueMap, "--format", "csv"] + flags + [piece])
            #expect(r.status == 0, "\(flags): \(r.err)")
            return r.out
        }
        func inProcess(autoSigma: Bool = false, _ change: (inout MatchParameters) -> Void) throws -> String {
            var p = MatchParameters()
            change(&p)
            let matcher = try MapMatcher(network: network, parameters: p)
            if autoSigma, let s = try matcher.estimateSigma(track) { matcher.parameters.sigma = s }
            let result = try matcher.match(track)
            return MatchOutput.csv(result, track: track, network: network)
        }
        let defaults = try cli([])
        #expect(defaults == (try inProcess { _ in }))
        let auto = try cli(["--sigma", "auto"])
        #expect(auto == (try inProcess(autoSigma: true) { _ in }))
        #expect(auto != defaults)
        let cases: [([String], (inout MatchParameters) -> Void)] = [
            (["--sigma", "25"], { $0.sigma = 25; $0.raiseSigmaToTrack = false }),
            (["--beta", "0.05"], { $0.beta = 0.05 }),
            (["--radius", "4"], { $0.radius = 4 }),
            (["--candidates", "1"], { $0.maxCandidates = 1 }),
        ]
        for (flags, change) in cases {
            let out = try cli(flags)
            #expect(out == (try inProcess(change)), "\(flags)")
            #expect(out != defaults, "\(flags) changed nothing")

        }
    }
}
