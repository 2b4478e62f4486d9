import CShims

#if canImport(Glibc)
import Glibc
#endif

/// A colour as 0xRRGGBBAA (straight alpha).
public struct RenderColor: Hashable, Sendable, CustomStringConvertible {
    /// The packed colour, 0xRRGGBBAA.
    public var rgba: UInt32

    /// A colour from its packed 0xRRGGBBAA value.
    public init(rgba: UInt32) { self.rgba = rgba }

    /// A colour from components 0...255.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        rgba = UInt32(red) << 24 | UInt32(green) << 16 | UInt32(blue) << 8 | UInt32(alpha)
    }

    public var red: UInt8 { UInt8(rgba >> 24) }
    public var green: UInt8 { UInt8((rgba >> 16) & 0xFF) }
    public var blue: UInt8 { UInt8((rgba >> 8) & 0xFF) }
    public var alpha: UInt8 { UInt8(rgba & 0xFF) }

    /// The same colour with another alpha (0...1).
    public func withAlpha(_ a: Double) -> RenderColor {
        RenderColor(rgba: rgba & 0xFFFF_FF00 | UInt32(max(0, min(255, (a * 255).rounded()))))
    }

    /// `#rrggbb` (and `aa` when not opaque).
    public var description: String {
        let hex = String(rgba >> (alpha == 255 ? 8 : 0), radix: 16)
        return "#" + String(repeating: "0", count: (alpha == 255 ? 6 : 8) - hex.count) + hex
    }
}

/// Owns one drawing canvas over cairo (CShims/render.c): a raster image (PNG, RGBA) or an SVG document.
/// Coordinates are points, y down; the canvas is `width` x `height` points and `pixelWidth` x `pixelHeight` pixels.
/// Not thread-safe (one per thread).
public final class RenderCanvas {
    let handle: OpaquePointer
    /// What the canvas produces.
    public enum Kind: Sendable { case raster, svg }
    public let kind: Kind
    public let width: Double
    public let height: Double
    public let scale: Double
    @usableFromInline var scratch: [Double] = []
    @usableFromInline var counts: [Int32] = []

    /// A transparent canvas; fails naming the problem for a size outside 1...16384 pixels a side, a bad scale, or
    /// cairo not installed (Debian: libcairo2).
    package init(kind: Kind, width: Double, height: Double, scale: Double = 1) throws(NativeFailure) {
        var err = [CChar](repeating: 0, count: 512)
        let h = rsc_render_canvas_create(kind == .raster ? RSC_CANVAS_RASTER : RSC_CANVAS_SVG, width, height, scale,
                                         &err, err.count)
        guard let h else { throw .invalidArgument(messageFrom(err)) }
        handle = h
        self.kind = kind
        self.width = width
        self.height = height
        self.scale = scale
    }

    /// A raster canvas holding a decoded PNG (scale 1, its pixel size); fails naming why for bytes that are not
    /// a readable PNG.
    package init(png: [UInt8]) throws(NativeFailure) {
        var err = [CChar](repeating: 0, count: 256)
        guard let h = rsc_render_canvas_from_png(png, png.count, &err, err.count) else {
            throw .invalidArgument(messageFrom(err))
        }
        handle = h
        kind = .raster
        width = Double(rsc_render_pixel_width(h))
        height = Double(rsc_render_pixel_height(h))
        scale = 1
    }

    deinit { rsc_render_canvas_destroy(handle) }

    public var pixelWidth: Int { Int(rsc_render_pixel_width(handle)) }
    public var pixelHeight: Int { Int(rsc_render_pixel_height(handle)) }

    /// Fills the whole canvas (replacing what was drawn).
    public func clear(_ color: RenderColor) { rsc_render_clear(handle, color.rgba) }

    /// Collects polylines to stroke in one pass (`lines(...)`): call `beginLines`, then `point`/`endLine`.
    public func beginLines() {
        scratch.removeAll(keepingCapacity: true)
        counts.removeAll(keepingCapacity: true)
        counts.append(0)
    }

    /// Adds a point to the polyline being collected.
    @inlinable public func point(_ x: Double, _ y: Double) {
        scratch.append(x)
        scratch.append(y)
        counts[counts.count - 1] += 1
    }

    /// Ends the polyline being collected (the next point starts another).
    public func endLine() { if counts[counts.count - 1] > 0 { counts.append(0) } }

    /// Number of points collected since `beginLines`.
    public var collectedPoints: Int { scratch.count / 2 }

