import Foundation
import RoadSnapCore
import Testing

/// `roadsnap route --alternatives` and `roadsnap navigate --serve` end to end on the Bellevue sample.
@Suite struct RouteChoiceCommandTests {
    @Test func routeWithAlternativesAsJSONAndText() throws {
        let args = ["route", "--map", TestData.bellevueMap, "--from", "47.5759,-122.1404", "--to", "47.5700,-122.0990",
                    "--alternatives", "2"]
        let json = try TestData.execute(NavigationCommandTests.binary, args + ["--format", "json"])
        #expect(json.status == 0, "\(json.err)")
        let o = try #require(try JSONSerialization.jsonObject(with: json.out) as? [String: Any])
        let alternatives = try #require(o["alternatives"] as? [[String: Any]])
        #expect(alternatives.count >= 1 && alternatives.count <= 2)
        let mainDistance = try #require(o["distance_m"] as? Double)
        #expect(o["traffic_duration_s"] as? Double == o["duration_s"] as? Double)
        for a in alternatives {
            let overlap = try #require(a["overlap"] as? Double), stretch = try #require(a["stretch"] as? Double)
            #expect(overlap <= 0.8 && stretch > 0 && stretch <= 0.35)
            #expect(a["distance_m"] as? Double != mainDistance)
            #expect((a["legs"] as? [[String: Any]])?.first?["steps"] != nil)
        }
        let text = try TestData.execute(NavigationCommandTests.binary, args)
        let out = String(decoding: text.out, as: UTF8.self)
        #expect(out.contains("alternative 1:") && out.contains("overlap") && out.contains("traffic ETA"))
        let bad = try TestData.execute(NavigationCommandTests.binary, args.dropLast() + ["-1"])
        #expect(bad.status != 0 && bad.err.contains("alternative count"))
    }

    /// A replayed drive served on a Unix socket: one consumer from the start, one joining a few seconds later.
    /// Each gets the joined line and the state, then a contiguous run of exactly the lines the command prints, up to
    /// the last; the later consumer's live lines are the tail of the earlier one's.
    @Test func navigateServesConsumersJoiningAtDifferentTimes() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let socketPath = dir.appendingPathComponent("feed.sock").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: NavigationCommandTests.binary)
        p.arguments = ["navigate", "--map", TestData.bellevueMap, "--replay", TestData.bellevueDrive, "--replay-speed",
                       "100", "--to", "47.5799,-122.1830", "--no-locations", "--serve", socketPath]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let printed = Locked<Data>(Data())
        let reader = Thread {
            printed.set(out.fileHandleForReading.readDataToEndOfFile())
        }
        try p.run()
        reader.start()
        var waited = 0.0
        while !FileManager.default.fileExists(atPath: socketPath), waited < 60 {
            Thread.sleep(forTimeInterval: 0.05); waited += 0.05
        }
        let early = try FeedConsumer(path: socketPath)
        let start = Date()
        var late: FeedConsumer? = nil
        while !early.closed || !(late?.closed ?? false) {
            early.drain(wait: 0.05)
            late?.drain(wait: 0.05)
            if late == nil, Date().timeIntervalSince(start) > 3 { late = try FeedConsumer(path: socketPath) }
            if Date().timeIntervalSince(start) > 120 { break }
            if late == nil, early.closed { break }
        }
        p.waitUntilExit()
        while reader.isExecuting || printed.get().isEmpty && !reader.isFinished { Thread.sleep(forTimeInterval: 0.05) }
        #expect(p.terminationStatus == 0)
        let stdout = String(decoding: printed.get(), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(stdout.count > 100)
        let lateConsumer = try #require(late, "the drive ended before the second consumer joined")
        var live: [[String]] = []
        for c in [early, lateConsumer] {
            let lines = c.lines
            let header = try #require(lines.first)
            #expect(header.hasPrefix(#"{"event":"feedJoined","state_lines":"#))
            let n = try #require(Int(header.split(separator: ":").last?.dropLast() ?? ""))
            #expect(lines.count > n + 1)
            let rest = Array(lines[(n + 1)...])
            // The live lines are exactly the printed tail (lines repeat, e.g. speeding percentages, so the join point
            // is where that tail starts), and every state line was printed before it.
            let first = stdout.count - rest.count
            try #require(first >= 0, "more live lines than printed")
            #expect(Array(stdout[first...]) == rest, "live lines are not exactly the printed tail")
            for s in lines[1..<(n + 1)] { #expect(stdout[..<first].contains(s)) }
            live.append(rest)
        }
        // The later consumer joins mid-drive: its state holds the latest line of every kind seen so far (the early
        // one's may already hold the initial lighting and delay events).
        let lateState = Int(lateConsumer.lines.first?.split(separator: ":").last?.dropLast() ?? "") ?? 0
        #expect(lateState >= 5, "the later consumer should get the current state first")
        #expect(live[0].count > live[1].count)
        #expect(Array(live[0].suffix(live[1].count)) == live[1])
        #expect(live[1].last?.contains("didArriveAtWaypoint") == true || live[1].last?.contains("NavInfo") == true)
    }
}
