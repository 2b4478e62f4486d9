import Foundation
import Testing
import RoadSnapCore
import RoadSnapFormats

/// Issue 16 item 6: `match` names the rows it skipped (FILE:LINE: reason, as `snap` does) and every output format
/// keeps the input row as `fix_index`, so results join back to the input.
@Suite struct MatchSkippedRowsTests {
    /// `RoadSnapFormatsTests/Fixtures/bad/bad-rows.csv`: the sample drive's first 12 rows, 5 of them unusable.
    static let badRows = TestData.testsDir.appendingPathComponent("../RoadSnapFormatsTests/Fixtures/bad/bad-rows.csv")
        .standardized.path
    /// Its usable data rows (0-based, header not counted): lines 2, 3, 5, 7, 9, 11, 13.
    static let usableRows = [0, 1, 3, 5, 7, 9, 11]

    @Test func readerKeepsInputRows() throws {
        let track = try TrackReader.read(path: Self.badRows)
        #expect(track.rows.map { Int($0) } == Self.usableRows)
        #expect(track.skipped.count == 5)
    }

    @Test func everyFormatWritesTheInputRowAsFixIndex() throws {
        let track = try TrackReader.read(path: Self.badRows)
        let network = try TestData.bellevue()
        let result = try MapMatcher(network: network).match(track)
        #expect(result.matchedCount > 0)

        let geojson = try JSONSerialization.jsonObject(with: Data(
            MatchOutput.geojson(result, track: track, network: network).utf8)) as? [String: Any]
        let features = try #require(geojson?["features"] as? [[String: Any]])
        let indices = features.compactMap { ($0["properties"] as? [String: Any])?["fix_index"] as? Int }
        #expect(indices == Self.usableRows)

        let csvRows = MatchOutput.csv(result, track: track, network: network).split(separator: "\n").dropFirst()
        #expect(csvRows.map { Int($0.prefix { $0 != "," }) } == Self.usableRows.map { Optional($0) })

        let osrm = try JSONSerialization.jsonObject(with: Data(
            MatchOutput.osrm(result, track: track, network: network).utf8)) as? [String: Any]
        let tracepoints = try #require(osrm?["tracepoints"] as? [Any])
        #expect(tracepoints.count == 12)  // one per input row up to the last usable one
        for row in [2, 4, 6, 8, 10] { #expect(tracepoints[row] is NSNull, "row \(row)") }
        let matchedRows = tracepoints.indices.filter { !(tracepoints[$0] is NSNull) }
        let matchedFixes = track.fixes.indices.filter { result.fixes[$0] != nil }.map { Int(track.rows[$0]) }
        #expect(matchedRows == matchedFixes)
    }

    @Test func matchReportsSkippedRowsWithFileAndLine() throws {
        let r = try TestData.execute(MatchCommandTests.binary,
                                     ["match", "--map", TestData.bellevueMap, "--format", "csv", Self.badRows])
        #expect(r.status == 0, "\(r.err)")
        let skipped = r.err.split(separator: "\n").filter { $0.hasPrefix("roadsnap match: skipped ") }
        #expect(skipped.count == 5, "\(r.err)")
        for line in [4, 6, 8, 10, 12] {
            #expect(skipped.contains { $0.contains("bad-rows.csv:\(line): ") }, "line \(line): \(r.err)")
        }
        #expect(r.err.contains("skipped rows: 5"), "\(r.err)")
        let out = String(decoding: r.out, as: UTF8.self).split(separator: "\n").dropFirst()
        #expect(out.map { Int($0.prefix { $0 != "," }) } == Self.usableRows.map { Optional($0) })
    }
}
