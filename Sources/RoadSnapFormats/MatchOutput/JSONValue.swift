import RoadSnapCore

/// The one JSON document tree of RoadSnap's outputs (match results, routes, the navigation event stream), written
/// as compact text with sorted keys by `text()` / `write(into:)`, the one JSON writer.
/// `text()` serializes it directly: Foundation's `JSONEncoder` produces the same bytes (the tests compare against it,
/// keeping Foundation in the test target only) but takes 10–15 µs per fix object on Linux, 20–30 times the matching
/// itself, and `JSONSerialization` on `[String: Any]` about 90 µs.
public enum JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral,
    Hashable, Sendable
{
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(Int64(value)) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }

    public static func number(_ v: Int) -> JSONValue { .int(Int64(v)) }
    /// A number, or null when it is not finite (JSON has no NaN).
    public static func number(_ v: Double) -> JSONValue { v.isFinite ? .double(v) : .null }
    /// `[latitude, longitude]`.
    static func latLon(_ c: GeoCoordinate) -> JSONValue { [.number(c.latitude), .number(c.longitude)] }
    /// `[longitude, latitude]` (GeoJSON's order).
    static func lonLat(_ c: GeoCoordinate) -> JSONValue { [.number(c.longitude), .number(c.latitude)] }

    /// An object's member (nil for a missing key or when this is not an object); setting adds, replaces or (nil)
    /// removes it on an object and does nothing on other values.
    public subscript(key: String) -> JSONValue? {
        get {
            if case let .object(o) = self { return o[key] }
            return nil
        }
        set {
            guard case var .object(o) = self else { return }
            o[key] = newValue
            self = .object(o)
        }
    }

    /// The number (an integer as a Double), or nil.
    public var double: Double? {
        switch self {
        case let .double(d): return d
        case let .int(i): return Double(i)
        default: return nil
        }
    }
    /// The string, or nil.
    public var string: String? { if case let .string(s) = self { return s } else { return nil } }
    /// The elements of an array, or nil.
    public var array: [JSONValue]? { if case let .array(a) = self { return a } else { return nil } }

    /// The document as compact JSON text with sorted keys and no final newline.
    public func compactText() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The document as compact JSON text with sorted keys and a final newline.
    public func text() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(into: &out)
        out.append(0x0A)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends this value as compact JSON: keys sorted by their UTF-8 bytes, whole doubles below 2^53 without a
    /// fraction, other doubles in Swift's shortest round-trip form, strings escaped as RFC 8259 requires.
    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case let .bool(b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case let .int(i): out.append(contentsOf: String(i).utf8)
        case let .double(d): Self.writeNumber(d, into: &out)
        case let .string(str): Self.writeString(str, into: &out)
        case let .array(a):
            out.append(UInt8(ascii: "["))
            for (k, v) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                v.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(o):
            out.append(UInt8(ascii: "{"))
            for (k, member) in o.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeNumber(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else { out.append(contentsOf: "null".utf8); return }
        if d == d.rounded(), abs(d) < 9_007_199_254_740_992 {
            out.append(contentsOf: String(Int64(d)).utf8)
        } else {
            out.append(contentsOf: d.description.utf8)
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    static func writeString(_ str: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in str.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 15)])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Powers of ten for `rounded(_:places:)`.
private let decimalScales: [Double] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]

/// `v` rounded to `places` (0...6) decimal places: the one rounding of numbers written by every output format.
@inline(__always) func rounded(_ v: Double, places: Int) -> Double {
    let scale = decimalScales[places]
    return (v * scale).rounded() / scale
}
