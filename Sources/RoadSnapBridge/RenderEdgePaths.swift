import CShims

/// The camera of a map view as the drawing layer takes it: unit web-Mercator coordinates (0...1, y south) to
/// points on the picture (built by RoadSnapCore's `MapProjection`).
public struct RenderViewTransform: Sendable, Hashable {
    /// World size in points (256·2^zoom); the target in world points.
    public var world: Double, targetX: Double, targetY: Double
    /// Cosine and sine of the bearing, sine and cosine of the tilt (sine 0: no perspective), eye distance in points.
    public var cosBearing: Double, sinBearing: Double, sinTilt: Double, cosTilt: Double, eye: Double
    /// The target's point on the picture.
    public var centerX: Double, centerY: Double

    public init(world: Double, targetX: Double, targetY: Double, cosBearing: Double, sinBearing: Double,
                sinTilt: Double, cosTilt: Double, eye: Double, centerX: Double, centerY: Double)
    {
        self.world = world; self.targetX = targetX; self.targetY = targetY
        self.cosBearing = cosBearing; self.sinBearing = sinBearing
        self.sinTilt = sinTilt; self.cosTilt = cosTilt; self.eye = eye
        self.centerX = centerX; self.centerY = centerY
    }
}

/// Edge shapes in unit web-Mercator, computed once per map so that a frame only rotates and scales them: edge `e`
/// has `counts[e]` points from `unitXY[2·starts[e]]` on (x0, y0, x1, y1, ...).
public final class RenderEdgeShapes: @unchecked Sendable {
    public let unitXY: [Double]
    public let starts: [Int64]
    public let counts: [Int32]

    /// Fails when the arrays disagree (a start or count outside `unitXY`).
    package init(unitXY: [Double], starts: [Int64], counts: [Int32]) throws(NativeFailure) {
        guard starts.count == counts.count else {
            throw .invalidArgument("edge shapes: \(starts.count) starts but \(counts.count) counts")
        }
        for i in starts.indices where starts[i] < 0 || counts[i] < 0
            || (starts[i] + Int64(counts[i])) * 2 > Int64(unitXY.count)
        {
            throw .invalidArgument("edge shapes: edge \(i) reaches beyond the \(unitXY.count / 2) shape points")
        }
        self.unitXY = unitXY
        self.starts = starts
        self.counts = counts
    }
}

extension RenderViewTransform {
    /// The transform as the C renderer takes it.
    var raw: rsc_view_transform {
        rsc_view_transform(world: world, tx: targetX, ty: targetY, cos_b: cosBearing, sin_b: sinBearing,
                           sin_t: sinTilt, cos_t: cosTilt, eye: eye, cx: centerX, cy: centerY)
    }
}

extension RenderCanvas {
    /// Replaces the current path with the projected polylines of `edges` (indices into `shapes`, each checked by
    /// the caller to be below `shapes.counts.count`): points nearer than `minStep` points to the last kept one
    /// dropped, broken beyond a tilted camera's horizon, edges wholly more than `margin` points off the picture
    /// skipped. Returns the number of points on the path. Stroke it with `strokePath`.
    @discardableResult
    public func pathEdges(_ shapes: RenderEdgeShapes, edges: [Int32], transform: RenderViewTransform,
                          minStep: Double, margin: Double) -> Int
    {
        var t = transform.raw
        return shapes.unitXY.withUnsafeBufferPointer { xy in
            shapes.starts.withUnsafeBufferPointer { s in
                shapes.counts.withUnsafeBufferPointer { c in
                    edges.withUnsafeBufferPointer { e in
                        Int(rsc_render_path_edges(handle, &t, xy.baseAddress, s.baseAddress, c.baseAddress,
                                                  e.baseAddress, e.count, minStep, margin))
                    }
                }
            }
        }
    }

    /// Replaces the current path with the projected rings of areas (`rings` indices into `shapes`), each its own
    /// subpath, simplified and culled as `pathEdges`; fill it with `fillPath`. Returns the number of points.
    @discardableResult
    public func pathRings(_ shapes: RenderEdgeShapes, rings: [Int32], transform: RenderViewTransform,
                          minStep: Double, margin: Double) -> Int
    {
        var t = transform.raw
        return shapes.unitXY.withUnsafeBufferPointer { xy in
            shapes.starts.withUnsafeBufferPointer { s in
                shapes.counts.withUnsafeBufferPointer { c in
                    rings.withUnsafeBufferPointer { r in
                        Int(rsc_render_path_rings(handle, &t, xy.baseAddress, s.baseAddress, c.baseAddress,
                                                  r.baseAddress, r.count, minStep, margin))
                    }
                }
            }
        }
    }

    /// Fills the current path (even-odd: inner rings are holes) and clears it.
    public func fillPath(_ color: RenderColor) { rsc_render_fill_path(handle, color.rgba) }

    /// Strokes the current path (from `pathEdges`), keeping it for another stroke when `keep`; `fastAntialias`
    /// uses cairo's 4x4 coverage grid (about twice as fast, for the road layers).
    public func strokePath(width: Double, color: RenderColor, round: Bool = true, fastAntialias: Bool = false,
                           dash: [Double] = [], keep: Bool = false)
    {
        let style = (round ? RSC_LINE_ROUND : 0) | (fastAntialias ? RSC_LINE_FAST_AA : 0)
        dash.withUnsafeBufferPointer { d in
            rsc_render_stroke_path(handle, width, color.rgba, style, d.baseAddress, Int32(d.count), keep ? 1 : 0)
        }
    }
}
