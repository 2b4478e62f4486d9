import Foundation
import Testing
import RoadSnapCore
import RoadSnapFormats

/// `roadsnap match --input ndjson --format ndjson` (issue 17): tracks on standard input, one per line; results one per
/// line in input order, the same as the file-based `match`; a bad line is an error line and the stream goes on.
@Suite struct MatchStreamTests {
    /// Runs `roadsnap match ARGS < file` (standard input from a file, so no pipe can fill up both ways).
    static func stream(_ args: [String], input: URL) throws -> (status: Int32, out: String, err: String) {
        let r = try TestData.execute("/bin/sh", ["-c", "in=$1; shift; exec \"$0\" match \"$@\" < \"$in\"",
                                                 MatchCommandTests.binary, input.path, "--map", TestData.bellevueMap]
                                         + args)
        return (r.status, String(decoding: r.out, as: UTF8.self), r.err)
    }

    /// A track's fixes as an NDJSON line `{"id": ..., "fixes": [[time, lat, lon], ...]}` (Swift's round-trip
    /// spelling of each Double, so the stream reads the same values).
    static func ndjsonLine(id: String, _ track: Track) -> String {
        let fixes = track.fixes.map { f in
            "[\(f.time.map { "\($0)" } ?? "null"),\(f.coordinate.latitude),\(f.coordinate.longitude)]"
        }
        return "{\"id\":\"\(id)\",\"fixes\":[\(fixes.joined(separator: ","))]}"
    }

