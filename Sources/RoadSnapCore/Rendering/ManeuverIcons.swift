import RoadSnapBridge

#if canImport(Glibc)
import Glibc
#endif

/// Colours of the generated maneuver and lane images.
public struct ManeuverIconStyle: Hashable, Sendable {
    /// The way to go.
    public var primary: RenderColor
    /// Roads not taken, the roundabout ring, lanes not recommended.
    public var secondary: RenderColor
    /// nil: transparent.
    public var background: RenderColor?

    public init(primary: RenderColor, secondary: RenderColor, background: RenderColor? = nil) {
        self.primary = primary
        self.secondary = secondary
        self.background = background
    }

    /// Dark symbols for a light banner.
    public static let light = ManeuverIconStyle(primary: RenderColor(rgba: 0x2021_24FF),
                                                secondary: RenderColor(rgba: 0xA8AD_B3FF))
    /// Light symbols for a dark banner.
    public static let dark = ManeuverIconStyle(primary: RenderColor(rgba: 0xFFFF_FFFF),
                                               secondary: RenderColor(rgba: 0x6B70_78FF))

    /// The style of a scheme (`auto` gives light).
    public static func of(_ scheme: MapColorScheme) -> ManeuverIconStyle { scheme == .dark ? .dark : .light }
}

/// Generated images like a navigation SDK's: an icon for each maneuver (roundabouts showing their exit and their
/// direction of travel, which is the driving side's) and lane-guidance strips with the recommended lanes highlighted.
///
/// Icons are drawn in a square of `size` points; strokes scale with it.
public enum ManeuverIcons {
    /// A point in the unit square (0...1, y down).
    typealias P = (x: Double, y: Double)