    /// Strokes what was collected since `beginLines`.
    public func strokeLines(width: Double, color: RenderColor, round: Bool = true, dash: [Double] = []) {
        scratch.withUnsafeBufferPointer { xy in
            counts.withUnsafeBufferPointer { c in
                dash.withUnsafeBufferPointer { d in
                    rsc_render_lines(handle, xy.baseAddress, c.baseAddress, c.count, width, color.rgba,
                                     round ? RSC_LINE_ROUND : 0, d.baseAddress, Int32(d.count))
                }
            }
        }
    }

    /// Strokes one polyline.
    public func polyline(_ points: [(Double, Double)], width: Double, color: RenderColor, round: Bool = true,
                         dash: [Double] = [])
    {
        beginLines()
        for p in points { point(p.0, p.1) }
        strokeLines(width: width, color: color, round: round, dash: dash)
    }

    /// Fills and/or strokes a closed polygon.
    public func polygon(_ points: [(Double, Double)], fill: RenderColor?, strokeWidth: Double = 0,
                        stroke: RenderColor? = nil)
    {
        var xy: [Double] = []
        xy.reserveCapacity(points.count * 2)
        for p in points { xy.append(p.0); xy.append(p.1) }
        rsc_render_polygon(handle, xy, points.count, fill?.rgba ?? 0, strokeWidth, stroke?.rgba ?? 0)
    }

    /// Fills and/or strokes a circle.
    public func circle(x: Double, y: Double, radius: Double, fill: RenderColor?, strokeWidth: Double = 0,
                       stroke: RenderColor? = nil)
    {
        rsc_render_circle(handle, x, y, radius, fill?.rgba ?? 0, strokeWidth, stroke?.rgba ?? 0)
    }

    /// Strokes an arc from `from` to `to` radians (0 = +x, clockwise on screen).
    public func arc(x: Double, y: Double, radius: Double, from a0: Double, to a1: Double, width: Double,
                    color: RenderColor, round: Bool = true)
    {
        rsc_render_arc(handle, x, y, radius, a0, a1, width, color.rgba, round ? RSC_LINE_ROUND : 0)
    }

    /// Text alignment around the anchor.
    public enum TextAlign: Sendable { case left, center, right }

    /// Draws text (DejaVu Sans) with its baseline anchored at (x, y), rotated `angle` radians clockwise.
    public func text(_ s: String, x: Double, y: Double, size: Double, color: RenderColor, angle: Double = 0,
                     bold: Bool = false, align: TextAlign = .left, halo: RenderColor? = nil, haloWidth: Double = 0)
    {
        let a: Int32 = align == .left ? RSC_TEXT_LEFT : align == .center ? RSC_TEXT_CENTER : RSC_TEXT_RIGHT
        rsc_render_text(handle, s, x, y, angle, size, bold ? 1 : 0, a, color.rgba, haloWidth, halo?.rgba ?? 0)
    }

    /// Advance width of `s` in points.
    public func textWidth(_ s: String, size: Double, bold: Bool = false) -> Double {
        rsc_render_text_width(handle, s, size, bold ? 1 : 0)
    }

    /// The picture as PNG bytes (raster) or an SVG document (an SVG canvas is finished by this).
    package func encoded() throws(NativeFailure) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var len = 0
        var err = [CChar](repeating: 0, count: 256)
        let rc = rsc_render_encode(handle, &out, &len, &err, err.count)
        guard rc == RSC_OK, let out else { throw .internalError("encoding the picture: \(messageFrom(err))") }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: len))
    }

    /// The raster canvas as straight RGBA, rows `stride` bytes apart (default tightly packed).
    package func rgba(into buffer: UnsafeMutableRawBufferPointer, stride: Int) throws(NativeFailure) {
        guard kind == .raster else { throw .invalidArgument("an SVG canvas has no pixels") }
        guard stride >= pixelWidth * 4, buffer.count >= stride * pixelHeight, let base = buffer.baseAddress else {
            throw .invalidArgument("RGBA buffer of \(buffer.count) bytes (stride \(stride)) is too small for "
                + "\(pixelWidth)x\(pixelHeight) pixels")
        }
        _ = rsc_render_copy_rgba(handle, base.assumingMemoryBound(to: UInt8.self), stride)
    }

    /// The raster canvas as tightly packed straight RGBA.
    package func rgba() throws(NativeFailure) -> [UInt8] {
        guard kind == .raster else { throw .invalidArgument("an SVG canvas has no pixels") }
        var out = [UInt8](repeating: 0, count: pixelWidth * pixelHeight * 4)
        let stride = pixelWidth * 4
        out.withUnsafeMutableBufferPointer { b in _ = rsc_render_copy_rgba(handle, b.baseAddress, stride) }
        return out
    }
}
