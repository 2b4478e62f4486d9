import Testing
import RoadSnapCore
@testable import RoadSnapFormats

/// Issue 10's bad input: malformed GPX/XML and JSON give an error naming the file and the position, never a crash.
/// The small files are fixtures under `Fixtures/bad/` (see SOURCE.md); the big ones are generated here.
@Suite struct BadInputTests {
    static func error(_ path: String) -> RoadSnapError? {
        trackError { () throws(RoadSnapError) in try TrackReader.read(path: path) }
    }

    static func error(bytes: [UInt8], name: String) -> RoadSnapError? {
        trackError { () throws(RoadSnapError) in try TrackReader.read(bytes: bytes, name: name, format: nil) }
    }

    // ---- GPX / XML ----------------------------------------------------------------------------------------------

    /// The 13-byte file that killed the process with SIGILL inside Foundation's XMLParser.
    @Test func invalidUTF8InATagNameIsAnErrorWithLineAndColumn() throws {
        let path = FixturePaths.fixture("bad/invalid-utf8-tag-name.gpx")
        let error = try #require(Self.error(path))
        #expect(error.description.hasPrefix(path + ":1: malformed XML at column "))
        #expect(error.description.contains("not well-formed"))
    }

    @Test func invalidUTF8InAnAttributeNameIsAnError() throws {
        let path = FixturePaths.fixture("bad/invalid-utf8-attribute-name.gpx")
        let error = try #require(Self.error(path))
        #expect(error.description.hasPrefix(path + ":1: malformed XML"))
    }

    @Test func invalidUTF8InTextIsAnErrorOnItsLine() throws {
        let path = FixturePaths.fixture("bad/invalid-utf8-text.gpx")
        let error = try #require(Self.error(path))
        #expect(error.trackLine == 4)
        #expect(error.description.contains("malformed XML at column 21"))
    }

    @Test func nulByteIsAnErrorOnItsLine() throws {
        let path = FixturePaths.fixture("bad/nul-byte.gpx")
        let error = try #require(Self.error(path))
        #expect(error.trackLine == 7)
        #expect(error.description.contains("malformed XML"))
    }

    @Test func entityExpansionAndExternalEntitiesAreRefused() throws {
        for (file, line) in [("billion-laughs.gpx", 3), ("external-entity.gpx", 2)] {
            let path = FixturePaths.fixture("bad/" + file)
            let error = try #require(Self.error(path), "\(file)")
            #expect(error.description.contains("entity declarations (<!ENTITY ...>) are not accepted"), "\(file)")
            #expect(error.trackLine == line, "\(file)")
        }
    }

    @Test func hundredThousandLevelsOfNestingAreAnError() throws {
        var gpx = Array("<gpx version=\"1.1\">\n".utf8)
        for _ in 0..<100_000 { gpx += Array("<a>".utf8) }
        let error = try #require(Self.error(bytes: gpx, name: "deep.gpx"))
        #expect(error.description.hasPrefix("deep.gpx:2: malformed XML at column "))
        #expect(error.description.contains("nested deeper than 256 levels"))
    }