    /// Draws `maneuver`'s icon in the square at (`x`, `y`) of side `size`. `side` places the ramp of the
    /// unspecified on/off ramps (right-hand traffic: off ramps leave to the right, on ramps join from the right).
    public static func draw(_ maneuver: Maneuver, side: DrivingSide = .right, size: Double,
                            style: ManeuverIconStyle, on canvas: RenderCanvas, x: Double = 0, y: Double = 0)
    {
        let pen = Pen(canvas: canvas, ox: x, oy: y, size: size, style: style)
        if let bg = style.background { canvas.polygon([(x, y), (x + size, y), (x + size, y + size), (x, y + size)], fill: bg) }
        let toSide: Double = side == .left ? -1 : 1
        switch maneuver {
        case .unknown:
            pen.ring(center: (0.5, 0.5), radius: 0.3, color: style.primary)
            pen.dot((0.5, 0.5), radius: 0.09, color: style.primary)
        case .depart:
            pen.dot((0.5, 0.8), radius: 0.1, color: style.primary)
            pen.arrow([(0.5, 0.8), (0.5, 0.14)])
        case .destination:
            pen.pin(at: (0.5, 0.86), radius: 0.22)
        case .destinationLeft, .destinationRight:
            let s: Double = maneuver == .destinationLeft ? -1 : 1
            pen.arrow([(0.5 - 0.16 * s, 0.9), (0.5 - 0.16 * s, 0.16)])
            pen.pin(at: (0.5 + 0.2 * s, 0.62), radius: 0.14)
        case .straight:
            pen.arrow([(0.5, 0.9), (0.5, 0.12)])
        case .nameChange:
            pen.line([(0.2, 0.52), (0.8, 0.52)], color: style.secondary)
            pen.arrow([(0.5, 0.9), (0.5, 0.12)])
        case .turnLeft, .turnRight, .turnSlightLeft, .turnSlightRight, .turnSharpLeft, .turnSharpRight:
            pen.turn(angle: turnAngle(maneuver))
        case .turnKeepLeft: pen.keep(-1)
        case .turnKeepRight: pen.keep(1)
        case .turnUTurnClockwise: pen.uTurn(clockwise: true)
        case .turnUTurnCounterClockwise: pen.uTurn(clockwise: false)
        case .mergeUnspecified:
            pen.line([(0.22, 0.9), (0.22, 0.72), (0.5, 0.46)], color: style.secondary)
            pen.line([(0.78, 0.9), (0.78, 0.72), (0.5, 0.46)], color: style.secondary)
            pen.arrow([(0.5, 0.9), (0.5, 0.12)])
        case .mergeLeft, .mergeRight:
            let s: Double = maneuver == .mergeLeft ? 1 : -1 // where the merging road comes from
            pen.line([(0.5 - 0.1 * s, 0.9), (0.5 - 0.1 * s, 0.4)], color: style.secondary)
            pen.arrow([(0.5 + 0.2 * s, 0.9), (0.5 + 0.2 * s, 0.68), (0.5 - 0.1 * s, 0.4), (0.5 - 0.1 * s, 0.12)])
        case .forkLeft, .forkRight:
            let s: Double = maneuver == .forkLeft ? -1 : 1
            pen.line([(0.5, 0.62), (0.5 - 0.22 * s, 0.38), (0.5 - 0.22 * s, 0.14)], color: style.secondary)
            pen.arrow([(0.5, 0.9), (0.5, 0.62), (0.5 + 0.22 * s, 0.38), (0.5 + 0.22 * s, 0.12)])
        case .onRampUnspecified:
            pen.line([(0.5 - 0.26 * toSide, 0.92), (0.5 - 0.26 * toSide, 0.08)], color: style.secondary)
            pen.arrow([(0.5 + 0.1 * toSide, 0.9), (0.5 + 0.1 * toSide, 0.6), (0.5 - 0.06 * toSide, 0.4),
                       (0.5 - 0.06 * toSide, 0.12)])
        case .offRampUnspecified:
            pen.line([(0.5 - 0.1 * toSide, 0.9), (0.5 - 0.1 * toSide, 0.08)], color: style.secondary)
            pen.arrow([(0.5 - 0.1 * toSide, 0.9), (0.5 - 0.1 * toSide, 0.6), (0.5 + 0.22 * toSide, 0.2)])
        case .onRampLeft, .onRampRight, .onRampSlightLeft, .onRampSlightRight, .onRampSharpLeft, .onRampSharpRight:
            pen.turn(angle: turnAngle(maneuver), joining: true)
        case .onRampKeepLeft: pen.keep(-1, joining: true)
        case .onRampKeepRight: pen.keep(1, joining: true)
        case .onRampUTurnClockwise: pen.uTurn(clockwise: true, ramp: true)
        case .onRampUTurnCounterClockwise: pen.uTurn(clockwise: false, ramp: true)
        case .offRampLeft, .offRampRight, .offRampSlightLeft, .offRampSlightRight, .offRampSharpLeft,
             .offRampSharpRight:
            pen.turn(angle: turnAngle(maneuver), leaving: true)
        case .offRampKeepLeft: pen.keep(-1, leaving: true)
        case .offRampKeepRight: pen.keep(1, leaving: true)
        case .offRampUTurnClockwise: pen.uTurn(clockwise: true, ramp: true, leaving: true)
        case .offRampUTurnCounterClockwise: pen.uTurn(clockwise: false, ramp: true, leaving: true)
        case .roundaboutClockwise, .roundaboutCounterClockwise:
            pen.roundabout(clockwise: maneuver == .roundaboutClockwise, exitAngle: nil)
        case .roundaboutExitClockwise, .roundaboutExitCounterClockwise:
            pen.roundaboutExit(clockwise: maneuver == .roundaboutExitClockwise)
        case .roundaboutStraightClockwise, .roundaboutStraightCounterClockwise, .roundaboutLeftClockwise,
             .roundaboutLeftCounterClockwise, .roundaboutRightClockwise, .roundaboutRightCounterClockwise,
             .roundaboutSlightLeftClockwise, .roundaboutSlightLeftCounterClockwise, .roundaboutSlightRightClockwise,
             .roundaboutSlightRightCounterClockwise, .roundaboutSharpLeftClockwise,
             .roundaboutSharpLeftCounterClockwise, .roundaboutSharpRightClockwise,
             .roundaboutSharpRightCounterClockwise, .roundaboutUTurnClockwise, .roundaboutUTurnCounterClockwise:
            pen.roundabout(clockwise: maneuver.rawValue.hasSuffix("Clockwise")
                && !maneuver.rawValue.hasSuffix("CounterClockwise"), exitAngle: turnAngle(maneuver))
        case .ferryBoat:
            pen.polygon([(0.14, 0.56), (0.86, 0.56), (0.74, 0.74), (0.26, 0.74)])
            pen.polygon([(0.32, 0.56), (0.32, 0.36), (0.62, 0.36), (0.7, 0.56)])
            pen.line([(0.48, 0.36), (0.48, 0.2)], color: style.primary)
            pen.line([(0.12, 0.86), (0.3, 0.82), (0.5, 0.86), (0.7, 0.82), (0.88, 0.86)], color: style.secondary,
                     width: 0.05)
        case .ferryTrain:
            pen.polygon([(0.26, 0.2), (0.74, 0.2), (0.74, 0.68), (0.26, 0.68)])
            pen.polygon([(0.33, 0.28), (0.67, 0.28), (0.67, 0.44), (0.33, 0.44)], color: style.secondary)
            pen.dot((0.36, 0.76), radius: 0.06, color: style.primary)
            pen.dot((0.64, 0.76), radius: 0.06, color: style.primary)
            pen.line([(0.12, 0.88), (0.88, 0.88)], color: style.secondary, width: 0.05)
        }
    }

