import RoadSnapCore

/// JSON input through simdjson (CShims' `rsc_json_` node array, owned by `JSONNodes`): the helpers every JSON reader
/// shares, so values are read one way everywhere.
enum JSONInput {
    /// Parses `bytes`; a malformed document throws `error(name, message)` with the fault's position in the message.
    static func parse(_ bytes: [UInt8], fault: (String) -> RoadSnapError) throws(RoadSnapError) -> JSONNodes {
        var bytes = bytes
        // A UTF-8 byte order mark (some Windows tools write one) reads as white space, keeping positions.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.replaceSubrange(0..<3, with: [32, 32, 32]) }
        let parsed = bytes.withUnsafeBytes { raw in Result { () throws(RoadSnapError) in try native { () throws(NativeFailure) in
            try JSONNodes(bytes: raw)
        } } }
        let document = try parsed.get()
        if let error = document.error { throw fault("not valid JSON: \(describe(error))") }
        return document
    }

    /// The message with where it happened: `… at line 3, column 14 (byte 52)`.
    static func describe(_ error: JSONNodes.ParseError) -> String {
        guard let offset = error.offset, let line = error.line, let column = error.column else { return error.message }
        return "\(error.message) at line \(line), column \(column) (byte \(offset))"
    }

    /// A number, or a string holding one (white space around allowed); nil for anything else (booleans included).
    static func number(_ doc: JSONNodes, _ i: Int?) -> Double? {
        guard let i else { return nil }
        if let n = doc.number(i) { return n }
        if let b = doc.bytes(i) { return TrackNumber.parse(b.buffer) }
        return nil
    }

    /// The text of a string node, or of a number node as JSONSerialization's NSNumber spelled it (`7`, `12.5`).
    static func text(_ doc: JSONNodes, _ i: Int?) -> String? {
        guard let i else { return nil }
        if let s = doc.string(i) { return s }
        if let n = doc.integer(i) { return String(n) }
        if let d = doc.number(i) { return numberText(d) }
        return nil
    }

    /// A number as text: whole numbers without a fraction, others in Swift's shortest round-trip form.
    static func numberText(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 9e15 { return String(Int64(d)) }
        return d.description
    }

    /// A short rendering of any value for messages (`12.5`, `abc`, `true`, `null`, `[…]`, `{…}`).
    static func describe(_ doc: JSONNodes, _ i: Int) -> String {
        switch doc.kind(i) {
        case .null: return "null"
        case .false: return "false"
        case .true: return "true"
        case .int, .double, .string: return text(doc, i) ?? ""
        case .array: return "[…]"
        case .object: return "{…}"
        }
    }

    /// The value of `key` unless it is missing or null.
    static func present(_ doc: JSONNodes, _ object: Int?, _ key: StaticString) -> Int? {
        guard let object, let v = doc.member(object, key), doc.kind(v) != .null else { return nil }
        return v
    }

    /// Whether a string node holds exactly `text`.
    static func isString(_ doc: JSONNodes, _ i: Int?, _ text: StaticString) -> Bool {
        guard let i, let b = doc.bytes(i) else { return false }
        return b.equals(text)
    }
}
