import Foundation
import Testing

/// `roadsnap match` end to end: the binary next to the test bundle on the sample map and real tracks.
@Suite struct MatchCommandTests {
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("roadsnap").path
    }

    /// Runs `roadsnap match` with `stdin` on standard input; returns exit status, standard output and error.
    static func match(_ args: [String], stdin: Data? = nil) throws -> (status: Int32, out: String, err: String) {
        let r = try TestData.execute(binary, ["match", "--map", TestData.bellevueMap] + args, stdin: stdin)
        return (r.status, String(decoding: r.out, as: UTF8.self), r.err)
    }

    /// A folder of tracks: two pieces of the sample drive (one in a subfolder), issue-147's GPX, a truncated GPX,
    /// and files a directory scan must skip (hidden, not a track).
    static func trackFolder() throws -> (root: URL, tracks: URL) {
        let root = try TestData.temporaryDirectory()
        let tracks = root.appendingPathComponent("tracks")
        let fm = FileManager.default
        try fm.createDirectory(at: tracks.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let drive = try String(contentsOfFile: TestData.bellevueDrive, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let header = String(drive[0])
        try ([header] + drive[1...300].map(String.init)).joined(separator: "\n")
            .write(to: tracks.appendingPathComponent("a.csv"), atomically: true, encoding: .utf8)
        try ([header] + drive[301...600].map(String.init)).joined(separator: "\n")
            .write(to: tracks.appendingPathComponent("sub/c.csv"), atomically: true, encoding: .utf8)
        try fm.copyItem(atPath: TestData.fixture("graphhopper/issue-147.gpx"),
                        toPath: tracks.appendingPathComponent("b.gpx").path)
        let gpx = try String(contentsOfFile: TestData.fixture("graphhopper/issue-147.gpx"), encoding: .utf8)
        try String(gpx.prefix(gpx.count / 2)).write(to: tracks.appendingPathComponent("broken.gpx"), atomically: true,
                                                    encoding: .utf8)
        try header.write(to: tracks.appendingPathComponent(".hidden.csv"), atomically: true, encoding: .utf8)
        try "notes".write(to: tracks.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
        return (root, tracks)
    }

    @Test func directoryBatchReportsTheBadTrackAndWritesTheOthers() throws {
        let (root, tracks) = try Self.trackFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let out = root.appendingPathComponent("out")
        let r = try Self.match(["--out", out.path, "--jobs", "2", tracks.path])
        #expect(r.status == 1)
        let errors = r.err.split(separator: "\n").filter { $0.hasPrefix("roadsnap match:") }
        #expect(errors.count == 1)
        #expect(errors.first?.contains("broken.gpx") == true, "\(r.err)")
        #expect(r.err.contains("tracks: 3 done, 1 failed"), "\(r.err)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(written == ["a.matched.geojson", "b.matched.geojson", "c.matched.geojson"])
        let b = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("b.matched.geojson")))
        let features = try #require((b as? [String: Any])?["features"] as? [[String: Any]])
        let points = features.filter { ($0["geometry"] as? [String: Any])?["type"] as? String == "Point" }
        let gpx = try String(contentsOfFile: TestData.fixture("graphhopper/issue-147.gpx"), encoding: .utf8)
        #expect(points.count == gpx.components(separatedBy: "<trkpt").count - 1)
        #expect(features.count > points.count)
    }

    /// Issue 10: a batch holding the malformed files of `RoadSnapFormatsTests/Fixtures/bad/` (the 13-byte GPX that
    /// crashed XMLParser, invalid UTF-8, NUL bytes, entity expansion, a cut GeoJSON) and one good track: each bad one
    /// is reported with its file and position, the good one is matched, the exit status is 1.
    @Test func malformedFilesInABatchAreReportedAndTheRestMatched() throws {
        let root = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let tracks = root.appendingPathComponent("tracks")
        try FileManager.default.createDirectory(at: tracks, withIntermediateDirectories: true)
        let bad = TestData.testsDir.appendingPathComponent("../RoadSnapFormatsTests/Fixtures/bad").standardized
        let files = ["invalid-utf8-tag-name.gpx", "invalid-utf8-text.gpx", "nul-byte.gpx", "billion-laughs.gpx",
                     "invalid-utf8.geojson", "nul-byte.geojson", "truncated.geojson"]
        for f in files {
            try FileManager.default.copyItem(at: bad.appendingPathComponent(f), to: tracks.appendingPathComponent(f))
        }
        try FileManager.default.copyItem(atPath: TestData.fixture("graphhopper/issue-147.gpx"),
                                         toPath: tracks.appendingPathComponent("good.gpx").path)
        let out = root.appendingPathComponent("out")
        let r = try Self.match(["--out", out.path, "--jobs", "2", tracks.path])
        #expect(r.status == 1)
        #expect(r.err.contains("tracks: 1 done, \(files.count) failed"), "\(r.err)")
        let errors = r.err.split(separator: "\n").filter { $0.hasPrefix("roadsnap match:") }
        #expect(errors.count == files.count)
        for f in files {
            let line = errors.first { $0.contains("/" + f + ":") }
            #expect(line != nil, "\(f) not reported: \(r.err)")
            // GPX errors carry file:line:, JSON ones "at line L, column C (byte B)".
            let positioned = line.map { $0.contains(f + ":1:") || $0.contains(f + ":3:") || $0.contains(f + ":4:")
                || $0.contains(f + ":7:") || $0.contains(", column ") } ?? false
            #expect(positioned, "\(line ?? "")")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["good.matched.geojson"])
    }

    @Test func standardOutputIsInInputOrderAndTheSameForAnyJobCount() throws {
        let (root, tracks) = try Self.trackFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let files = ["a.csv", "b.gpx", "sub/c.csv"].map { tracks.appendingPathComponent($0).path }
        let one = try Self.match(["--format", "csv", "--jobs", "1"] + files)
        let two = try Self.match(["--format", "csv", "--jobs", "2"] + files)
        #expect(one.status == 0 && two.status == 0)
        #expect(one.out == two.out)
        let blocks = one.out.components(separatedBy: "fix_index,").dropFirst().map { $0.split(separator: "\n").count - 1 }
        #expect(blocks.count == 3)
        #expect(blocks.first == 300 && blocks.last == 300, "\(blocks)")
    }

    @Test func standardInputAndAListFile() throws {
        let (root, tracks) = try Self.trackFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = tracks.appendingPathComponent("a.csv")
        let byPath = try Self.match(["--format", "csv", a.path])
        let byStdin = try Self.match(["--format", "csv", "-"], stdin: try Data(contentsOf: a))
        #expect(byPath.status == 0 && byStdin.status == 0)
        #expect(!byPath.out.isEmpty && byPath.out == byStdin.out)
        let list = root.appendingPathComponent("list.txt")
        try "# tracks\n\(a.path)\n\n\(tracks.appendingPathComponent("sub/c.csv").path)\n"
            .write(to: list, atomically: true, encoding: .utf8)
        let listed = try Self.match(["--format", "csv", "--list", list.path])
        #expect(listed.status == 0)
        #expect(listed.out.hasPrefix(byPath.out))
        #expect(listed.err.contains("tracks: 2 done, 0 failed"), "\(listed.err)")
    }

    /// The flags beyond sigma, beta, radius and candidates reach the engine: the sample drive with 20 fixes cut out and
    /// the rest 2,000 s later (a slow gap: a few hundred metres in half an hour) splits by default and is bridged with
    /// `--max-gap 0`; `--off-road 0` keeps it whole; a `--min-fix-distance` of 300 m holds most fixes, which then lie on
    /// the path between the scored ones; out-of-range values are refused by the engine's one validation.
    @Test func gapHoldOutlierAndOffRoadFlagsReachTheEngine() throws {
        let root = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let lines = try String(contentsOfFile: TestData.bellevueDrive, encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        let iso = ISO8601DateFormatter()
        var rows = ["time,lat,lon"]
        for (k, line) in lines.dropFirst().enumerated() where k < 300 || (320..<600).contains(k) {
            let f = line.split(separator: ",")
            let t = try #require(iso.date(from: String(f[0]))).timeIntervalSince1970 + (k >= 320 ? 2000 : 0)
            rows.append("\(t),\(f[1]),\(f[2])")
        }
        let track = root.appendingPathComponent("gap.csv")
        try rows.joined(separator: "\n").write(to: track, atomically: true, encoding: .utf8)
        func subMatches(_ args: [String]) throws -> Int {
            let r = try Self.match(args + [track.path])
            #expect(r.status == 0, "\(r.err)")
            let doc = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
            let features = try #require(doc?["features"] as? [[String: Any]])
            return features.filter { ($0["geometry"] as? [String: Any])?["type"] as? String == "LineString" }.count
        }
        #expect(try subMatches([]) == 2)
        #expect(try subMatches(["--max-gap", "0"]) == 1)
        #expect(try subMatches(["--max-gap", "0", "--off-road", "0", "--max-outliers", "0", "--outlier-window", "0"]) == 1)
        let scored = try Self.match(["--format", "csv", track.path]), held = try Self.match(["--format", "csv",
                                                                                               "--min-fix-distance", "300", track.path])
        #expect(scored.status == 0 && held.status == 0)
        let rowsScored = scored.out.split(separator: "\n"), rowsHeld = held.out.split(separator: "\n")
        #expect(rowsScored.count == rowsHeld.count && rowsScored.count == rows.count)
        let moved = zip(rowsScored, rowsHeld).filter { $0 != $1 }.count
        #expect(moved > rows.count / 2, "\(moved) of \(rows.count) rows changed")
        for (flag, value, message) in [("--max-outliers", "-1", "max outliers must be in [0, 100000] fixes, got -1"),
                                       ("--outlier-window", "4000", "outlier window must be in [0, 3600] seconds, got 4000"),
                                       ("--off-road", "-2", "off-road distance must be in [0, 1000] sigmas, got -2"),
                                       ("--max-gap", "nan", "--max-gap expects a number, got 'nan'"),
                                       ("--min-fix-distance", "-5", "minimum fix distance must be in [0, 100000] metres, got -5")] {
            let r = try Self.match([flag, value, track.path])
            #expect(r.status == 2 && r.err.contains(message), "\(flag) \(value): \(r.err)")
        }
    }
}
