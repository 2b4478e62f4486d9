import RoadSnapBridge

/// A polyline drawn over the map: a route (the part already driven greyed) or a sub-match in its own colour.
public struct RouteLine: Hashable, Sendable {
    public var coordinates: [GeoCoordinate]
    /// The colour of the part still to drive; nil for the scheme's route colour.
    public var color: RenderColor?
    /// Metres from the start already driven (drawn grey); 0 for none.
    public var drivenDistance: Double
    /// Line width in points.
    public var width: Double

    /// Checks the driven distance and width are finite and not negative.
    public init(coordinates: [GeoCoordinate], color: RenderColor? = nil, drivenDistance: Double = 0,
                width: Double = 6) throws(RoadSnapError)
    {
        guard drivenDistance.isFinite, drivenDistance >= 0 else {
            throw .invalidArgument("driven distance must be finite metres >= 0, got \(drivenDistance)")
        }
        guard width.isFinite, width > 0 else { throw .invalidArgument("line width must be positive, got \(width)") }
        self.coordinates = coordinates
        self.color = color
        self.drivenDistance = drivenDistance
        self.width = width
    }
}

/// A waypoint marker: a pin with an optional short label (a letter or number).
public struct MapMarker: Hashable, Sendable {
    public var coordinate: GeoCoordinate
    public var label: String?
    /// nil for the scheme's marker colour.
    public var color: RenderColor?

    public init(coordinate: GeoCoordinate, label: String? = nil, color: RenderColor? = nil) {
        self.coordinate = coordinate
        self.label = label
        self.color = color
    }
}

/// A raw fix and, when it was matched, where it was matched to (joined by a short line).
public struct FixMark: Hashable, Sendable {
    public var raw: GeoCoordinate
    public var matched: GeoCoordinate?

    public init(raw: GeoCoordinate, matched: GeoCoordinate?) {
        self.raw = raw
        self.matched = matched
    }
}

/// What is drawn over the map, bottom to top: fixes, route lines, markers (then the my-location puck).
public struct MapOverlays: Hashable, Sendable {
    public var routes: [RouteLine]
    public var fixes: [FixMark]
    public var markers: [MapMarker]

    public init(routes: [RouteLine] = [], fixes: [FixMark] = [], markers: [MapMarker] = []) {
        self.routes = routes
        self.fixes = fixes
        self.markers = markers
    }

    /// Every coordinate drawn (for fitting the camera), nil when there is none.
    public var bounds: GeoBoundingBox? {
        var all: [GeoCoordinate] = []
        for r in routes { all += r.coordinates }
        for f in fixes { all.append(f.raw); if let m = f.matched { all.append(m) } }
        for m in markers { all.append(m.coordinate) }
        return GeoBoundingBox(covering: all)
    }
}

/// The colours of one scheme.
public struct MapStyle: Hashable, Sendable {
    public var background: RenderColor
    public var roadCasing: RenderColor
    /// Road fill by class (major roads warmer).
    public var motorway: RenderColor, trunk: RenderColor, primary: RenderColor, secondary: RenderColor
    public var minor: RenderColor
    public var label: RenderColor, labelHalo: RenderColor
    public var route: RenderColor, driven: RenderColor, routeCasing: RenderColor
    public var rawFix: RenderColor, matchedFix: RenderColor, fixLink: RenderColor
    public var marker: RenderColor, markerText: RenderColor
    public var location: RenderColor, locationHalo: RenderColor, accuracy: RenderColor
    /// Traffic colours: free flow, slower, heavy (speed against free flow as the delay categories).
    public var trafficLight: RenderColor, trafficMedium: RenderColor, trafficHeavy: RenderColor
    /// Area fills (the map's area layer, under the roads).
    public var water: RenderColor, building: RenderColor

