import Foundation
import RoadSnapCore
import RoadSnapFormats
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 16 end to end on the built `roadsnap`: a poisoned batch, a crash naming its track, SIGKILL mid-batch,
/// full disks and standard output, `--out` on links and devices, times no output can write, CSV quoting, limits.
@Suite struct ReliabilityCommandTests {
    static var binary: String { MatchCommandTests.binary }
    /// A small real network (Kubicka track 00000046's roads, GeoJSON).
    static let network = TestData.repoRoot
        .appendingPathComponent("Tests/RoadSnapFormatsTests/Fixtures/networks/kubicka-00000046.geojson").path
    static let badFixtures = TestData.repoRoot.appendingPathComponent("Tests/RoadSnapFormatsTests/Fixtures/bad")

    /// The first `count` fixes of Kubicka track 00000046 as `time,lat,lon` CSV rows (times in seconds), with
    /// `edit` applied to each (index, time) first.
    static func kubickaCSV(count: Int = 60, time edit: (Int, String) -> String = { $1 }) throws -> String {
        let rows = try String(contentsOfFile: TestData.fixture("kubicka/00000046/00000046.track"), encoding: .utf8)
            .split(separator: "\n").prefix(count).map { $0.split(separator: "\t").map(String.init) }
        var text = "time,lat,lon\n"
        for (i, r) in rows.enumerated() { text += "\(edit(i, r[2])),\(r[1]),\(r[0])\n" }
        return text
    }

    struct Run { var status: Int32; var signalled: Bool; var out: String; var err: String }

    /// Runs `roadsnap` with standard output into `stdoutPath` (a file, or a device such as /dev/full) or a temporary
    /// file; `prefix` runs it through `/bin/sh -c "PREFIX exec roadsnap ARGS"` (limits, traps).
    static func run(_ args: [String], stdoutPath: String? = nil, shellPrefix: String? = nil,
                    environment: [String: String] = [:], whileRunning: ((Process) throws -> Void)? = nil) throws -> Run
    {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let outPath = stdoutPath ?? dir.appendingPathComponent("stdout").path
        let errPath = dir.appendingPathComponent("stderr").path
        FileManager.default.createFile(atPath: errPath, contents: nil)
        if stdoutPath == nil { FileManager.default.createFile(atPath: outPath, contents: nil) }
        let p = Process()
        if let shellPrefix {
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            let quoted = ([binary] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            p.arguments = ["-c", "\(shellPrefix) exec \(quoted.joined(separator: " "))"]
        } else {
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = args
        }
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        for (k, v) in environment { env[k] = v }
        p.environment = env
        guard let out = FileHandle(forWritingAtPath: outPath), let err = FileHandle(forWritingAtPath: errPath) else {
            throw RoadSnapError.internalError("cannot open \(outPath) or \(errPath)")
        }
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        try whileRunning?(p)
        p.waitUntilExit()
        try out.close(); try err.close()
        let outText = stdoutPath == nil ? (try String(contentsOfFile: outPath, encoding: .utf8)) : ""
        return Run(status: p.terminationStatus, signalled: p.terminationReason == .uncaughtSignal, out: outText,
                   err: try String(contentsOfFile: errPath, encoding: .utf8))
    }

    // MARK: item 2: a time no output can write

    @Test func aTimeBeyondTheRangeIsASkippedRowInSnapMatchAndTheReader() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let track = dir.appendingPathComponent("huge-time.csv").path
        // Row 5 (line 5) gets 1e19 s: "Double value cannot be converted to Int64" in snap before issue 16.
        try Self.kubickaCSV(count: 10, time: { i, t in i == 3 ? "10000000000000000000.0" : t })
            .write(toFile: track, atomically: true, encoding: .utf8)
        let read = try TrackReader.read(path: track)
        #expect(read.fixes.count == 9)
        #expect(read.skipped.count == 1)
        #expect("\(read.skipped[0])".contains("huge-time.csv:5"))
        #expect("\(read.skipped[0])".contains("beyond ±1e11 s"))

        let snap = try Self.run(["snap", "--map", Self.network, track])
        #expect(snap.status == 0, "\(snap.err)")
        #expect(snap.err.contains("skipped \(track):5: time"))
        let snapRows = snap.out.split(separator: "\n").dropFirst()
        #expect(snapRows.count == 9)
        #expect(snapRows.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false)[1].count > 10 })

        let match = try Self.run(["match", "--map", Self.network, "--format", "csv", track])
        #expect(match.status == 0, "\(match.err)")
        let matchRows = match.out.split(separator: "\n").dropFirst()
        #expect(matchRows.count == 9)
        #expect(matchRows.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false)[1].count > 10 })
    }

