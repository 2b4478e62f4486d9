import RoadSnapBridge

#if canImport(Glibc)
import Glibc
#endif

/// Draws the map view: roads by class from a road network (only those the segment index finds in view), a traffic
/// layer, road names, then the overlays and the my-location puck. One renderer per thread (it keeps a query
/// context and scratch buffers).
public final class MapRenderer {
    /// The roads drawn (nil: only background and overlays, whatever the map type).
    public let network: RoadNetwork?
    private let frame: LocalFrame?
    private let query: SegmentQuery?
    /// Edge shapes in unit web-Mercator (computed once: a frame only rotates and scales them) and each edge's
    /// road bucket.
    private let shapes: RenderEdgeShapes?
    private let edgeBucket: [UInt8]
    private var visible: [Int] = []
    /// Scratch: the visible edges of each bucket (kept between frames).
    private var bucketEdges = [[Int32]](repeating: [], count: Bucket.allCases.count)
    /// Edges found in view by the last `draw` (all edges when the view covered the whole network).
    public private(set) var lastVisibleEdgeCount = 0
    /// Whether roads are culled with the segment index (true); false draws every edge (a baseline for benchmarks).
    public var cullsWithIndex = true

    /// The area layer drawn under the roads (water, buildings), with its rings in unit web-Mercator.
    public let areas: MapAreas?
    private let areaShapes: (shapes: RenderEdgeShapes, water: [Int32], building: [Int32])?

    /// A renderer for `network` (nil for overlays only) and its map's `areas` (water and buildings, drawn under the
    /// roads in map type `normal`; nil or empty for none).
    public init(network: RoadNetwork?, areas: MapAreas? = nil) throws(RoadSnapError) {
        self.network = network
        self.areas = areas
        if let areas, areas.count > 0 {
            let u = try areas.unitShapes()
            areaShapes = (u.0, u.water, u.building)
        } else {
            areaShapes = nil
        }
        if let network, network.edges.count > 0 {
            frame = try network.makeFrame()
            query = try network.makeQuery(capacity: network.edges.count)
            (shapes, edgeBucket) = try Self.unitShapes(network)
        } else {
            frame = nil
            query = nil
            shapes = nil
            edgeBucket = []
        }
    }

    /// The picture as PNG (`.raster`) or SVG (`.svg`) bytes.
    public func picture(_ options: MapViewOptions, overlays: MapOverlays = MapOverlays(),
                        kind: PictureKind) throws(RoadSnapError) -> [UInt8]
    {
        let canvas = try native { () throws(NativeFailure) in
            try RenderCanvas(kind: kind, width: options.width, height: options.height, scale: options.scale)
        }
        draw(options, overlays: overlays, on: canvas)
        return try native { () throws(NativeFailure) in try canvas.encoded() }
    }

    /// The picture as straight RGBA pixels (width·scale × height·scale, rows tightly packed).
    public func rgba(_ options: MapViewOptions, overlays: MapOverlays = MapOverlays()) throws(RoadSnapError) -> [UInt8] {
        let canvas = try native { () throws(NativeFailure) in
            try RenderCanvas(kind: .raster, width: options.width, height: options.height, scale: options.scale)
        }
        draw(options, overlays: overlays, on: canvas)
        return try native { () throws(NativeFailure) in try canvas.rgba() }
    }

    /// Draws the whole view on a canvas of the options' size (replacing what it held).
    public func draw(_ options: MapViewOptions, overlays: MapOverlays, on canvas: RenderCanvas) {
        let style = MapStyle.of(options.effectiveScheme)
        let projection = MapProjection(options)
        canvas.clear(options.background ?? style.background)
        lastVisibleEdgeCount = 0
        if options.mapType == .normal { drawAreas(projection, style, canvas) }
        if options.mapType == .normal, let network {
            findVisibleEdges(network, projection)
            drawRoads(network, projection, style, canvas)
        }
        // Fixes under the routes: matched points lie on them, raw fixes off them stay visible.
        drawFixes(overlays.fixes, projection, style, canvas)
        for route in overlays.routes { drawRoute(route, projection, style, canvas) }
        for marker in overlays.markers { drawMarker(marker, projection, style, canvas) }
        if let me = options.myLocation { drawMyLocation(me, projection, style, canvas) }
    }