    /// Signed angle of a maneuver's direction in degrees (positive right; 180 a U-turn), 0 when it has none.
    static func turnAngle(_ m: Maneuver) -> Double {
        let r = m.rawValue
        if r.contains("UTurn") { return 180 }
        let sign: Double = r.contains("Left") ? -1 : r.contains("Right") ? 1 : 0
        if r.contains("Slight") { return 45 * sign }
        if r.contains("Sharp") { return 135 * sign }
        if r.contains("Straight") { return 0 }
        return 90 * sign
    }

    /// The icon as a PNG (a square of `size` points at `scale` pixels a point).
    public static func png(_ maneuver: Maneuver, side: DrivingSide = .right, size: Double, scale: Double = 1,
                           style: ManeuverIconStyle) throws(RoadSnapError) -> [UInt8]
    {
        let canvas = try native { () throws(NativeFailure) in
            try RenderCanvas(kind: .raster, width: size, height: size, scale: scale)
        }
        draw(maneuver, side: side, size: size, style: style, on: canvas)
        return try native { () throws(NativeFailure) in try canvas.encoded() }
    }

    /// The icon as straight RGBA pixels.
    public static func rgba(_ maneuver: Maneuver, side: DrivingSide = .right, size: Double, scale: Double = 1,
                            style: ManeuverIconStyle) throws(RoadSnapError) -> [UInt8]
    {
        let canvas = try native { () throws(NativeFailure) in
            try RenderCanvas(kind: .raster, width: size, height: size, scale: scale)
        }
        draw(maneuver, side: side, size: size, style: style, on: canvas)
        return try native { () throws(NativeFailure) in try canvas.rgba() }
    }

    // MARK: lanes

    /// Width in points of a lane strip of `count` lanes at `height`.
    public static func laneStripWidth(count: Int, height: Double) -> Double { Double(max(count, 1)) * height * 0.72 }