    // MARK: item 3: a batch with bad tracks, and a crash naming its track

    @Test func aPoisonedBatchWritesEveryGoodTrackAndOneErrorLinePerBadOne() throws {
        let root = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let tracks = root.appendingPathComponent("tracks"), out = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: tracks, withIntermediateDirectories: true)
        let good = try Self.kubickaCSV()
        for name in ["a-good", "c-good", "e-good", "g-good"] {
            try good.write(to: tracks.appendingPathComponent("\(name).csv"), atomically: true, encoding: .utf8)
        }
        // Bad ones sort first and between the good ones: malformed XML, invalid UTF-8, no usable row, empty.
        let bad = ["0-invalid-utf8-attribute-name.gpx", "b-truncated.gpx", "d-no-usable-row.csv", "f-empty.csv"]
        try FileManager.default.copyItem(
            atPath: Self.badFixtures.appendingPathComponent("invalid-utf8-attribute-name.gpx").path,
            toPath: tracks.appendingPathComponent(bad[0]).path)
        try FileManager.default.copyItem(atPath: Self.badFixtures.appendingPathComponent("truncated-issue-70.gpx").path,
                                         toPath: tracks.appendingPathComponent(bad[1]).path)
        try "time,lat,lon\n1,95,2\n2,NaN,2\n".write(to: tracks.appendingPathComponent(bad[2]), atomically: true,
                                                   encoding: .utf8)
        try "".write(to: tracks.appendingPathComponent(bad[3]), atomically: true, encoding: .utf8)