    /// Light: a pale land colour, white minor roads, warm major roads, blue route.
    public static let light = MapStyle(
        background: RenderColor(rgba: 0xF2EF_E9FF), roadCasing: RenderColor(rgba: 0xC8C2_B8FF),
        motorway: RenderColor(rgba: 0xE892_A2FF), trunk: RenderColor(rgba: 0xF9B2_9CFF),
        primary: RenderColor(rgba: 0xFCD6_A4FF), secondary: RenderColor(rgba: 0xF7FA_BFFF),
        minor: RenderColor(rgba: 0xFFFF_FFFF), label: RenderColor(rgba: 0x3333_33FF),
        labelHalo: RenderColor(rgba: 0xFFFF_FFDD), route: RenderColor(rgba: 0x1A73_E8FF),
        driven: RenderColor(rgba: 0x9AA0_A6FF), routeCasing: RenderColor(rgba: 0x0B4C_A8FF),
        rawFix: RenderColor(rgba: 0xD93A_2BFF), matchedFix: RenderColor(rgba: 0x0F9D_58FF),
        fixLink: RenderColor(rgba: 0x5555_55AA), marker: RenderColor(rgba: 0xDB44_37FF),
        markerText: RenderColor(rgba: 0xFFFF_FFFF), location: RenderColor(rgba: 0x4285_F4FF),
        locationHalo: RenderColor(rgba: 0xFFFF_FFFF), accuracy: RenderColor(rgba: 0x4285_F433),
        trafficLight: RenderColor(rgba: 0x34A8_53FF), trafficMedium: RenderColor(rgba: 0xFBBC_04FF),
        trafficHeavy: RenderColor(rgba: 0xEA43_35FF), water: RenderColor(rgba: 0xAAD3_DFFF),
        building: RenderColor(rgba: 0xD9D0_C9FF))

    /// Dark: a dark navy land colour, grey roads, muted warm major roads, light blue route.
    public static let dark = MapStyle(
        background: RenderColor(rgba: 0x1D22_2BFF), roadCasing: RenderColor(rgba: 0x1214_19FF),
        motorway: RenderColor(rgba: 0x8A5A_44FF), trunk: RenderColor(rgba: 0x7A5E_4AFF),
        primary: RenderColor(rgba: 0x6B66_5AFF), secondary: RenderColor(rgba: 0x5A5E_66FF),
        minor: RenderColor(rgba: 0x3C43_50FF), label: RenderColor(rgba: 0xD0D4_DAFF),
        labelHalo: RenderColor(rgba: 0x1D22_2BDD), route: RenderColor(rgba: 0x669D_F6FF),
        driven: RenderColor(rgba: 0x5F63_68FF), routeCasing: RenderColor(rgba: 0x1A4A_A0FF),
        rawFix: RenderColor(rgba: 0xF28B_82FF), matchedFix: RenderColor(rgba: 0x81C9_95FF),
        fixLink: RenderColor(rgba: 0xBBBB_BBAA), marker: RenderColor(rgba: 0xF28B_82FF),
        markerText: RenderColor(rgba: 0x2020_20FF), location: RenderColor(rgba: 0x8AB4_F8FF),
        locationHalo: RenderColor(rgba: 0x1D22_2BFF), accuracy: RenderColor(rgba: 0x8AB4_F833),
        trafficLight: RenderColor(rgba: 0x5BB9_74FF), trafficMedium: RenderColor(rgba: 0xFCC9_34FF),
        trafficHeavy: RenderColor(rgba: 0xEE67_5CFF), water: RenderColor(rgba: 0x1B3A_4BFF),
        building: RenderColor(rgba: 0x2C32_3CFF))

    /// The style of a scheme (`auto` must be resolved first; it gives light).
    public static func of(_ scheme: MapColorScheme) -> MapStyle { scheme == .dark ? .dark : .light }

    /// Fill colour of a road class.
    public func fill(_ c: RoadClass) -> RenderColor {
        switch c {
        case .motorway, .motorwayLink: return motorway
        case .trunk, .trunkLink: return trunk
        case .primary, .primaryLink: return primary
        case .secondary, .secondaryLink: return secondary
        default: return minor
        }
    }
}