    // MARK: areas

    /// Water, then buildings (from zoom 14), filled under the roads.
    private func drawAreas(_ projection: MapProjection, _ style: MapStyle, _ canvas: RenderCanvas) {
        guard let areaShapes else { return }
        let minStep = 0.5 / projection.options.scale
        let t = projection.viewTransform
        if canvas.pathRings(areaShapes.shapes, rings: areaShapes.water, transform: t, minStep: minStep, margin: 1) > 0 {
            canvas.fillPath(style.water)
        }
        if projection.options.camera.zoom >= 14,
           canvas.pathRings(areaShapes.shapes, rings: areaShapes.building, transform: t, minStep: minStep, margin: 1) > 0
        {
            canvas.fillPath(style.building)
        }
    }

    // MARK: roads

    /// Fills `visible` with the edges near the view: the segment index's edges within the radius covering the
    /// view, or every edge when that circle covers the network's bounds.
    private func findVisibleEdges(_ network: RoadNetwork, _ projection: MapProjection) {
        visible.removeAll(keepingCapacity: true)
        let target = projection.options.camera.target
        let radius = projection.visibleRadius()
        let b = network.bounds
        let corners = [GeoCoordinate(uncheckedLatitude: b.minLatitude, longitude: b.minLongitude),
                       GeoCoordinate(uncheckedLatitude: b.maxLatitude, longitude: b.maxLongitude),
                       GeoCoordinate(uncheckedLatitude: b.minLatitude, longitude: b.maxLongitude),
                       GeoCoordinate(uncheckedLatitude: b.maxLatitude, longitude: b.minLongitude)]
        if !cullsWithIndex || corners.allSatisfy({ target.distance(to: $0) <= radius }) {
            visible.append(contentsOf: 0..<network.edges.count)
        } else if let frame, let query {
            // Culling is an optimisation: where PROJ or GEOS fails, every edge is drawn (the picture stays right).
            do {
                let p = try frame.project(latitude: target.latitude, longitude: target.longitude)
                try query.forEachCandidate(near: p, radius: radius, method: .strtree) { visible.append($0.edge) }
            } catch {
                visible.removeAll(keepingCapacity: true)
                visible.append(contentsOf: 0..<network.edges.count)
            }
        }
        lastVisibleEdgeCount = visible.count
    }

    /// Draw order and widths (points at zoom 16) of the road buckets, minor first.
    private enum Bucket: Int, CaseIterable {
        case service, minor, tertiary, secondary, primary, trunk, motorway, ferry

        init(_ c: RoadClass) {
            switch c {
            case .service, .livingStreet: self = .service
            case .residential, .unclassified, .unknown: self = .minor
            case .tertiary, .tertiaryLink, .primaryLink, .secondaryLink, .trunkLink, .motorwayLink: self = .tertiary
            case .secondary: self = .secondary
            case .primary: self = .primary
            case .trunk: self = .trunk
            case .motorway: self = .motorway
            case .ferry: self = .ferry
            }
        }

        var width: Double {
            switch self {
            case .service: return 3.5
            case .minor: return 6
            case .tertiary: return 7.5
            case .secondary: return 8.5
            case .primary: return 9.5
            case .trunk: return 10.5
            case .motorway: return 11.5
            case .ferry: return 2
            }
        }

        func fill(_ s: MapStyle) -> RenderColor {
            switch self {
            case .service, .minor, .tertiary: return s.minor
            case .secondary: return s.secondary
            case .primary: return s.primary
            case .trunk: return s.trunk
            case .motorway: return s.motorway
            case .ferry: return s.route.withAlpha(0.6)
            }
        }
    }

