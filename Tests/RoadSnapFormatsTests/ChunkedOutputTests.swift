import Foundation
import Testing
import CShims
import RoadSnapCore
@testable import RoadSnapFormats

/// Outputs streamed in chunks (issue 16, item 11) are the bytes the one-shot rendering gives, for every format and
/// chunk size, written to files through the one atomic writer; a failing write keeps the old file. The memory figure
/// itself is measured by `scripts/big-track-rss.sh` (docs/reliability.md), not here.
@Suite struct ChunkedOutputTests {
    static let network = try! MapLoader.load(path: FixturePaths.sample("bellevue-issue147.osm.gz"))
    static let fullTrack = try! TrackReader.read(path: FixturePaths.sample("newson-krumm-bellevue.csv"))

    /// The sample drive with every seventh row left out (input rows with gaps, as after skipped rows) and the result.
    static let gappy: (Track, MatchResult) = {
        let kept = fullTrack.fixes.indices.filter { $0 % 7 != 3 }
        let track = Track(name: "gappy", fixes: kept.map { fullTrack.fixes[$0] }, rows: kept.map { UInt32($0) })
        return (track, try! MapMatcher(network: network).match(track))
    }()

    static func folder() -> String {
        let path = NSTemporaryDirectory() + "roadsnap-chunks-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The chunks a sink received, joined.
    static func chunked(_ size: Int, _ render: (ChunkedOutput) -> Void) throws -> (bytes: [UInt8], chunks: Int) {
        var got: [UInt8] = []
        var chunks = 0
        let out = ChunkedOutput(chunkSize: size) { b in
            got.append(contentsOf: b)
            chunks += 1
        }
        render(out)
        try out.finish()
        #expect(out.written == got.count)
        return (got, chunks)
    }

    @Test(arguments: [MatchOutput.Format.geojson, .csv, .gpx, .osrm])
    func matchOutputsInChunksAreTheOneShotBytes(format: MatchOutput.Format) throws {
        let (track, result) = Self.gappy
        #expect(result.subMatches.count >= 1 && result.matchedCount > 1000)
        let whole = Array(MatchOutput.render(result, track: track, network: Self.network, format: format).utf8)
        for size in [1, 7, 4096, ChunkedOutput.defaultChunkSize] {
            let (bytes, chunks) = try Self.chunked(size) { out in
                MatchOutput.write(result, track: track, network: Self.network, format: format, into: out)
            }
            #expect(bytes == whole, "\(format), chunks of \(size)")
            // Chunks really are bounded: many for a small size (one per record at size 1).
            if size < 4096 { #expect(chunks > track.fixes.count / 2 || format == .gpx, "\(format) \(size): \(chunks)") }
        }
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out." + format.fileExtension
        try MatchOutput.write(result, track: track, network: Self.network, format: format, to: path)
        #expect(try FileIO.read(path: path) == whole)
    }

    /// The streamed OSRM response is the tree `osrmDocument` builds (which the JSON tests check against
    /// Foundation): tracepoints per input row (null for the rows left out), waypoint indices per matching.
    @Test func streamedOSRMIsTheTreeDocument() throws {
        let (track, result) = Self.gappy
        let streamed = MatchOutput.osrm(result, track: track, network: Self.network)
        #expect(streamed == MatchOutput.osrmDocument(result, track: track, network: Self.network).text())
        #expect(streamed.contains("null,{"))
        let empty = try MapMatcher(network: Self.network).match(Track(name: "far", fixes: [
            Fix(coordinate: GeoCoordinate(uncheckedLatitude: 10, longitude: 10), time: 0),
        ]))
        let none = MatchOutput.osrm(empty, track: Track(name: "far", fixes: [
            Fix(coordinate: GeoCoordinate(uncheckedLatitude: 10, longitude: 10), time: 0),
        ]), network: Self.network)
        #expect(none == #"{"code":"NoMatch","matchings":[],"message":"Could not match the trace.","tracepoints":[null]}"# + "\n")
    }

    @Test(arguments: [SnapOutput.Format.csv, .geojson])
    func snapOutputsInChunksAreTheOneShotBytes(format: SnapOutput.Format) throws {
        let track = Self.fullTrack
        let results = try Snapper(network: Self.network).snap(track.fixes, radius: Snapper.defaultRadius)
        let whole = SnapOutput.render(track: track, results: results, network: Self.network, format: format)
        // The JSON tree of the whole collection: what the geojson output was before it was streamed.
        if format == .geojson {
            let doc = try JSONSerialization.jsonObject(with: Data(whole.utf8)) as? [String: Any]
            #expect((doc?["features"] as? [Any])?.count == track.fixes.count)
        }
        for size in [1, 100, ChunkedOutput.defaultChunkSize] {
            let (bytes, _) = try Self.chunked(size) { out in
                SnapOutput.write(track: track, results: results, network: Self.network, format: format, into: out)
            }
            #expect(bytes == Array(whole.utf8), "\(format), chunks of \(size)")
        }
    }

    /// A write that fails half-way (the sink throws on its third chunk): the error comes out of `finish`, later
    /// chunks are dropped, and a file being streamed keeps its old contents with no temporary left.
    @Test func aFailingWriteIsReportedAndTheOldFileStays() throws {
        var calls = 0
        let out = ChunkedOutput(chunkSize: 10) { _ throws(RoadSnapError) in
            calls += 1
            if calls == 3 { throw .unwritableFile(path: "sink", reason: "No space left on device") }
        }
        for _ in 0..<10 {
            out.append("0123456789ab")
            out.chunkDone()
        }
        #expect(throws: RoadSnapError.unwritableFile(path: "sink", reason: "No space left on device")) { try out.finish() }
        #expect(calls == 3 && out.written == 24)

        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.csv"
        try AtomicFile.write("old\n", to: path)
        let (track, result) = Self.gappy
        let failure = Result { () throws(RoadSnapError) in
            try AtomicFile.stream(to: path, chunkSize: 1000) { stream throws(RoadSnapError) in
                MatchOutput.write(result, track: track, network: Self.network, format: .csv, into: stream)
                throw .internalError("stopped after rendering")
            }
        }.failureValue
        #expect(failure == .internalError("stopped after rendering"))
        #expect(try FileIO.read(path: path) == Array("old\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.csv"])
    }

    /// The per-fix records a 1,000,000-fix track holds whole are compact: a fix 56 bytes (was 96), a matched fix
    /// with its optional 56 (was 72), the engine's result 32 (was 56: no local x/y), a fix's input row and source
    /// line 4 each (were 8); unknown values stay distinct from NaN.
    @Test func perFixRecordsAreCompactAndKeepTheirValues() {
        #expect(MemoryLayout<Fix>.stride == 56)
        #expect(MemoryLayout<MatchedFix?>.stride == 56)
        #expect(MemoryLayout<rsc_match_fix>.stride == 32)
        #expect(MemoryLayout.stride(ofValue: Self.fullTrack.rows[0]) == 4)
        #expect(MemoryLayout.stride(ofValue: Self.fullTrack.sourceLines[0]) == 4)
        let c = GeoCoordinate(uncheckedLatitude: 47.5, longitude: -122.1)
        let none = Fix(coordinate: c)
        #expect(none.time == nil && none.course == nil && none.speed == nil && none.altitude == nil
            && none.horizontalAccuracy == nil)
        var some = Fix(coordinate: c, time: 1.5, course: 359.9, speed: 0, altitude: -3, horizontalAccuracy: 4)
        #expect(some.time == 1.5 && some.course == 359.9 && some.speed == 0 && some.altitude == -3
            && some.horizontalAccuracy == 4)
        some.course = nil
        #expect(some.course == nil && some != Fix(coordinate: c, time: 1.5, course: 1, speed: 0, altitude: -3,
                                                 horizontalAccuracy: 4))
        // A NaN read from a file is a value (which readers then refuse), not "unknown".
        let nan = Fix(coordinate: c, time: .nan)
        #expect(nan.time?.isNaN == true)
        #expect(none == Fix(coordinate: c) && Set([none, Fix(coordinate: c)]).count == 1)
        var m = MatchedFix(edge: 123_456, forward: true, subMatch: 7, along: 1, offset: 2, distance: 3, coordinate: c)
        #expect(m.edge == 123_456 && m.subMatch == 7 && m.forward && m.arc == 2 * 123_456)
        m.forward = false
        #expect(m.arc == 2 * 123_456 + 1)
    }

    /// Rows and lines are 32-bit numbers: the largest that fit are kept as they are, the next ones (a track of more
    /// than 4,294,967,295 rows or lines) are refused with a message naming them, never wrapped.
    @Test func rowsAndLinesBeyond32BitsAreRefusedNotWrapped() throws {
        let last = Track.maxRows - 1  // 0-based: the 4,294,967,295th row
        #expect(Track.maxRows == 4_294_967_295)
        #expect(Track.numbers(row: last, line: Track.maxRows).map { [$0.row, $0.line] } == [4_294_967_294, 4_294_967_295])
        #expect(Track.numbers(row: Track.maxRows, line: 2) == nil)
        #expect(Track.numbers(row: 0, line: Track.maxRows + 1) == nil)
        #expect(Track.numbers(row: -1, line: 2) == nil)
        let fix = Fix(coordinate: GeoCoordinate(uncheckedLatitude: 47.5, longitude: -122.1))
        var fits = TrackBuilder(name: "big.csv")
        fits.add(fix, line: 2, row: 0)
        fits.add(fix, line: Track.maxRows, row: last)
        let kept = try fits.finish(emptyReason: "none")
        #expect(kept.rows == [0, 4_294_967_294] && kept.sourceLines == [2, 4_294_967_295])
        for (row, line) in [(Track.maxRows, 3), (1, Track.maxRows + 1)] {
            var builder = TrackBuilder(name: "big.csv")
            builder.add(fix, line: 2, row: 0)
            builder.add(fix, line: line, row: row)
            builder.add(fix, line: 4, row: 2)
            #expect(throws: RoadSnapError.invalidTrack(path: "big.csv", line: line, reason: "the track is too long: "
                + "row \(row) (0-based) or line \(line) is beyond the 4294967295 rows and lines a track can have "
                + "(they are kept as 32-bit numbers)")) { try builder.finish(emptyReason: "none") }
        }
    }
}