    /// Draws a lane strip: each lane's arrows (the recommended directions in the primary colour, the others
    /// secondary), lanes separated by dashed lines.
    public static func drawLanes(_ lanes: [Lane], height: Double, style: ManeuverIconStyle, on canvas: RenderCanvas,
                                 x: Double = 0, y: Double = 0)
    {
        let w = height * 0.72
        let total = laneStripWidth(count: lanes.count, height: height)
        if let bg = style.background {
            canvas.polygon([(x, y), (x + total, y), (x + total, y + height), (x, y + height)], fill: bg)
        }
        for i in 1..<max(1, lanes.count) {
            canvas.polyline([(x + Double(i) * w, y + height * 0.1), (x + Double(i) * w, y + height * 0.9)],
                            width: max(1, height * 0.03), color: style.secondary, round: false,
                            dash: [height * 0.08, height * 0.06])
        }
        for (i, lane) in lanes.enumerated() {
            // Arrows of the lane drawn in a square cell centred in the lane; recommended ones last (on top).
            let cell = Pen(canvas: canvas, ox: x + Double(i) * w + (w - height) / 2, oy: y, size: height,
                           style: style)
            let directions = lane.directions.isEmpty ? [LaneDirection(shape: .unknown, isRecommended: false)]
                : lane.directions
            for d in directions.sorted(by: { !$0.isRecommended && $1.isRecommended }) {
                cell.laneArrow(d.shape, color: d.isRecommended ? style.primary : style.secondary)
            }
        }
    }

    /// A lane strip as a PNG.
    public static func lanesPNG(_ lanes: [Lane], height: Double, scale: Double = 1,
                                style: ManeuverIconStyle) throws(RoadSnapError) -> [UInt8]
    {
        let canvas = try native { () throws(NativeFailure) in
            try RenderCanvas(kind: .raster, width: laneStripWidth(count: lanes.count, height: height),
                                          height: height, scale: scale)
        }
        drawLanes(lanes, height: height, style: style, on: canvas)
        return try native { () throws(NativeFailure) in try canvas.encoded() }
    }

    /// A small set of lane configurations for `roadsnap icons` (a name and the lanes, left to right).
    public static let sampleLaneSets: [(name: String, lanes: [Lane])] = {
        func lane(_ shapes: [LaneShape], _ recommended: LaneShape?) -> Lane {
            Lane(directions: shapes.map { LaneDirection(shape: $0, isRecommended: $0 == recommended) })
        }
        return [
            ("lanes-left-turn", [lane([.normalLeft], .normalLeft), lane([.straight], nil), lane([.straight], nil),
                                 lane([.straight, .normalRight], nil)]),
            ("lanes-straight", [lane([.normalLeft], nil), lane([.straight], .straight), lane([.straight], .straight),
                                lane([.normalRight], nil)]),
            ("lanes-right-exit", [lane([.straight], nil), lane([.straight], nil), lane([.straight, .slightRight], .slightRight),
                                  lane([.slightRight], .slightRight)]),
            ("lanes-u-turn", [lane([.uTurnLeft, .normalLeft], .uTurnLeft), lane([.straight], nil),
                              lane([.straight, .sharpRight], nil)]),
        ]
    }()
}

/// Strokes in a unit square mapped onto the canvas.
struct Pen {
    let canvas: RenderCanvas
    let ox: Double, oy: Double, size: Double
    let style: ManeuverIconStyle
    var width: Double { size * 0.11 }

    func map(_ p: ManeuverIcons.P) -> (Double, Double) { (ox + p.x * size, oy + p.y * size) }

    func line(_ points: [ManeuverIcons.P], color: RenderColor, width w: Double? = nil) {
        canvas.polyline(points.map(map), width: (w ?? 0.11) * size, color: color, round: false)
    }

    func polygon(_ points: [ManeuverIcons.P], color: RenderColor? = nil) {
        canvas.polygon(points.map(map), fill: color ?? style.primary)
    }

    func dot(_ p: ManeuverIcons.P, radius: Double, color: RenderColor) {
        let c = map(p)
        canvas.circle(x: c.0, y: c.1, radius: radius * size, fill: color)
    }

    func ring(center: ManeuverIcons.P, radius: Double, color: RenderColor) {
        let c = map(center)
        canvas.circle(x: c.0, y: c.1, radius: radius * size, fill: nil, strokeWidth: width, stroke: color)
    }

