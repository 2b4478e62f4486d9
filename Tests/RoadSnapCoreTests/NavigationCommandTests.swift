import Foundation
import RoadSnapCore
import Testing

/// `roadsnap navigate` end to end: the binary next to the test bundle, its JSON-lines output parsed back.
@Suite struct NavigationCommandTests {
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("roadsnap").path
    }

    /// Runs the command; returns exit status, the events (one JSON object per line) and standard error.
    static func navigate(_ args: [String]) throws -> (status: Int32, events: [[String: Any]], stderr: String) {
        let r = try TestData.execute(binary, ["navigate"] + args)
        var events: [[String: Any]] = []
        for line in String(decoding: r.out, as: UTF8.self).split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            events.append(try #require(object, "not a JSON object: \(line)"))
        }
        return (r.status, events, r.err)
    }

    static func names(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["event"] as? String } }

    @Test func simulatedTwoStopDriveOnMonaco() throws {
        let r = try Self.navigate(["--map", TestData.fixture("osm/monaco.osm.pbf"), "--simulate", "--virtual-clock",
                                   "--from", "43.7315,7.4197", "--to", "43.7365,7.4215", "--to", "43.7445,7.4295",
                                   "--speed-multiplier", "200"])  // 200 times faster than the wall clock
        #expect(r.status == 0, "\(r.stderr)")
        let names = Self.names(r.events)
        #expect(names.count == r.events.count)  // every line names its callback
        #expect(names.filter { $0 == "didArriveAtWaypoint" }.count == 2)
        #expect(names.filter { $0 == "navigatorDidChangeRoute" }.count == 2)
        #expect(r.events.contains { $0["event"] as? String == "routeStatus" && $0["status"] as? String == "ok" })
        let navInfo = r.events.filter { $0["event"] as? String == "didUpdateNavInfo" }
        #expect(navInfo.contains { ($0["current_step"] as? [String: Any])?["instruction"] is String })
        #expect(navInfo.last?["nav_state"] as? String == "stopped")
        #expect(names.contains("didUpdateLocation") && names.contains("didUpdateRemainingDistance")
            && names.contains("didUpdateRemainingTime") && names.contains("didUpdateSpeedAlertSeverity"))
        // It ends after the last arrival.
        let lastArrival = try #require(names.lastIndex(of: "didArriveAtWaypoint"))
        #expect(names[lastArrival...].allSatisfy { $0 == "didArriveAtWaypoint" || $0 == "didUpdateNavInfo"
            || $0 == "didUpdateRemainingDistance" || $0 == "didUpdateRemainingTime" })
    }

    @Test func replayedRealDriveWithTrafficOnBellevue() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Every road at half its free-flow speed: a heavy delay.
        let feed = dir.appendingPathComponent("traffic.csv")
        let network = try TestData.bellevue()
        var lines = ["way_id,speed_kmh"]
        for e in network.edges {
            if case let .osmWay(id) = e.sourceID { lines.append("\(id),\(e.attributes.speedKmh(forward: true) / 2)") }
        }
        try lines.joined(separator: "\n").write(to: feed, atomically: true, encoding: .utf8)
        let r = try Self.navigate(["--map", TestData.bellevueMap, "--replay", TestData.bellevueDrive, "--replay-speed",
                                   "max", "--to", "47.5759,-122.1404", "--to", "47.5799,-122.1830",
                                   "--traffic", feed.path, "--no-locations"])
        #expect(r.status == 0, "\(r.stderr)")
        let names = Self.names(r.events)
        #expect(!names.contains("didUpdateLocation"))
        #expect(r.events.filter { $0["event"] as? String == "didArriveAtWaypoint" }.compactMap { $0["title"] as? String }
            == ["destination 1", "destination 2"])
        #expect(r.events.contains { $0["event"] as? String == "didUpdateNavInfo" && $0["nav_state"] as? String == "rerouting" })
        #expect(r.events.contains { $0["event"] as? String == "didUpdateDelayCategory"
            && $0["delay_category"] as? String == "heavy" })
    }

    /// A replayed fix PROJ refuses (90 degrees of longitude from the map's frame) becomes one `didSkipFix` line
    /// naming the fix and PROJ's reason; the run goes on and locates the fixes after it.
    @Test func aFixPROJRefusesIsOneDidSkipFixLine() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let network = try TestData.bellevue()
        var rows = try String(contentsOfFile: TestData.bellevueDrive, encoding: .utf8)
            .split(separator: "\n").prefix(41).map(String.init)  // the header and 40 fixes
        let farLongitude = network.frameCenter.longitude + 90
        let fields = rows[11].split(separator: ",")
        rows[11] = "\(fields[0]),0,\(farLongitude)"
        let track = dir.appendingPathComponent("drive.csv")
        try (rows.joined(separator: "\n") + "\n").write(to: track, atomically: true, encoding: .utf8)
        let r = try Self.navigate(["--map", TestData.bellevueMap, "--replay", track.path, "--replay-speed", "max",
                                   "--to", "47.5759,-122.1404"])
        #expect(r.status == 0, "\(r.stderr)")
        let skipped = r.events.filter { $0["event"] as? String == "didSkipFix" }
        try #require(skipped.count == 1, "\(Self.names(r.events))")
        let fix = try #require(skipped[0]["fix"] as? [Double])  // [latitude, longitude]
        #expect(fix.count == 2 && fix[0] == 0 && abs(fix[1] - farLongitude) < 1e-6, "\(fix)")
        #expect((skipped[0]["reason"] as? String ?? "").contains("outside"), "\(skipped[0])")
        let names = Self.names(r.events)
        let skip = try #require(names.firstIndex(of: "didSkipFix"))
        #expect(names[..<skip].contains("didUpdateLocation") && names[(skip + 1)...].contains("didUpdateLocation"))
    }

    @Test func badArgumentsFailWithAMessage() throws {
        let noMode = try Self.navigate(["--map", TestData.bellevueMap, "--to", "47.57,-122.14"])
        #expect(noMode.status != 0)
        #expect(noMode.stderr.contains("--simulate"))
        let badFeed = try Self.navigate(["--map", TestData.bellevueMap, "--to", "47.57,-122.14", "--replay",
                                         TestData.bellevueDrive, "--traffic", "/nonexistent/feed.csv"])
        #expect(badFeed.status != 0)
        #expect(badFeed.stderr.contains("/nonexistent/feed.csv"))
    }
}