    /// Every edge's shape in unit web-Mercator and its bucket (once per map).
    private static func unitShapes(_ network: RoadNetwork) throws(RoadSnapError) -> (RenderEdgeShapes, [UInt8]) {
        var xy = [Double]()
        xy.reserveCapacity(network.shape.count * 2)
        for i in 0..<network.shape.count {
            let u = WebMercator.unit(network.shape[i])
            xy.append(u.x)
            xy.append(u.y)
        }
        var starts = [Int64](), counts = [Int32](), buckets = [UInt8]()
        starts.reserveCapacity(network.edges.count)
        counts.reserveCapacity(network.edges.count)
        buckets.reserveCapacity(network.edges.count)
        for e in 0..<network.edges.count {
            let edge = network.edges[e]
            starts.append(Int64(edge.shapeStart))
            counts.append(Int32(clamping: edge.shapeCount))
            buckets.append(UInt8(Bucket(edge.attributes.roadClass).rawValue))
        }
        return (try native { () throws(NativeFailure) in
            try RenderEdgeShapes(unitXY: xy, starts: starts, counts: counts)
        }, buckets)
    }

    /// Puts the edges on the canvas's path (projected in C over the cached shapes; below half a pixel simplified,
    /// off the picture skipped); false when none was.
    private func pathEdges(_ edges: [Int32], _ projection: MapProjection, _ canvas: RenderCanvas, margin: Double)
        -> Bool
    {
        guard let shapes, !edges.isEmpty else { return false }
        return canvas.pathEdges(shapes, edges: edges, transform: projection.viewTransform,
                                minStep: 0.5 / projection.options.scale, margin: margin) > 0
    }

    private func drawRoads(_ network: RoadNetwork, _ projection: MapProjection, _ style: MapStyle,
                           _ canvas: RenderCanvas)
    {
        let zoom = projection.options.camera.zoom
        let factor = max(0.12, min(4, exp2(zoom - 16)))
        for b in bucketEdges.indices { bucketEdges[b].removeAll(keepingCapacity: true) }
        for e in visible { bucketEdges[Int(edgeBucket[e])].append(Int32(truncatingIfNeeded: e)) }
        for bucket in Bucket.allCases {
            if bucket == .service && zoom < 13 { continue }
            let w = max(0.6, bucket.width * factor)
            let casing = w + max(1, w * 0.2)
            guard pathEdges(bucketEdges[bucket.rawValue], projection, canvas, margin: casing / 2 + 2) else { continue }
            if bucket == .ferry {
                canvas.strokePath(width: w, color: bucket.fill(style), fastAntialias: true, dash: [6, 4])
                continue
            }
            if w >= 2 { canvas.strokePath(width: casing, color: style.roadCasing, fastAntialias: true, keep: true) }
            canvas.strokePath(width: w, color: w >= 2 ? bucket.fill(style) : style.roadCasing, fastAntialias: true)
        }
        if let traffic = projection.options.traffic { drawTraffic(network, traffic, projection, style, canvas, factor) }
        if projection.options.showsRoadNames, zoom >= 14 { drawRoadNames(network, projection, style, canvas) }
    }

    /// Roads the feed covers, coloured by their speed against free flow (the delay categories' ratios).
    private func drawTraffic(_ network: RoadNetwork, _ traffic: TrafficFeed, _ projection: MapProjection,
                             _ style: MapStyle, _ canvas: RenderCanvas, _ factor: Double)
    {
        let classifier = DelayClassifier()
        var byCategory: [DelayCategory: [Int32]] = [:]
        for e in visible {
            let edge = network.edges[e]
            guard let kmh = traffic.speedKmh(for: edge.sourceID) else { continue }
            var t = DelayClassifier.Totals()
            let free = edge.attributes.speedKmh(forward: edge.allows(forward: true))
            t.add(length: max(edge.length, 1), freeFlowKmh: free, trafficKmh: kmh)
            byCategory[classifier.category(t), default: []].append(Int32(truncatingIfNeeded: e))
        }
        for (category, color) in [(DelayCategory.light, style.trafficLight), (.medium, style.trafficMedium),
                                  (.heavy, style.trafficHeavy)]
        {
            let width = max(1.5, 4 * factor)
            guard let edges = byCategory[category], pathEdges(edges, projection, canvas, margin: width) else { continue }
            canvas.strokePath(width: width, color: color)
        }
    }