    @Test func tenMegabyteLineReadsOrFailsCleanly() throws {
        // One line of 10 MB: a whole track on one line reads...
        var point = Array(#"<trkpt lat="47.58193333" lon="-122.1122667"><time>2009-01-17T20:45:25Z</time></trkpt>"#.utf8)
        var gpx = Array(#"<gpx version="1.1"><trk><trkseg>"#.utf8)
        gpx.reserveCapacity(10_500_000)
        while gpx.count < 10_000_000 { gpx += point }
        let count = (gpx.count - 32) / point.count
        gpx += Array("</trkseg></trk></gpx>".utf8)
        let track = try TrackReader.read(bytes: gpx, name: "long.gpx", format: nil)
        #expect(track.fixes.count == count)
        #expect(track.sourceLines.last == 1)
        // ...and a 10 MB attribute value cut short is an error at the end, not a hang or a crash.
        point = Array(#"<gpx version="1.1"><trk><name a=""#.utf8) + [UInt8](repeating: 65, count: 10_000_000)
        let error = try #require(Self.error(bytes: point, name: "cut.gpx"))
        #expect(error.description.hasPrefix("cut.gpx:1: malformed XML"))
        #expect(error.description.contains("truncated?"))
    }

    @Test func everyPrefixOfAGPXFileIsReadOrRefusedWithoutCrashing() throws {
        let bytes = try FileIO.read(path: FixturePaths.fixture("gpx/newson-krumm-gpx11-garmin.gpx"))
        var refused = 0
        for length in stride(from: 0, to: bytes.count, by: 7) {
            if Self.error(bytes: Array(bytes[..<length]), name: "cut.gpx") != nil { refused += 1 }
        }
        // Every proper prefix cuts the document: all are errors (the complete file reads).
        #expect(refused == (bytes.count + 6) / 7)
        #expect(Self.error(bytes: bytes, name: "whole.gpx") == nil)
    }

    // ---- JSON ---------------------------------------------------------------------------------------------------

    @Test func truncatedJSONNamesTheEnd() throws {
        let path = FixturePaths.fixture("bad/truncated.geojson")
        let error = try #require(Self.error(path))
        #expect(error.description.hasPrefix(path + ": not valid JSON: "))
        #expect(error.description.contains(" at line "))
    }

    @Test func invalidUTF8InJSONNamesLineAndByte() throws {
        let path = FixturePaths.fixture("bad/invalid-utf8.geojson")
        let bytes = try FileIO.read(path: path)
        let offset = try #require(bytes.firstIndex(of: 0xFF))
        let error = try #require(Self.error(path))
        #expect(error.description.contains("at line 8, column 11 (byte \(offset))"), "\(error)")
    }

    @Test func nulByteInJSONNamesLineAndByte() throws {
        let path = FixturePaths.fixture("bad/nul-byte.geojson")
        let bytes = try FileIO.read(path: path)
        let offset = try #require(bytes.firstIndex(of: 0))
        let error = try #require(Self.error(path))
        #expect(error.description.contains("at line 18, "), "\(error)")
        #expect(error.description.contains("(byte \(offset))"), "\(error)")
    }

    @Test func hundredThousandLevelsOfJSONNestingAreAnError() throws {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let error = try #require(Self.error(bytes: deep, name: "deep.json"))
        #expect(error.description.hasPrefix("deep.json: not valid JSON: arrays and objects nested deeper than 512 levels"))
        #expect(error.description.contains("(byte 512)"), "\(error)")
        // The same in a network and a matched-path file.
        let network = Result { () throws(RoadSnapError) in try GeoJSONNetworkReader.read(bytes: deep, name: "deep.geojson") }
        #expect(network.failureValue?.description.contains("nested deeper than 512 levels") == true)
        let path = Result { () throws(RoadSnapError) in try MatchedPathReader.edgeIDs(bytes: deep, name: "deep.geojson") }
        #expect(path.failureValue?.description.contains("nested deeper than 512 levels") == true)
        // Balanced, too.
        let balanced = deep + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
        let closed = try #require(Self.error(bytes: balanced, name: "deep.json"))
        #expect(closed.description.hasPrefix("deep.json: not valid JSON: arrays and objects nested deeper than 512 levels"))
        #expect(closed.description.contains("(byte 512)"), "\(closed)")
    }

    @Test func tenMegabyteJSONLineReadsAndACutOneFails() throws {
        var json = Array(#"{"type":"LineString","coordinates":["#.utf8)
        json.reserveCapacity(10_500_000)
        var count = 0
        while json.count < 10_000_000 {
            if count > 0 { json.append(UInt8(ascii: ",")) }
            json += Array("[11.564388282625075,48.16350662940509]".utf8)
            count += 1
        }
        let whole = json + Array("]}".utf8)
        let track = try TrackReader.read(bytes: whole, name: "long.geojson", format: nil)
        #expect(track.fixes.count == count)
        let error = try #require(Self.error(bytes: json, name: "cut.geojson"))
        #expect(error.description.hasPrefix("cut.geojson: not valid JSON: "))
        #expect(error.description.contains(" at line 1, "), "\(error)")
    }

    @Test func garbageAfterTheDocumentAndBadAtomsAreErrorsWithPositions() throws {
        let cases: [(String, String)] = [
            ("{\"type\":\"Point\",\"coordinates\":[1,2]}\n}", "line 2, column 1"),
            ("{\"type\":\"Point\",\n\"coordinates\":[1,tru]}", "line 2"),
            ("{\"type\":\"Point\" \"coordinates\":[1,2]}", "line 1"),
        ]
        for (text, position) in cases {
            let error = try #require(Self.error(bytes: Array(text.utf8), name: "bad.json"), "\(text)")
            #expect(error.description.hasPrefix("bad.json: not valid JSON: "), "\(text)")
            #expect(error.description.contains("at " + position), "\(text): \(error)")
        }
    }

    @Test func everyPrefixOfAGeoJSONTrackIsReadOrRefusedWithoutCrashing() throws {
        let bytes = try FileIO.read(path: FixturePaths.fixture("geojson/barefoot-x0001-015-points.geojson"))
        var refused = 0
        let step = max(1, bytes.count / 400)
        for length in stride(from: 0, to: bytes.count - 1, by: step) {
            if Self.error(bytes: Array(bytes[..<length]), name: "cut.geojson") != nil { refused += 1 }
        }
        #expect(refused == (bytes.count - 1 + step - 1) / step)
    }

    @Test func byteOrderMarksAreAccepted() throws {
        let json = [0xEF, 0xBB, 0xBF] + Array(#"{"type":"LineString","coordinates":[[11.5,48.1],[11.6,48.2]]}"#.utf8)
        #expect(try TrackReader.read(bytes: json, name: "bom.geojson", format: nil).fixes.count == 2)
        let gpx = [0xEF, 0xBB, 0xBF] + Array(#"<gpx><trk><trkseg><trkpt lat="48.1" lon="11.5"/></trkseg></trk></gpx>"#.utf8)
        #expect(try TrackReader.read(bytes: gpx, name: "bom.gpx", format: nil).fixes.count == 1)
    }

    @Test func gpsdLinesWithBadBytesAreIgnored() {
        #expect(GPSDClient.fix(fromReport: "{\"class\":\"TPV\",\"mode\":3,\"lat\":1\u{0},\"lon\":2}") == nil)
        #expect(GPSDClient.fix(fromReport: String(repeating: "[", count: 100_000) + "\"TPV\"") == nil)
    }

    // ---- Mutations ----------------------------------------------------------------------------------------------

    /// 1,500 copies of a real GPX and a real GeoJSON track with 1–8 bytes overwritten (by NUL, 0xFF, a lone
    /// continuation byte, `<`, `&`, `"`, `[`, `{` or a random byte) read as a track or fail with an error naming the
    /// file: none crashes (the process would die and the suite with it).
    @Test func mutatedFilesAreReadOrRefusedWithoutCrashing() throws {
        var rng = SplitMix64(seed: 10)
        let specials: [UInt8] = [0x00, 0xFF, 0x80, 0x3C, 0x26, 0x22, 0x5B, 0x7B]
        for file in ["gpx/newson-krumm-gpx11-garmin.gpx", "geojson/barefoot-x0001-015-points.geojson"] {
            let original = try FileIO.read(path: FixturePaths.fixture(file))
            let name = "mutated." + (file.hasSuffix(".gpx") ? "gpx" : "geojson")
            var refused = 0
            for _ in 0..<750 {
                var bytes = original
                for _ in 0..<(1 + Int(rng.next() % 8)) {
                    let at = Int(rng.next() % UInt64(bytes.count))
                    let pick = Int(rng.next() % UInt64(specials.count + 1))
                    bytes[at] = pick < specials.count ? specials[pick] : UInt8(truncatingIfNeeded: rng.next())
                }
                if let error = Self.error(bytes: bytes, name: name) {
                    refused += 1
                    #expect(error.description.hasPrefix(name + ":"), "\(error)")
                }
            }
            #expect(refused > 0, "\(file)")
        }
    }
}
