import Foundation
import RoadSnapCore
import RoadSnapFormats

/// Open time and memory of source maps versus compiled maps (`.rsmap`), each open measured in a fresh child
/// process (`Benchmarks compiled-open ...`): wall time of `MapLoader.load` and VmRSS before and after it. Maps: the
/// sample, Monaco, Andorra, and the 10x10 and 22x22 (~1 M edges) Andorra tilings, which are built in memory
/// (their "source" open is the build from the Andorra extract) and compiled directly from the in-memory network.
/// Then two processes open the same compiled map, touch all of it, and report Rss and Pss from smaps_rollup.
/// `swift run -c release Benchmarks compiled [--skip-1m] [--no-routing-1m]`.
enum CompiledMapBenchmark {
    static let directory = "/tmp/roadsnap-compiled-bench"
    static let andorra = "Tests/RoadSnapCoreTests/Fixtures/osm/andorra.osm.pbf"

    struct MapCase {
        var name: String
        var source: String  // a file, or "tile:N" for an N x N Andorra tiling built in memory
        var compiled: String
    }

    static func run(_ args: [String]) throws {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var cases = [
            MapCase(name: "sample (Bellevue)", source: "Samples/bellevue-issue147.osm.gz", compiled: "\(directory)/bellevue.rsmap"),
            MapCase(name: "Monaco", source: "Tests/RoadSnapCoreTests/Fixtures/osm/monaco.osm.pbf", compiled: "\(directory)/monaco.rsmap"),
            MapCase(name: "Andorra", source: andorra, compiled: "\(directory)/andorra.rsmap"),
            MapCase(name: "Andorra 10x10 tiling", source: "tile:10", compiled: "\(directory)/andorra-10x10.rsmap"),
        ]
        if !args.contains("--skip-1m") {
            cases.append(MapCase(name: "Andorra 22x22 tiling", source: "tile:22", compiled: "\(directory)/andorra-22x22.rsmap"))
        }
        // Compile (skipped when the file exists and is not stale; tilings are rebuilt only when missing).
        for c in cases {
            if FileManager.default.fileExists(atPath: c.compiled) {
                if c.source.hasPrefix("tile:") { continue }
                if let n = try? CompiledMap.open(path: c.compiled), CompiledMap.isStale(n) == false { continue }
            }
            let t0 = nowNanoseconds()
            let network = try load(c.source)
            let t1 = nowNanoseconds()
            let routing = !(c.source == "tile:22" && args.contains("--no-routing-1m"))
            try CompiledMap.compile(network, to: c.compiled, sourcePath: c.source.hasPrefix("tile:") ? nil : c.source,
                                    routing: routing)
            let t2 = nowNanoseconds()
            print("compiled \(c.name): \(network.edges.count) edges, read/build \(fmt(Double(t1 - t0) / 1e9, 2, width: 0)) s, "
                  + "compile\(routing ? " (with hierarchy)" : " (no hierarchy)") \(fmt(Double(t2 - t1) / 1e9, 2, width: 0)) s")
        }
        let me = CommandLine.arguments[0]
        print("map                      edges | source: open s   RSS MB | compiled (verify all): open ms  RSS MB"
              + " | (verify lazy): open ms  RSS MB | file MB  bytes/edge")
        for c in cases {
            // Warm the page cache once, then medians of fresh processes.
            _ = try child(me, ["compiled-open", c.compiled, "all"])
            let sourceRuns = try (0..<(c.source.hasPrefix("tile:") ? 1 : 3)).map { _ in try child(me, ["compiled-open", c.source, "all"]) }
            let full = try (0..<9).map { _ in try child(me, ["compiled-open", c.compiled, "all"]) }
            let lazy = try (0..<9).map { _ in try child(me, ["compiled-open", c.compiled, "lazy"]) }
            func median(_ runs: [OpenRun], _ f: (OpenRun) -> Double) -> Double {
                let v = runs.map(f).sorted()
                return v[v.count / 2]
            }
            let size = Double((try FileManager.default.attributesOfItem(atPath: c.compiled)[.size] as? NSNumber)?.intValue ?? 0)
            let edges = full[0].edges
            print("\(c.name.padded(22)) \(fmt(Double(edges), 0, width: 7)) | "
                  + "\(fmt(median(sourceRuns, \.seconds), 2, width: 13)) \(fmt(median(sourceRuns, \.rssMB), 1, width: 8)) | "
                  + "\(fmt(median(full, \.seconds) * 1000, 2, width: 30)) \(fmt(median(full, \.rssMB), 1, width: 7)) | "
                  + "\(fmt(median(lazy, \.seconds) * 1000, 2, width: 22)) \(fmt(median(lazy, \.rssMB), 1, width: 7)) | "
                  + "\(fmt(size / 1e6, 1, width: 7)) \(fmt(size / Double(edges), 0, width: 11))")
            print("  p99-ish (max of 9) compiled open: \(fmt(full.map(\.seconds).max()! * 1000, 2, width: 0)) ms (verify all), "
                  + "\(fmt(lazy.map(\.seconds).max()! * 1000, 2, width: 0)) ms (lazy); process RSS after open: source "
                  + "\(fmt(median(sourceRuns, \.totalMB), 1, width: 0)) MB, compiled \(fmt(median(full, \.totalMB), 1, width: 0)) MB")
        }
        // Two processes on the same compiled map, each having touched all of it.
        let shared = cases.first { $0.source == "tile:10" } ?? cases[0]
        let a = try SharingChild(me, shared.compiled), b = try SharingChild(me, shared.compiled)
        let ra = a.rollup(), rb = b.rollup()
        print("two processes on \(shared.name) (\(shared.compiled)), every page touched: "
              + "A Rss \(fmt(ra.rss / 1024, 1, width: 0)) MB Pss \(fmt(ra.pss / 1024, 1, width: 0)) MB, "
              + "B Rss \(fmt(rb.rss / 1024, 1, width: 0)) MB Pss \(fmt(rb.pss / 1024, 1, width: 0)) MB "
              + "(file-backed shared: A \(fmt(ra.sharedClean / 1024, 1, width: 0)) MB)")
        a.finish(); b.finish()
    }