    /// Names along the larger roads: per name, its longest straight piece in view that fits the text, rotated
    /// along it (kept upright), skipped when it would overlap a label already placed.
    private func drawRoadNames(_ network: RoadNetwork, _ projection: MapProjection, _ style: MapStyle,
                               _ canvas: RenderCanvas)
    {
        let o = projection.options
        var best: [String: (x: Double, y: Double, angle: Double, length: Double)] = [:]
        for e in visible {
            let a = network.edges[e].attributes
            guard let name = a.name, !name.isEmpty else { continue }
            switch a.roadClass {
            case .motorway, .trunk, .primary, .secondary, .tertiary: break
            default: continue
            }
            // This edge's longest piece in view, then one look-up by name.
            var previous: (x: Double, y: Double)?
            var edgeBest: (x: Double, y: Double, angle: Double, length: Double)?
            let edge = network.edges[e]
            for i in edge.shapeRange {
                let p: (x: Double, y: Double)?
                if let shapes {
                    p = projection.point(worldX: shapes.unitXY[2 * i] * projection.world,
                                         worldY: shapes.unitXY[2 * i + 1] * projection.world)
                } else {
                    p = projection.point(network.shape[i])
                }
                guard let p else { previous = nil; continue }
                defer { previous = p }
                guard let q = previous else { continue }
                let mx = (p.x + q.x) / 2, my = (p.y + q.y) / 2
                guard mx > 20, mx < o.width - 20, my > 20, my < o.height - 20 else { continue }
                let len = ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot()
                if len > (edgeBest?.length ?? 0) {
                    var angle = atan2(p.y - q.y, p.x - q.x)
                    if angle > .pi / 2 { angle -= .pi } else if angle < -.pi / 2 { angle += .pi }
                    edgeBest = (mx, my, angle, len)
                }
            }
            if let edgeBest, edgeBest.length > (best[name]?.length ?? 0) { best[name] = edgeBest }
        }
        var placed: [(Double, Double)] = []
        let size = 11.0
        for name in best.keys.sorted() {
            guard let b = best[name] else { continue }
            let width = canvas.textWidth(name, size: size)
            guard width + 8 <= b.length else { continue }
            let hx = abs(cos(b.angle)) * width / 2 + 4, hy = abs(sin(b.angle)) * width / 2 + size
            guard b.x - hx > 0, b.x + hx < o.width, b.y - hy > 0, b.y + hy < o.height else { continue }
            if placed.contains(where: { ($0.0 - b.x) * ($0.0 - b.x) + ($0.1 - b.y) * ($0.1 - b.y) < 60 * 60 }) { continue }
            placed.append((b.x, b.y))
            // Baseline a third of the size below the road's centre line so the text sits on it.
            let ox = -sin(b.angle) * size * 0.35, oy = cos(b.angle) * size * 0.35
            canvas.text(name, x: b.x + ox, y: b.y + oy, size: size, color: style.label, angle: b.angle,
                        align: .center, halo: style.labelHalo, haloWidth: 2)
        }
    }

    // MARK: overlays

    private func drawRoute(_ route: RouteLine, _ projection: MapProjection, _ style: MapStyle, _ canvas: RenderCanvas) {
        guard route.coordinates.count >= 2 else { return }
        // Split at the driven distance (interpolated on the picture between the two fixes around it).
        var driven: [(Double, Double)] = [], ahead: [(Double, Double)] = []
        var along = 0.0
        var previous: GeoCoordinate?
        var previousPoint: (x: Double, y: Double)?
        for c in route.coordinates {
            guard let p = projection.point(c) else { previous = c; previousPoint = nil; continue }
            if let prev = previous, let pp = previousPoint {
                let d = prev.distance(to: c)
                if along < route.drivenDistance, along + d >= route.drivenDistance, d > 0 {
                    let t = (route.drivenDistance - along) / d
                    let split = (pp.x + (p.x - pp.x) * t, pp.y + (p.y - pp.y) * t)
                    driven.append(split)
                    ahead.append(split)
                }
                along += d
            }
            if along <= route.drivenDistance && route.drivenDistance > 0 { driven.append((p.x, p.y)) }
            else { ahead.append((p.x, p.y)) }
            previous = c
            previousPoint = p
        }
        let w = route.width
        if driven.count >= 2 {
            canvas.polyline(driven, width: w + 2, color: style.roadCasing)
            canvas.polyline(driven, width: w, color: style.driven)
        }
        if ahead.count >= 2 {
            canvas.polyline(ahead, width: w + 2, color: style.routeCasing)
            canvas.polyline(ahead, width: w, color: route.color ?? style.route)
        }
    }