        let r = try Self.run(["match", "--map", Self.network, "--jobs", "2", "--out", out.path, tracks.path])
        #expect(r.status == 1)
        #expect(r.err.contains("tracks: 4 done, 4 failed"), "\(r.err)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(written == ["a-good.matched.geojson", "c-good.matched.geojson", "e-good.matched.geojson",
                            "g-good.matched.geojson"])
        let errorLines = r.err.split(separator: "\n").filter { $0.hasPrefix("roadsnap match: ") }
        #expect(errorLines.count == 4)
        for name in bad {
            #expect(errorLines.filter { $0.contains(tracks.appendingPathComponent(name).path) }.count == 1, "\(name)")
        }
    }

    /// A track that crashes the process is named: the batch blocks reading a FIFO (one job: the main thread), gets
    /// SIGSEGV, and standard error says which track it was on; the process still dies of the signal.
    @Test func aCrashNamesTheTrackBeingMatched() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("blocking.csv").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Under AddressSanitizer (`make sanitize-asan`), ASan's own SEGV handler would report the signal and exit 1
        // instead of dying of it: handle_segv=0 leaves SIGSEGV to roadsnap's handler and the default action, as in
        // an uninstrumented build (where the option is ignored).
        let asanOptions = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        let r = try Self.run(["match", "--map", Self.network, "--jobs", "1", fifo],
                             environment: ["ASAN_OPTIONS": asanOptions + "handle_segv=0"]) { p in
            // Wait until a thread of the child is blocked opening the FIFO (openat, syscall 257 on x86_64; 56 on arm64).
            let pid = p.processIdentifier
            var blocked = false
            for _ in 0..<600 where !blocked {
                let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
                for t in tasks {
                    let call = (try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/syscall", encoding: .utf8)) ?? ""
                    let number = call.split(separator: " ").first.map(String.init) ?? ""
                    if number == "257" || number == "56" { blocked = true }
                }
                if !blocked { usleep(50_000) }
            }
            #expect(blocked)
            kill(pid, SIGSEGV)
        }
        #expect(r.signalled)
        #expect(r.status == SIGSEGV)
        #expect(r.err.contains("roadsnap match: crashed while matching \(fifo)"), "\(r.err)")
    }

    // MARK: item 4 / 8 and the kill test: outputs written atomically, through links and devices, leftovers cleaned

    @Test func outFollowsSymbolicLinksWritesThroughDevicesAndRefusesDirectories() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let track = dir.appendingPathComponent("t.csv").path
        try Self.kubickaCSV().write(toFile: track, atomically: true, encoding: .utf8)
        let target = dir.appendingPathComponent("target.csv").path, link = dir.appendingPathComponent("link.csv").path
        try "old".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.csv")
        let viaLink = try Self.run(["snap", "--map", Self.network, "--out", link, track])
        #expect(viaLink.status == 0, "\(viaLink.err)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.csv")
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("fix_index,"))

        let intoDevice = try Self.run(["snap", "--map", Self.network, "--out", "/dev/full", track])
        #expect(intoDevice.status == 1)
        #expect(intoDevice.err.contains("/dev/full: cannot write file: No space left on device"), "\(intoDevice.err)")
        var info = stat()
        #expect(stat("/dev/full", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)

        let intoNull = try Self.run(["snap", "--map", Self.network, "--out", "/dev/null", track])
        #expect(intoNull.status == 0, "\(intoNull.err)")
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)

        let intoDirectory = try Self.run(["snap", "--map", Self.network, "--out", dir.path, track])
        #expect(intoDirectory.status == 1)
        #expect(intoDirectory.err.contains("is a directory"))

        let dangling = dir.appendingPathComponent("dangling.csv").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "missing/nothing.csv")
        let intoDangling = try Self.run(["snap", "--map", Self.network, "--out", dangling, track])
        #expect(intoDangling.status == 1)
        #expect(intoDangling.err.contains("symbolic link"))
    }

    @Test func temporariesOfAKilledRunAreRemovedByTheNextRun() throws {
        let root = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let out = root.appendingPathComponent("out"), track = root.appendingPathComponent("t.csv").path
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Self.kubickaCSV().write(toFile: track, atomically: true, encoding: .utf8)
        // PID 99999999 is above Linux's pid_max (4194304): no process has it.
        let stale = ".t.matched.geojson.99999999.k2x9a.tmp"
        let kept = [".t.matched.geojson.notapid.k2x9a.tmp", ".hidden", "other.tmp"]
        for name in [stale] + kept { try "x".write(to: out.appendingPathComponent(name), atomically: false, encoding: .utf8) }
        let r = try Self.run(["match", "--map", Self.network, "--out", out.path, track])
        #expect(r.status == 0, "\(r.err)")
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
        #expect(left == Set(kept + ["t.matched.geojson"]))
    }

    /// SIGKILL in the middle of a batch writing 100 outputs: every output file present is complete JSON (no partial
    /// file under an output name), and the next run leaves no temporary file behind.
    @Test func sigkillMidBatchLeavesNoPartialOutputAndTheNextRunCleansUp() throws {
        let root = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let tracks = root.appendingPathComponent("tracks"), out = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: tracks, withIntermediateDirectories: true)
        let text = try Self.kubickaCSV(count: 600)
        for i in 0..<100 {
            try text.write(to: tracks.appendingPathComponent(String(format: "t%03d.csv", i)), atomically: true,
                           encoding: .utf8)
        }
        let args = ["match", "--map", Self.network, "--jobs", "2", "--out", out.path, tracks.path]
        let killed = try Self.run(args) { p in
            // Kill once some outputs exist (mid-batch): finished ones, not the temporaries being streamed into.
            for _ in 0..<6000 {
                let n = (try? FileManager.default.contentsOfDirectory(atPath: out.path))?
                    .filter { !$0.hasPrefix(".") }.count ?? 0
                if n >= 3 { break }
                usleep(10_000)
            }
            kill(p.processIdentifier, SIGKILL)
        }
        #expect(killed.signalled && killed.status == SIGKILL)
        func outputs() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".") }
        }
        let partial = try outputs()
        #expect(partial.count >= 2 && partial.count < 100, "\(partial.count) outputs")
        for name in partial {
            let data = try Data(contentsOf: out.appendingPathComponent(name))
            #expect((try? JSONSerialization.jsonObject(with: data)) != nil, "\(name) is not complete JSON")
        }
        let again = try Self.run(args)
        #expect(again.status == 0, "\(again.err)")
        let all = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(all.count == 100)
        #expect(all.allSatisfy { !$0.hasSuffix(".tmp") })
    }

    // MARK: item 5 and the disk-full test: write errors are errors, previous outputs stay

    @Test func aFullStandardOutputIsAnErrorForEveryCommand() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let track = dir.appendingPathComponent("t.csv").path
        try Self.kubickaCSV().write(toFile: track, atomically: true, encoding: .utf8)
        let commands: [[String]] = [
            ["snap", "--map", Self.network, track],
            ["match", "--map", Self.network, track],
            ["info", "--map", Self.network],
            ["route", "--map", Self.network, "--from", "48.5113,2.970154", "--to", "48.514949,2.963533"],
        ]
        for args in commands {
            let ok = try Self.run(args, stdoutPath: "/dev/null")
            #expect(ok.status == 0, "\(args[0]): \(ok.err)")
            let full = try Self.run(args, stdoutPath: "/dev/full")
            #expect(full.status == 1, "\(args[0])")
            #expect(full.err.contains("roadsnap \(args[0]): cannot write standard output: No space left on device"),
                    "\(args[0]): \(full.err)")
        }
    }

    /// A file system that refuses more bytes (a 1 KiB file size limit, `ulimit -f`, with SIGXFSZ ignored): the run
    /// fails naming the output and why, and the output of the previous run is intact.
    @Test func aFullDiskFailsClearlyAndKeepsThePreviousOutput() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let track = dir.appendingPathComponent("t.csv").path, out = dir.appendingPathComponent("out")
        try Self.kubickaCSV().write(toFile: track, atomically: true, encoding: .utf8)
        let args = ["match", "--map", Self.network, "--out", out.path, track]
        let first = try Self.run(args)
        #expect(first.status == 0, "\(first.err)")
        let output = out.appendingPathComponent("t.matched.geojson").path
        let before = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(before.count > 4096)
        let full = try Self.run(args, shellPrefix: "trap '' XFSZ; ulimit -f 2;")
        #expect(full.status == 1)
        #expect(full.err.contains("\(output): cannot write file: File too large"), "\(full.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["t.matched.geojson"])
    }

    // MARK: item 7: CSV quoting in snap

    @Test func snapQuotesAnEdgeIDHoldingACommaOrQuote() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let map = dir.appendingPathComponent("ids.geojson").path
        let network = try String(contentsOfFile: Self.network, encoding: .utf8)
        // The same roads with ids that need quoting.
        var id = 0
        var text = ""
        var rest = Substring(network)
        while let r = rest.range(of: "\"id\": ") {
            text += rest[..<r.lowerBound] + "\"id\": \"road,\\\"\(id)\\\"\""
            id += 1
            rest = rest[r.upperBound...].drop(while: { $0.isNumber })
        }
        text += rest
        try text.write(toFile: map, atomically: true, encoding: .utf8)
        let track = dir.appendingPathComponent("t.csv").path
        try Self.kubickaCSV().write(toFile: track, atomically: true, encoding: .utf8)
        let r = try Self.run(["snap", "--map", map, track])
        #expect(r.status == 0, "\(r.err)")
        let rows = r.out.split(separator: "\n").dropFirst()
        #expect(rows.count == 60)
        for row in rows {
            #expect(row.contains(",\"road,\"\""))
            #expect(Self.csvFields(String(row)).count == 11, "\(row)")
        }
    }

    /// The fields of one CSV row (RFC 4180 quoting).
    static func csvFields(_ row: String) -> [String] {
        var fields: [String] = [], field = "", quoted = false
        var chars = Array(row)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" { if chars.first == "\"" { field.append("\""); chars.removeFirst() } else { quoted = false } }
                else { field.append(c) }
            } else if c == "\"" { quoted = true } else if c == "," { fields.append(field); field = "" } else { field.append(c) }
        }
        return fields + [field]
    }

    // MARK: items 9 and 10: messages and limits

    @Test func emptyOrDirectoryMapPathsAreIOErrors() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let track = dir.appendingPathComponent("t.csv").path
        try Self.kubickaCSV().write(toFile: track, atomically: true, encoding: .utf8)
        for (map, reason) in [("", "the path is empty"), (dir.path, "is a directory"),
                              (dir.appendingPathComponent("none.osm.pbf").path, "no such file")]
        {
            let r = try Self.run(["snap", "--map", map, track])
            #expect(r.status == 1)
            #expect(r.err.contains("\(map): cannot read file: \(reason)"), "\(r.err)")
        }
    }

    @Test func jobsBelowOneAreRefused() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let track = dir.appendingPathComponent("t.csv").path
        try Self.kubickaCSV().write(toFile: track, atomically: true, encoding: .utf8)
        for jobs in ["0", "-1"] {
            let r = try Self.run(["match", "--map", Self.network, "--jobs", jobs, track])
            #expect(r.status == 2)  // a usage error
            #expect(r.err.contains("--jobs must be at least 1, got \(jobs)"), "\(r.err)")
        }
    }

    @Test func osmWaysWithMissingNodesAreWarnedAbout() throws {
        let r = try Self.run(["info", "--map", TestData.fixture("osm/issue-70-missing-node.osm.gz")])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("warning:"))
        #expect(r.err.contains("1 of 24 road ways reference 1 node(s) missing from the file (first: way 121298628)"),
                "\(r.err)")
        let whole = try Self.run(["info", "--map", TestData.fixture("osm/issue-70.osm.gz")])
        #expect(!whole.err.contains("warning"))
        var warnings: [String] = []
        let cut = try RoadNetwork.load(osmPath: TestData.fixture("osm/issue-70-missing-node.osm.gz"),
                                       warn: { warnings.append($0) })
        let full = try RoadNetwork.load(osmPath: TestData.fixture("osm/issue-70.osm.gz"))
        #expect(warnings.count == 1)
        // The cut way keeps its located runs (its first three nodes and its last two): shorter, not gone.
        func length(_ n: RoadNetwork) -> Double {
            n.edges.filter { $0.sourceID == .osmWay(121298628) }.reduce(0) { $0 + $1.length }
        }
        #expect(length(cut) > 0)
        #expect(length(cut) < length(full) - 1)
    }

    @Test func geoJSONFeaturesThatAreNotCarRoadsAreLeftOut() throws {
        let text = """
            {"type": "FeatureCollection", "features": [
            {"type": "Feature", "id": 1, "properties": {"highway": "residential"},
             "geometry": {"type": "LineString", "coordinates": [[2.9635, 48.5149], [2.9640, 48.5150]]}},
            {"type": "Feature", "id": 2, "properties": {"highway": "footway"},
             "geometry": {"type": "LineString", "coordinates": [[2.9635, 48.5149], [2.9635, 48.5160]]}},
            {"type": "Feature", "id": 3, "properties": {"highway": "cycleway"},
             "geometry": {"type": "LineString", "coordinates": [[2.9640, 48.5150], [2.9650, 48.5160]]}},
            {"type": "Feature", "id": 4, "properties": {"oneway": true},
             "geometry": {"type": "LineString", "coordinates": [[2.9640, 48.5150], [2.9660, 48.5150]]}},
            {"type": "Feature", "id": 5, "properties": {"highway": "road"},
             "geometry": {"type": "LineString", "coordinates": [[2.9660, 48.5150], [2.9670, 48.5150]]}}
            ]}
            """
        var warnings: [String] = []
        let network = try GeoJSONNetworkReader.read(bytes: Array(text.utf8), name: "mixed.geojson",
                                                    warn: { warnings.append($0) })
        #expect(Set(network.edges.map(\.sourceID)) == [.number(1), .number(4), .number(5)])  // highway=road is a road
        #expect(warnings == ["mixed.geojson: left out 2 feature(s) whose highway is not a car road: "
                                 + "highway=cycleway (1), highway=footway (1)"])
    }
}
