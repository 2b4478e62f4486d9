import RoadSnapBridge

// The Bridge is not re-exported: the layers above Core (Formats, the CLI, the C API) import Core only and see of
// the Bridge just the types named here. The public ones appear in Core's own public API (points in a network's
// frame, candidates, colours, canvases, the shared matching graph); the package ones are services of this package
// (parsers, crash notes, the C libraries' log hook) and no part of the library's API. Their throwing members are
// package-level and fail with the Bridge's `NativeFailure`: call them through `native { ... }`, which maps it to
// `RoadSnapError` (`RoadSnapError.init(_: NativeFailure)`, the one mapping).

/// A point in a map's local metric frame: metres east (`x`) and north (`y`) of the frame's centre.
public typealias LocalPoint = RoadSnapBridge.LocalPoint
/// One candidate road position for a fix (edge, foot point, distance, offset, bearing).
public typealias SnapCandidate = RoadSnapBridge.SnapCandidate
/// The C copy of a network's directed graph for matching, shared between threads (`MatchGraph(network:)`).
public typealias MatchGraph = RoadSnapBridge.MatchGraph
/// A colour as 0xRRGGBBAA.
public typealias RenderColor = RoadSnapBridge.RenderColor
/// A drawing canvas (PNG or SVG) over cairo.
public typealias RenderCanvas = RoadSnapBridge.RenderCanvas
/// What a canvas produces: a raster image (PNG, RGBA) or an SVG document.
public typealias PictureKind = RoadSnapBridge.RenderCanvas.Kind
/// A value guarded by a pthread mutex (which ThreadSanitizer sees), shared between threads: the one lock type.
public typealias Locked = RoadSnapBridge.Locked

package typealias NativeFailure = RoadSnapBridge.NativeFailure
package typealias XMLEventList = RoadSnapBridge.XMLEventList
package typealias JSONNodes = RoadSnapBridge.JSONNodes
package typealias DocumentBytes = RoadSnapBridge.DocumentBytes
package typealias CrashNote = RoadSnapBridge.CrashNote
package typealias NativeLog = RoadSnapBridge.NativeLog

extension RenderColor {
    /// Parses `#RRGGBB` or `#RRGGBBAA` (the `#` optional, hex digits of either case).
    public init(hex text: String) throws(RoadSnapError) {
        var digits = Substring(text)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6 || digits.count == 8, let v = UInt32(digits, radix: 16) else {
            throw .invalidArgument("unknown colour '\(text)': give #RRGGBB or #RRGGBBAA in hexadecimal")
        }
        self.init(rgba: digits.count == 6 ? v << 8 | 0xFF : v)
    }
}