    static func load(_ source: String) throws -> RoadNetwork {
        if source.hasPrefix("tile:"), let n = Int(source.dropFirst(5)) {
            return try MapLoader.load(path: andorra).tiled(rows: n, columns: n)
        }
        return try MapLoader.load(path: source)
    }

    struct OpenRun {
        var seconds: Double, rssMB: Double, totalMB: Double, edges: Int
    }

    /// Runs `Benchmarks compiled-open PATH MODE` and parses its one line.
    static func child(_ me: String, _ args: [String]) throws -> OpenRun {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: me)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("OPEN ") } ?? ""
        let f = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard f.count == 4 else { throw RoadSnapError.internalError("child \(args) printed \(String(decoding: data, as: UTF8.self))") }
        return OpenRun(seconds: f[0], rssMB: (f[2] - f[1]) / 1024, totalMB: f[2] / 1024, edges: Int(f[3]))
    }

    /// The child side: opens one map and prints `OPEN seconds rssBeforeKB rssAfterKB edges`.
    static func openChild(_ args: [String]) throws {
        guard args.count >= 3 else { return }
        let path = args[1], lazy = args[2] == "lazy"
        let before = statusKB("VmRSS")
        let t0 = nowNanoseconds()
        let network = try load(path, lazy: lazy)
        let t1 = nowNanoseconds()
        let after = statusKB("VmRSS")
        print("OPEN \(Double(t1 - t0) / 1e9) \(before) \(after) \(network.edges.count)")
        withExtendedLifetime(network) {}
    }

    static func load(_ path: String, lazy: Bool) throws -> RoadNetwork {
        path.hasPrefix("tile:") ? try load(path) : try MapLoader.load(path: path, verification: lazy ? .lazy : .all)
    }

    /// The sharing child: opens, touches every array, snaps, prints READY and waits for its standard input to close.
    static func shareChild(_ args: [String]) throws {
        guard args.count >= 2 else { return }
        let network = try CompiledMap.open(path: args[1])
        var sum = 0.0
        for c in network.nodes { sum += c.latitude }
        for c in network.shape { sum += c.longitude }
        for p in network.localShape { sum += p.x }
        for e in network.edges { sum += e.length }
        for a in network.graph.arcLength { sum += a }
        for a in network.graph.outArcs { sum += Double(a) }
        for a in network.graph.inArcs { sum += Double(a) }
        let snapper = try Snapper(network: network)
        var k = 0
        while k < network.shape.count {
            // (within the cache radius: the per-process GEOS STRtree is only built for larger radii)
            if let s = try snapper.snap(Fix(coordinate: network.shape[k]), radius: 50) { sum += s.distance }
            k += 7
        }
        let router = Router(network: network)  // maps the stored hierarchy
        _ = router.cost(from: Waypoint(coordinate: network.nodes[0]), to: Waypoint(coordinate: network.nodes[network.nodes.count / 2]))
        print("READY \(sum)")
        fflush(nil)
        _ = FileHandle.standardInput.readDataToEndOfFile()
        withExtendedLifetime((network, snapper, router)) {}
    }

    final class SharingChild {
        let process = Process()
        let input = Pipe()
        init(_ me: String, _ path: String) throws {
            process.executableURL = URL(fileURLWithPath: me)
            process.arguments = ["compiled-share", path]
            let out = Pipe()
            process.standardOutput = out
            process.standardInput = input
            try process.run()
            var text = ""
            while !text.contains("READY") {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { break }
                text += String(decoding: d, as: UTF8.self)
            }
        }
        func rollup() -> (rss: Double, pss: Double, sharedClean: Double) {
            let text = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/smaps_rollup", encoding: .utf8)) ?? ""
            func kb(_ key: String) -> Double {
                for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
                    return Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0
                }
                return 0
            }
            return (kb("Rss"), kb("Pss"), kb("Shared_Clean"))
        }
        func finish() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    static func statusKB(_ key: String) -> Double {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