    /// A polyline ending in an arrowhead along its last segment (in the primary colour unless given).
    func arrow(_ points: [ManeuverIcons.P], color: RenderColor? = nil, scale k: Double = 1) {
        guard points.count >= 2, let end = points.last else { return }
        let prev = points[points.count - 2]
        let dx = end.x - prev.x, dy = end.y - prev.y
        let len = max((dx * dx + dy * dy).squareRoot(), 1e-9)
        let ux = dx / len, uy = dy / len
        let head = 0.22 * k, half = 0.16 * k
        var body = points
        body[body.count - 1] = (end.x - ux * head * 0.8, end.y - uy * head * 0.8)
        let c = color ?? style.primary
        canvas.polyline(body.map(map), width: 0.11 * k * size, color: c, round: false)
        let base = (end.x - ux * head, end.y - uy * head)
        canvas.polygon([map(end), map((base.0 - uy * half, base.1 + ux * half)),
                        map((base.0 + uy * half, base.1 - ux * half))], fill: c)
    }

    /// A turn by `angle` degrees (positive right): a stem up, then an arm in the new direction. `joining` adds the
    /// road joined alongside the arm (on ramps), `leaving` the road left behind continuing straight (off ramps).
    func turn(angle: Double, joining: Bool = false, leaving: Bool = false) {
        let a = angle * .pi / 180
        let arm = 0.42
        let shift = -sin(a) * arm / 2
        let knee = (0.5 + shift, 0.6 - max(0, -cos(a)) * 0.16)
        let end = (knee.0 + sin(a) * arm, knee.1 - cos(a) * arm)
        if leaving { line([(knee.0, 0.92), (knee.0, 0.08)], color: style.secondary) }
        if joining {
            // The road joined: parallel to the arm, beside it.
            let dx = sin(a), dy = -cos(a), nx = cos(a), ny = sin(a), off = 0.16
            line([(knee.0 + nx * off, knee.1 + ny * off), (end.0 + nx * off + dx * 0.1, end.1 + ny * off + dy * 0.1)],
                 color: style.secondary, width: 0.07)
        }
        arrow([(knee.0, 0.92), knee, end])
    }

    /// Keep to a side (-1 left, 1 right): a lane shift then straight on.
    func keep(_ s: Double, joining: Bool = false, leaving: Bool = false) {
        if leaving { line([(0.5 - 0.1 * s, 0.92), (0.5 - 0.1 * s, 0.08)], color: style.secondary) }
        if joining { line([(0.5 + 0.32 * s, 0.5), (0.5 + 0.32 * s, 0.08)], color: style.secondary, width: 0.07) }
        arrow([(0.5 - 0.1 * s, 0.92), (0.5 - 0.1 * s, 0.64), (0.5 + 0.14 * s, 0.42), (0.5 + 0.14 * s, 0.12)])
    }

    /// A U-turn: up, round, down. Counter-clockwise swings left (right-hand traffic).
    func uTurn(clockwise: Bool, ramp: Bool = false, leaving: Bool = false) {
        let s: Double = clockwise ? 1 : -1
        let up = 0.5 - 0.16 * s, down = 0.5 + 0.16 * s
        if ramp {
            let x = leaving ? up : down
            line([(x - 0.3 * s * (leaving ? 0.6 : -0.6), 0.92), (x - 0.3 * s * (leaving ? 0.6 : -0.6), 0.1)],
                 color: style.secondary, width: 0.07)
        }
        var pts: [ManeuverIcons.P] = [(up, 0.9), (up, 0.42)]
        for i in 1...12 {
            let t = Double(i) / 12 * .pi
            pts.append((0.5 - 0.16 * s * cos(t), 0.42 - 0.16 * sin(t)))
        }
        pts.append((down, 0.74))
        arrow(pts)
    }

