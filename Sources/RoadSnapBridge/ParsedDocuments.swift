import CShims

/// Bytes inside a parsed document (a name, a text, a string value). Valid only while the document that gave them
/// lives: keep the document alive (`withExtendedLifetime`) while using them.
public struct DocumentBytes {
    public let buffer: UnsafeBufferPointer<UInt8>

    @inlinable init(_ base: UnsafePointer<UInt8>?, offset: UInt64, count: UInt32) {
        if let base {
            buffer = UnsafeBufferPointer(start: base + Int(offset), count: Int(count))
        } else {
            buffer = UnsafeBufferPointer(start: nil, count: 0)
        }
    }

    /// Bytes the caller keeps alive.
    public init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

    /// Whether the bytes are exactly `text`'s UTF-8.
    @inlinable public func equals(_ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard buffer.count == n else { return false }
        let other = text.utf8Start
        for i in 0..<n where buffer[i] != other[i] { return false }
        return true
    }

    /// A copy as a String (invalid UTF-8 is repaired with U+FFFD).
    public var string: String { String(decoding: buffer, as: UTF8.self) }

    @inlinable public var isEmpty: Bool { buffer.isEmpty }
}

/// An XML document parsed by libexpat (through CShims) into a list of start-tag, end-tag and text events.
/// Untrusted input is safe: entity declarations, external entities, nesting deeper than `maxDepth`, invalid UTF-8
/// and NUL bytes end the parse with an error (see `error`), never a crash.
public final class XMLEventList {
    @usableFromInline let handle: OpaquePointer
    @usableFromInline let eventBase: UnsafePointer<rsc_xml_event>?
    @usableFromInline let attributeBase: UnsafePointer<rsc_xml_attribute>?
    @usableFromInline let textBase: UnsafePointer<UInt8>?
    /// Number of events.
    public let count: Int

    /// The first error: message, 1-based line and column, 0-based byte offset, and whether the input ended early.
    public struct ParseError: Sendable {
        public var message: String
        public var line: Int
        public var column: Int
        public var offset: Int
        public var atEnd: Bool
        /// The elements open where the parse stopped, outermost first.
        public var openElements: [String]
    }

    /// Nil when the document is well-formed.
    public let error: ParseError?

    /// Parses `bytes` in one pass. Throws only when memory runs out.
    package init(bytes: UnsafeRawBufferPointer, maxDepth: Int = 256) throws(NativeFailure) {
        guard let h = rsc_xml_parse(bytes.baseAddress, bytes.count, UInt32(clamping: maxDepth)) else {
            throw .internalError("out of memory parsing XML")
        }
        handle = h
        var line: UInt64 = 0, column: UInt64 = 0, offset: UInt64 = 0
        var atEnd: Int32 = 0
        if let message = rsc_xml_error(h, &line, &column, &offset, &atEnd) {
            let open = String(cString: rsc_xml_open_elements(h))
            error = ParseError(message: String(cString: message), line: Int(line), column: Int(column),
                               offset: Int(offset), atEnd: atEnd != 0,
                               openElements: open.isEmpty ? [] : open.split(separator: "/").map(String.init))
        } else {
            error = nil
        }
        var n = 0
        eventBase = rsc_xml_events(h, &n)
        count = n
        var attributeCount = 0
        attributeBase = rsc_xml_attributes(h, &attributeCount)
        var textCount = 0
        textBase = rsc_xml_text(h, &textCount)
    }

    deinit { rsc_xml_destroy(handle) }

    public enum Kind: UInt32 { case start = 1, end = 2, text = 3 }

    /// One event; its bytes are valid while the list lives.
    public struct Event {
        public let kind: Kind
        /// 1-based line and column where the tag or text starts.
        public let line: Int
        public let column: Int
        /// The element's local name (start, end) or the text (text events).
        public let bytes: DocumentBytes
        @usableFromInline let firstAttribute: Int
        @usableFromInline let attributeCount: Int

        @inlinable init(kind: Kind, line: Int, column: Int, bytes: DocumentBytes, firstAttribute: Int,
                        attributeCount: Int)
        {
            self.kind = kind
            self.line = line
            self.column = column
            self.bytes = bytes
            self.firstAttribute = firstAttribute
            self.attributeCount = attributeCount
        }
    }

    @inlinable public subscript(i: Int) -> Event {
        let e = eventBase![i]
        return Event(kind: Kind(rawValue: e.kind) ?? .text, line: Int(e.line), column: Int(e.column),
                     bytes: DocumentBytes(textBase, offset: e.offset, count: e.length),
                     firstAttribute: Int(e.first_attribute), attributeCount: Int(e.attribute_count))
    }

    /// The value of the attribute named `name` (local name) of a start event, nil when it has none.
    @inlinable public func attribute(_ name: StaticString, of event: Event) -> DocumentBytes? {
        guard event.attributeCount > 0, let base = attributeBase else { return nil }
        for k in event.firstAttribute..<(event.firstAttribute + event.attributeCount) {
            let a = base[k]
            if DocumentBytes(textBase, offset: a.name_offset, count: a.name_length).equals(name) {
                return DocumentBytes(textBase, offset: a.value_offset, count: a.value_length)
            }
        }
        return nil
    }
}

/// A JSON document parsed by simdjson (through CShims) into a flat node array in document order. A node is named
/// by its index; node 0 is the root. Containers are followed by their contents (an object's members as a key
/// string node, then the value), and `next(after:)` skips a whole value in O(1).
public final class JSONNodes {
    @usableFromInline let handle: OpaquePointer
    @usableFromInline let nodes: UnsafePointer<rsc_json_node>?
    @usableFromInline let textBase: UnsafePointer<UInt8>?
    /// Number of nodes.
    public let count: Int