    static func object(_ line: Substring) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// Three pieces of the sample drive, a bad line between them and a track with unusable fixes: per fix the same
    /// edge, sub-match, offset, distance and matched position as the file-based CSV output, for --jobs 1 and 2.
    @Test func sameResultsAsFileBasedMatchAndBadLinesDoNotStop() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let drive = try String(contentsOfFile: TestData.bellevueDrive, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        var files: [URL] = []
        for (k, range) in [1...400, 401...900, 901...1410].enumerated() {
            let f = dir.appendingPathComponent("piece\(k).csv")
            try ([String(drive[0])] + drive[range].map(String.init)).joined(separator: "\n")
                .write(to: f, atomically: true, encoding: .utf8)
            files.append(f)
        }
        var lines: [String] = []
        for (k, f) in files.enumerated() {
            lines.append(Self.ndjsonLine(id: "piece\(k)", try TrackReader.read(path: f.path)))
            if k == 0 { lines.append("{\"id\": \"broken\", \"fixes\": [[1, 47.6, -122.1], ") }  // cut off
            if k == 1 { lines.append("{\"id\": 7, \"fixes\": [[1, 95, -122.1], [2, null, -122.1]]}") }  // none usable
        }
        // Rows 1 (latitude out of range), 3 (not an array) and 4 (time not a time) are skipped; the rest match.
        let first = try TrackReader.read(path: files[0].path).fixes
        func fix(_ i: Int) -> String { "[\(first[i].time!),\(first[i].coordinate.latitude),\(first[i].coordinate.longitude)]" }
        lines.append("{\"id\":\"skips\",\"columns\":[\"time\",\"lat\",\"lon\",\"speed\"],\"fixes\":[\(fix(0)),"
            + "[\(first[1].time!),95.1,-122.1,3],\(fix(2)),\"x\",[\"yesterday\",47.58,-122.11],\(fix(5)),\(fix(6))]}")
        let input = dir.appendingPathComponent("tracks.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)

        let one = try Self.stream(["--input", "ndjson", "--format", "ndjson", "--jobs", "1"], input: input)
        let two = try Self.stream(["--input", "ndjson", "--jobs", "2", "--geometry", "coordinates"], input: input)
        #expect(one.status == 1, "\(one.err)")  // two error lines
        #expect(one.err.contains("tracks: 4 done, 2 failed"), "\(one.err)")
        let results = one.out.split(separator: "\n")
        #expect(results.count == lines.count)
        #expect(two.out.split(separator: "\n").count == lines.count)
        let ids = try results.map { try Self.object($0)["id"].map { "\($0)" } ?? "-" }
        #expect(ids == ["piece0", "broken", "piece1", "7", "piece2", "skips"])
        let broken = try Self.object(results[1])
        #expect(broken["status"] as? String == "error" && broken["line"] as? Int == 2)
        #expect((broken["error"] as? String)?.contains("stdin:2") == true, "\(broken)")
        let none = try Self.object(results[3])
        #expect(none["status"] as? String == "error" && (none["error"] as? String)?.contains("no usable fix") == true)

        for (k, f) in files.enumerated() {
            let r = try MatchCommandTests.match(["--format", "csv", f.path])
            #expect(r.status == 0)
            let csv = r.out.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let line = try Self.object(results[[0, 2, 4][k]])
            #expect(line["status"] as? String == "ok")
            let perFix = try #require(line["fix_results"] as? [[Any]])
            #expect(perFix.count == csv.count)
            for (row, cols) in zip(perFix, csv) {
                #expect(row[0] as? Int == Int(cols[0]))
                if cols[4] == "true" {
                    #expect(row.count == 7)
                    guard row.count == 7 else { continue }
                    #expect("\(row[1])" == String(cols[6]), "edge at row \(cols[0])")
                    #expect(row[2] as? Int == Int(cols[5]))
                    // Foundation's JSONSerialization on Linux may round a long double one ULP off: equal to 1e-12.
                    func same(_ a: Any, _ b: Substring) -> Bool {
                        guard let x = (a as? NSNumber)?.doubleValue, let y = Double(b) else { return false }
                        return abs(x - y) <= 1e-12 * max(1, abs(y))
                    }
                    #expect(same(row[3], cols[11]) && same(row[4], cols[10]), "row \(cols[0])")
                    #expect(same(row[5], cols[8]) && same(row[6], cols[9]), "row \(cols[0])")
                } else {
                    #expect(row.count == 2 && row[1] is NSNull)
                }
            }
            let subs = try #require(line["sub_matches"] as? [[String: Any]])
            #expect(!subs.isEmpty && subs.allSatisfy { ($0["geometry"] as? String)?.isEmpty == false })
            // --jobs 2 with coordinates: the same sub-matches and fixes, geometry as positions.
            let other = try Self.object(two.out.split(separator: "\n")[[0, 2, 4][k]])
            #expect((other["fix_results"] as? [[Any]]).map { "\($0)" } == "\(perFix)")
            let otherSubs = try #require(other["sub_matches"] as? [[String: Any]])
            #expect(otherSubs.map { "\($0["edge_ids"] ?? "")" } == subs.map { "\($0["edge_ids"] ?? "")" })
            #expect(otherSubs.allSatisfy { ($0["geometry"] as? [[Double]])?.count ?? 0 >= 2 })
        }

        let skips = try Self.object(results[5])
        #expect(skips["status"] as? String == "ok", "\(skips)")
        #expect((skips["fix_results"] as? [[Any]])?.map { $0[0] as? Int } == [0, 2, 5, 6])
        let skipped = try #require(skips["skipped"] as? [[String: Any]])
        #expect(skipped.map { $0["row"] as? Int } == [1, 3, 4])
        #expect((skipped[0]["reason"] as? String)?.contains("latitude 95.1") == true, "\(skipped)")
        #expect((skipped[2]["reason"] as? String)?.contains("yesterday") == true, "\(skipped)")
    }

    @Test func polylineEncodingMatchesGooglesExample() {
        // Google's documented example: (38.5, -120.2), (40.7, -120.95), (43.252, -126.453) -> "_p~iF~ps|U_ulLnnqC_mqNvxq`@"
        var out: [UInt8] = []
        let points = [(38.5, -120.2), (40.7, -120.95), (43.252, -126.453)].map {
            GeoCoordinate(uncheckedLatitude: $0.0, longitude: $0.1)
        }
        NDJSONMatchOutput.encodePolyline(points, precision: 1e5, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
    }

    @Test func usageErrorsAreClear() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("empty.ndjson")
        try "".write(to: input, atomically: true, encoding: .utf8)
        let badFormat = try Self.stream(["--input", "ndjson", "--format", "csv"], input: input)
        #expect(badFormat.status != 0 && badFormat.err.contains("--format ndjson"), "\(badFormat.err)")
        let empty = try Self.stream(["--input", "ndjson"], input: input)
        #expect(empty.status == 0 && empty.out.isEmpty, "\(empty.err)")
    }
}