    /// A roundabout entered from the bottom: the ring, the way round in the direction of travel, and the exit at
    /// `exitAngle` degrees from straight on (nil: no exit shown, an arrowhead on the ring).
    func roundabout(clockwise: Bool, exitAngle: Double?) {
        let c: ManeuverIcons.P = (0.5, 0.46), r = 0.17
        ring(center: c, radius: r, color: style.secondary)
        let entry = Double.pi / 2 // screen angle of the bottom of the ring (y down, clockwise positive)
        var end: Double
        if let exitAngle {
            end = -Double.pi / 2 + exitAngle * .pi / 180
            if abs(exitAngle) >= 180 { end = entry + (clockwise ? -0.5 : 0.5) } // U-turn: exit beside the entry
            // Travel from the entry to the exit in the direction of circulation.
            if clockwise { while end <= entry { end += 2 * .pi } } else { while end >= entry { end -= 2 * .pi } }
        } else {
            end = entry + (clockwise ? 1.5 : -1.5) * .pi
        }
        var pts: [ManeuverIcons.P] = [(0.5, 0.92), (0.5, c.y + r)]
        let steps = 24
        for i in 1...steps {
            let t = entry + (end - entry) * Double(i) / Double(steps)
            pts.append((c.x + r * cos(t), c.y + r * sin(t)))
        }
        if exitAngle != nil {
            let last = pts[pts.count - 1]
            let ex = cos(end), ey = sin(end)
            pts.append((last.x + ex * 0.3, last.y + ey * 0.3))
        }
        arrow(pts, scale: 0.85)
    }

    /// Leaving a roundabout already driven on: a quarter of the ring, then the exit.
    func roundaboutExit(clockwise: Bool) {
        let c: ManeuverIcons.P = (0.5, 0.5), r = 0.22
        ring(center: c, radius: r, color: style.secondary)
        let start = clockwise ? Double.pi : 0.0, end = -Double.pi / 2
        var pts: [ManeuverIcons.P] = []
        for i in 0...16 {
            let t = start + (end - start) * Double(i) / 16
            pts.append((c.x + r * cos(t), c.y + r * sin(t)))
        }
        let last = pts[pts.count - 1]
        pts.append((last.x + (clockwise ? 0.12 : -0.12), last.y - 0.08))
        pts.append((last.x + (clockwise ? 0.2 : -0.2), last.y - 0.3))
        arrow(pts)
    }

    /// A destination pin with its tip at `tip`.
    func pin(at tip: ManeuverIcons.P, radius: Double) {
        let center: ManeuverIcons.P = (tip.x, tip.y - radius * 2.4)
        polygon([tip, (tip.x - radius * 0.8, center.y + radius * 0.5), (tip.x + radius * 0.8, center.y + radius * 0.5)])
        dot(center, radius: radius, color: style.primary)
        dot(center, radius: radius * 0.4, color: style.background ?? style.secondary)
    }

    /// One lane arrow in the cell (smaller strokes than an icon).
    func laneArrow(_ shape: LaneShape, color: RenderColor) {
        let k = 0.8
        switch shape {
        case .unknown, .straight:
            arrow([(0.5, 0.9), (0.5, 0.14)], color: color, scale: k)
        case .uTurnLeft, .uTurnRight:
            let s: Double = shape == .uTurnRight ? 1 : -1
            var pts: [ManeuverIcons.P] = [(0.5 - 0.12 * s, 0.9), (0.5 - 0.12 * s, 0.4)]
            for i in 1...10 {
                let t = Double(i) / 10 * .pi
                pts.append((0.5 - 0.12 * s * cos(t), 0.4 - 0.12 * sin(t)))
            }
            pts.append((0.5 + 0.12 * s, 0.66))
            arrow(pts, color: color, scale: k)
        default:
            let angle: Double
            switch shape {
            case .slightLeft: angle = -45
            case .slightRight: angle = 45
            case .normalLeft: angle = -90
            case .normalRight: angle = 90
            case .sharpLeft: angle = -135
            default: angle = 135
            }
            let a = angle * .pi / 180
            let knee = (0.5, 0.55)
            arrow([(0.5, 0.9), knee, (knee.0 + sin(a) * 0.3, knee.1 - cos(a) * 0.3)], color: color, scale: k)
        }
    }
}
