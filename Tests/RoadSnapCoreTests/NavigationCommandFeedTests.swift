import Foundation
import RoadSnapCore
import Testing

/// `roadsnap navigate` guiding its user and a head unit (issue 15): prompts in the feed, WAV files, reasons for
/// failures, coordinate checks, navigator options from flags, time compression on the virtual clock.
@Suite struct NavigationCommandFeedTests {
    static let monaco = TestData.fixture("osm/monaco.osm.pbf")
    static func events(_ r: (status: Int32, events: [[String: Any]], stderr: String), _ name: String) -> [[String: Any]] {
        r.events.filter { $0["event"] as? String == name }
    }

    @Test func simulatedDriveHasPromptsTitlesAndRoadSpeedsWhenTimeIsCompressed() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let start = Date()
        let r = try NavigationCommandTests.navigate([
            "--map", Self.monaco, "--simulate", "--virtual-clock", "--from", "43.7315, 7.4197", "--to", "43.7445,7.4295",
            "--title", "Larvotto", "--speed-multiplier", "400", "--units", "imperial", "--arrival-radius", "25",
            "--speed-alert", "10,30,4", "--distance-threshold", "50", "--speak", dir.path])
        let wall = Date().timeIntervalSince(start)
        #expect(r.status == 0, "\(r.stderr)")
        let prompts = Self.events(r, "announcement")
        #expect(prompts.count >= 5)
        #expect(prompts.contains { $0["kind"] as? String == "preparation" && ($0["text"] as? String ?? "").contains(" feet, ") })
        #expect(prompts.contains { $0["kind"] as? String == "now" })
        // One WAV file per prompt, named by time, a RIFF header inside.
        let wavs = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".wav") }
        #expect(wavs.count == prompts.count)
        if let first = wavs.first {
            let data = try Data(contentsOf: dir.appendingPathComponent(first))
            #expect(data.count > 1000 && data.prefix(4) == Data("RIFF".utf8))
        }
        #expect(Self.events(r, "didArriveAtWaypoint").compactMap { $0["title"] as? String } == ["Larvotto"])
        // The multiplier compresses time on the virtual clock: the car keeps road speeds (Monaco's roads are <= 90 km/h).
        let speeds = Self.events(r, "didUpdateLocation").compactMap { $0["speed_mps"] as? Double }
        #expect(!speeds.isEmpty && speeds.allSatisfy { $0 <= 26 })
        let duration = Self.events(r, "navigatorDidChangeRoute").first?["duration_s"] as? Double ?? 0
        #expect(wall >= 0.5 * duration / 400)  // paced, not as fast as possible
        // Distance reports move by the threshold set from the command line.
        let d = Self.events(r, "didUpdateRemainingDistance").compactMap { $0["distance_m"] as? Double }.filter { $0 > 0 }
        for (a, b) in zip(d, d.dropFirst()) { #expect(abs(a - b) >= 50) }
        let info = try #require(Self.events(r, "didUpdateNavInfo").first { $0["nav_state"] as? String == "enroute" })
        #expect(info["remaining_steps"] is [[String: Any]] && info["speed_limit_kmh"] != nil)
    }

    @Test func simulatorJitterAndPauseFromTheCommandLine() throws {
        let r = try NavigationCommandTests.navigate([
            "--map", Self.monaco, "--simulate", "--virtual-clock", "--from", "43.7315,7.4197", "--to", "43.7445,7.4295",
            "--jitter", "6", "--pause", "20,10", "--time-threshold", "30"])
        #expect(r.status == 0, "\(r.stderr)")
        let locations = Self.events(r, "didUpdateLocation")
        // Ten simulated seconds standing still from the 20th, then on again.
        let speeds = locations.compactMap { $0["speed_mps"] as? Double }
        var longest = 0, run = 0
        for v in speeds.dropFirst(3) { run = v == 0 ? run + 1 : 0; longest = max(longest, run) }
        #expect(longest >= 9 && longest <= 11)
        // Raw fixes moved off the road by the jitter.
        let offsets = locations.compactMap { $0["distance_from_fix_m"] as? Double }
        #expect(offsets.filter { $0 > 2 }.count * 3 >= offsets.count)
        // Remaining time reported only on changes of 30 s or more (and the arrival's zero).
        let t = Self.events(r, "didUpdateRemainingTime").compactMap { $0["time_s"] as? Double }.filter { $0 > 0 }
        for (a, b) in zip(t, t.dropFirst()) { #expect(abs(a - b) >= 30) }
    }

    @Test func replayOnATerminalShowsAProgressLine() throws {
        // util-linux `script` (Debian's essential bsdutils) gives the command a terminal.
        let command = ([NavigationCommandTests.binary, "navigate", "--map", TestData.bellevueMap, "--replay",
                        TestData.bellevueDrive, "--replay-speed", "max", "--to", "47.5759,-122.1404", "--no-locations"])
            .map { "'\($0)'" }.joined(separator: " ")
        let r = try TestData.execute("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(r.status == 0)
        let lines = String(decoding: r.out, as: UTF8.self).split(whereSeparator: { $0 == "\r" || $0 == "\n" })
        let progress = lines.filter { $0.contains("replayed 0:") && $0.contains(" fixes, ") && $0.contains(" reroute") }
        #expect(!progress.isEmpty)
        // Without a terminal (the other tests) no progress is written.
        let plain = try NavigationCommandTests.navigate(["--map", TestData.bellevueMap, "--replay", TestData.bellevueDrive,
                                                         "--replay-speed", "max", "--to", "47.5759,-122.1404", "--no-locations"])
        #expect(!plain.stderr.contains("replayed"))
    }

    @Test func coordinatesOffTheMapAndFailedRoutesSaySo() throws {
        func run(_ to: String) throws -> (status: Int32, events: [[String: Any]], stderr: String) {
            try NavigationCommandTests.navigate(["--map", Self.monaco, "--simulate", "--virtual-clock",
                                                 "--from", "43.7315,7.4197", "--to", to, "--no-locations"])
        }
        let swapped = try run("7.4295,43.7445")
        #expect(swapped.status != 0 && swapped.stderr.contains("looks swapped") && swapped.stderr.contains("43.7445,7.4295"))
        let outside = try run("48.85,2.35")
        #expect(outside.status != 0 && outside.stderr.contains("outside the map"))
        // Two kilometres out at sea: inside the map's box, no road near it; the reason is printed.
        let sea = try run("43.72,7.46")
        #expect(sea.status != 0)
        let status = try #require(Self.events(sea, "routeStatus").first)
        #expect(status["status"] as? String == "waypointError")
        #expect((status["message"] as? String ?? "").contains("no road within"))
        #expect(sea.stderr.contains("no road within"))
        let badUnits = try NavigationCommandTests.navigate(["--map", Self.monaco, "--simulate", "--from", "43.7315,7.4197",
                                                            "--to", "43.7445,7.4295", "--units", "furlongs"])
        #expect(badUnits.status != 0 && badUnits.stderr.contains("--units"))
    }
}