    private func drawFixes(_ fixes: [FixMark], _ projection: MapProjection, _ style: MapStyle, _ canvas: RenderCanvas) {
        guard !fixes.isEmpty else { return }
        canvas.beginLines()
        for f in fixes {
            guard let m = f.matched, let a = projection.point(f.raw), let b = projection.point(m) else { continue }
            canvas.point(a.x, a.y)
            canvas.point(b.x, b.y)
            canvas.endLine()
        }
        canvas.strokeLines(width: 1, color: style.fixLink)
        for f in fixes {
            if let m = f.matched, let b = projection.point(m) {
                canvas.circle(x: b.x, y: b.y, radius: 2.5, fill: style.matchedFix)
            }
            if let a = projection.point(f.raw) {
                canvas.circle(x: a.x, y: a.y, radius: 3, fill: style.rawFix, strokeWidth: 0.8,
                              stroke: style.background)
            }
        }
    }

    private func drawMarker(_ m: MapMarker, _ projection: MapProjection, _ style: MapStyle, _ canvas: RenderCanvas) {
        guard let p = projection.point(m.coordinate) else { return }
        let color = m.color ?? style.marker
        // A pin: its tip on the coordinate, a round head above it.
        canvas.polygon([(p.x, p.y), (p.x - 6, p.y - 14), (p.x + 6, p.y - 14)], fill: color)
        canvas.circle(x: p.x, y: p.y - 17, radius: 9, fill: color, strokeWidth: 1.5, stroke: style.markerText)
        if let label = m.label, !label.isEmpty {
            canvas.text(label, x: p.x, y: p.y - 13, size: 11, color: style.markerText, bold: true, align: .center)
        }
    }

    private func drawMyLocation(_ me: MyLocation, _ projection: MapProjection, _ style: MapStyle,
                                _ canvas: RenderCanvas)
    {
        guard let p = projection.point(me.coordinate) else { return }
        if let accuracy = me.accuracy, accuracy > 0 {
            let r = accuracy / projection.metresPerPoint
            canvas.circle(x: p.x, y: p.y, radius: r, fill: style.accuracy, strokeWidth: 1,
                          stroke: style.location.withAlpha(0.5))
        }
        if let course = me.course {
            let a = (course - projection.options.camera.bearing) * .pi / 180
            let (s, c) = (sin(a), cos(a))
            // A chevron ahead of the dot, pointing along the course (up on the picture is -y).
            func at(_ along: Double, _ side: Double) -> (Double, Double) {
                (p.x + s * along + c * side, p.y - c * along + s * side)
            }
            canvas.polygon([at(19, 0), at(9, -7), at(9, 7)], fill: style.location, strokeWidth: 1.5,
                           stroke: style.locationHalo)
        }
        canvas.circle(x: p.x, y: p.y, radius: 7, fill: style.location, strokeWidth: 2.5, stroke: style.locationHalo)
    }
}

extension MapProjection {
    /// This camera as the drawing layer's transform of unit web-Mercator coordinates.
    var viewTransform: RenderViewTransform {
        RenderViewTransform(world: world, targetX: tx, targetY: ty, cosBearing: cosB, sinBearing: sinB, sinTilt: sinT,
                            cosTilt: cosT, eye: eye, centerX: centerX, centerY: centerY)
    }
}
