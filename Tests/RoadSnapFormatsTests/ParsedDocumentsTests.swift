import Testing
import RoadSnapCore

/// The CShims parsers as Swift sees them (`RoadSnapBridge.XMLEventList`, `JSONNodes`): structure, values, positions.
@Suite struct ParsedDocumentsTests {
    static func json(_ text: String) throws -> JSONNodes { try JSONNodes(text: text) }

    @Test func jsonTapeHoldsValuesInDocumentOrderAndSkipsContainers() throws {
        let doc = try Self.json(#"{"a":[1,2.5,-3e2,18446744073709551615],"s":"x\"\u00e9\u0000y","n":null,"t":true,"o":{"k":[[]]},"z":false}"#)
        #expect(doc.error == nil)
        #expect(doc.kind(0) == .object && doc.count(0) == 6)
        let a = try #require(doc.member(0, "a"))
        #expect(Array(doc.elements(a)).map { doc.kind($0) } == [.int, .double, .double, .double])
        #expect(Array(doc.elements(a)).map { doc.number($0)! } == [1, 2.5, -300, 18_446_744_073_709_551_615])
        #expect(doc.integer(a + 1) == 1 && doc.integer(a + 2) == nil)
        let s = try #require(doc.member(0, "s"))
        #expect(doc.string(s) == "x\"é\u{0}y" && doc.count(s) == 6)
        #expect(doc.kind(doc.member(0, "n")!) == .null && doc.kind(doc.member(0, "t")!) == .true)
        // Skipping the nested object lands on the next key.
        let o = try #require(doc.member(0, "o"))
        #expect(doc.string(doc.next(after: o)) == "z")
        #expect(doc.member(0, "missing") == nil && doc.member(a, "a") == nil)
        #expect(Array(doc.memberKeys(0)).compactMap { doc.string($0) } == ["a", "s", "n", "t", "o", "z"])
        #expect(doc.next(after: 0) == doc.count)
        // A repeated key: the last value, as JSONSerialization's dictionary kept it.
        let twice = try Self.json(#"{"k":1,"x":[2],"k":3}"#)
        #expect(twice.member(0, "k").flatMap { twice.number($0) } == 3)
    }

    @Test func jsonErrorsCarryMessageAndPosition() throws {
        let doc = try Self.json("{\"a\":\n  [1, 2,, 3]}")
        let error = try #require(doc.error)
        #expect(error.line == 2)
        #expect(error.offset.map { $0 >= 9 && $0 <= 14 } == true, "\(error)")
        #expect(doc.count == 0)
        #expect(try Self.json("").error != nil)
        #expect(try Self.json("[1] [2]").error?.offset == 4)
    }

    @Test func xmlEventsHaveLocalNamesDecodedTextAndPositions() throws {
        let text = """
            <?xml version="1.0"?>
            <gpx xmlns="http://www.topografix.com/GPX/1/1" xmlns:g="urn:x">
              <g:speed unit="m&amp;s">1&lt;2<![CDATA[ & 3]]></g:speed>
              <empty/>
            </gpx>
            """
        let bytes = Array(text.utf8)
        let list = try bytes.withUnsafeBytes { raw in
            Result { () throws(NativeFailure) in try XMLEventList(bytes: raw) }
        }.get()
        #expect(list.error == nil)
        let events = (0..<list.count).map { list[$0] }
        #expect(events.map(\.kind) == [.start, .start, .text, .end, .start, .end, .end])
        #expect(events.map { $0.bytes.string } == ["gpx", "speed", "1<2 & 3", "speed", "empty", "empty", "gpx"])
        #expect(events[0].line == 2 && events[1].line == 3 && events[1].column == 3)
        // xmlns declarations are not attributes; a prefix is dropped, entities are decoded.
        #expect(list.attribute("xmlns", of: events[0]) == nil)
        #expect(list.attribute("unit", of: events[1])?.string == "m&s")
        #expect(list.attribute("lat", of: events[1]) == nil)
    }

    @Test func xmlErrorsSayWhereAndWhatWasOpen() throws {
        let bytes = Array("<gpx>\n <trk>\n  <name>cut".utf8)
        let list = try bytes.withUnsafeBytes { raw in
            Result { () throws(NativeFailure) in try XMLEventList(bytes: raw) }
        }.get()
        let error = try #require(list.error)
        #expect(error.atEnd)
        #expect(error.openElements == ["gpx", "trk", "name"])
        #expect(error.line == 3)
    }

    @Test func latin1AndWindows1252DocumentsAreReadAsUTF8() throws {
        for (encoding, byte, expected) in [("ISO-8859-1", UInt8(0xE9), "é"), ("windows-1252", UInt8(0x80), "€")] {
            let bytes = Array("<?xml version=\"1.0\" encoding=\"\(encoding)\"?><gpx><name>".utf8) + [byte]
                + Array("</name></gpx>".utf8)
            let list = try bytes.withUnsafeBytes { raw in
                Result { () throws(NativeFailure) in try XMLEventList(bytes: raw) }
            }.get()
            #expect(list.error == nil, "\(encoding)")
            #expect(list.count == 5 && list[2].bytes.string == expected, "\(encoding)")
        }
        let unknown = Array("<?xml version=\"1.0\" encoding=\"x-made-up\"?><gpx/>".utf8)
        let list = try unknown.withUnsafeBytes { raw in
            Result { () throws(NativeFailure) in try XMLEventList(bytes: raw) }
        }.get()
        #expect(list.error?.message == "unknown encoding")
    }
}