    /// The first error: message and, where simdjson can tell, its 0-based byte offset and 1-based line and column.
    public struct ParseError: Sendable {
        public var message: String
        public var offset: Int?
        public var line: Int?
        public var column: Int?
    }

    /// Nil when the document is valid JSON.
    public let error: ParseError?

    /// Parses `bytes`. Throws only when memory runs out.
    package convenience init(bytes: UnsafeRawBufferPointer, maxDepth: Int = 512) throws(NativeFailure) {
        guard let h = rsc_json_parse(bytes.baseAddress, bytes.count, UInt32(clamping: maxDepth)) else {
            throw .internalError("out of memory parsing JSON")
        }
        self.init(handle: h)
    }

    /// Parses a String's UTF-8.
    package convenience init(text: String, maxDepth: Int = 512) throws(NativeFailure) {
        var text = text
        let parsed = text.withUTF8 { rsc_json_parse($0.baseAddress, $0.count, UInt32(clamping: maxDepth)) }
        guard let h = parsed else { throw .internalError("out of memory parsing JSON") }
        self.init(handle: h)
    }

    /// Takes ownership of a parse.
    init(handle h: OpaquePointer) {
        handle = h
        var offset: UInt64 = 0, line: UInt64 = 0, column: UInt64 = 0
        if let message = rsc_json_error(h, &offset, &line, &column) {
            func known(_ v: UInt64) -> Int? { v == UInt64.max ? nil : Int(v) }
            error = ParseError(message: String(cString: message), offset: known(offset), line: known(line),
                               column: known(column))
        } else {
            error = nil
        }
        var n = 0
        nodes = rsc_json_nodes(h, &n)
        count = n
        var textCount = 0
        textBase = rsc_json_text(h, &textCount)
    }

    deinit { rsc_json_destroy(handle) }

    public enum Kind: UInt32 { case null = 0, `false`, `true`, int, double, string, array, object }

    @inlinable public func kind(_ i: Int) -> Kind { Kind(rawValue: nodes![i].kind) ?? .null }

    /// Elements of an array, members of an object, bytes of a string; 0 for other nodes.
    @inlinable public func count(_ i: Int) -> Int { Int(nodes![i].count) }

    /// The index of the node after value `i` and all its contents.
    @inlinable public func next(after i: Int) -> Int {
        let n = nodes![i]
        return n.kind == UInt32(RSC_JSON_ARRAY) || n.kind == UInt32(RSC_JSON_OBJECT) ? Int(n.payload) : i + 1
    }

    /// A number node's value (ints converted), nil for other kinds.
    @inlinable public func number(_ i: Int) -> Double? {
        let n = nodes![i]
        if n.kind == UInt32(RSC_JSON_DOUBLE) { return Double(bitPattern: n.payload) }
        if n.kind == UInt32(RSC_JSON_INT) { return Double(Int64(bitPattern: n.payload)) }
        return nil
    }

    /// An integer node's value, nil for other kinds (doubles included).
    @inlinable public func integer(_ i: Int) -> Int64? {
        let n = nodes![i]
        return n.kind == UInt32(RSC_JSON_INT) ? Int64(bitPattern: n.payload) : nil
    }

    /// A string node's bytes, nil for other kinds.
    @inlinable public func bytes(_ i: Int) -> DocumentBytes? {
        let n = nodes![i]
        guard n.kind == UInt32(RSC_JSON_STRING) else { return nil }
        return DocumentBytes(textBase, offset: n.payload, count: n.count)
    }

    /// A string node's text, nil for other kinds.
    @inlinable public func string(_ i: Int) -> String? { bytes(i)?.string }

    /// The value of member `key` of object `i`, nil when `i` is not an object or lacks it. A key given twice gives
    /// its last value, as a dictionary built from the object would hold.
    @inlinable public func member(_ i: Int, _ key: StaticString) -> Int? {
        guard kind(i) == .object else { return nil }
        var k = i + 1
        let end = next(after: i)
        var found: Int?
        while k < end {
            if let b = bytes(k), b.equals(key) { found = k + 1 }
            k = next(after: k + 1)
        }
        return found
    }

    /// The elements of array `i` in order (none when `i` is not an array); allocates nothing.
    @inlinable public func elements(_ i: Int) -> Children { Children(self, i, kind(i) == .array, step: 1) }

    /// The members of object `i` in order, each as the index of its key node (the value is the next node, `k + 1`);
    /// none when `i` is not an object.
    @inlinable public func memberKeys(_ i: Int) -> Children { Children(self, i, kind(i) == .object, step: 2) }

    /// The element (or member key) indices of one container.
    public struct Children: Sequence, IteratorProtocol {
        @usableFromInline let document: JSONNodes
        @usableFromInline var position: Int
        @usableFromInline let end: Int
        @usableFromInline let isMember: Bool

        @inlinable init(_ document: JSONNodes, _ container: Int, _ applies: Bool, step: Int) {
            self.document = document
            position = container + 1
            end = applies ? document.next(after: container) : container + 1
            isMember = step == 2
        }

        @inlinable public mutating func next() -> Int? {
            guard position < end else { return nil }
            let here = position
            position = document.next(after: isMember ? here + 1 : here)
            return here
        }
    }
}
