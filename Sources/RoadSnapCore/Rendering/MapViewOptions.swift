import RoadSnapBridge

/// Where the map view looks: target, zoom in the web-Mercator sense (the world is 256·2^zoom points wide),
/// bearing (degrees clockwise from north pointing up) and tilt (degrees from looking straight down, 0...60).
public struct MapCamera: Hashable, Sendable {
    public var target: GeoCoordinate
    public var zoom: Double
    public var bearing: Double
    public var tilt: Double

    /// Largest zoom accepted (a few centimetres a point).
    public static let maximumZoom = 24.0
    /// Largest tilt accepted (the simple perspective has its horizon beyond this).
    public static let maximumTilt = 60.0

    /// Checks every value is finite, zoom in 0...24 and tilt in 0...60; the bearing is normalised to 0..<360.
    public init(target: GeoCoordinate, zoom: Double, bearing: Double = 0, tilt: Double = 0) throws(RoadSnapError) {
        guard target.latitude.isFinite, target.longitude.isFinite,
              abs(target.latitude) <= WebMercator.maximumLatitude, abs(target.longitude) <= 180
        else {
            throw .invalidArgument("camera target \(target.latitude),\(target.longitude) must be a finite latitude "
                + "within ±\(WebMercator.maximumLatitude) and longitude within ±180")
        }
        guard zoom.isFinite, zoom >= 0, zoom <= Self.maximumZoom else {
            throw .invalidArgument("camera zoom must be a number in 0...\(Self.maximumZoom), got \(zoom)")
        }
        guard bearing.isFinite else { throw .invalidArgument("camera bearing must be a finite number of degrees, got \(bearing)") }
        guard tilt.isFinite, tilt >= 0, tilt <= Self.maximumTilt else {
            throw .invalidArgument("camera tilt must be in 0...\(Self.maximumTilt) degrees, got \(tilt)")
        }
        self.target = target
        self.zoom = zoom
        let b = bearing.truncatingRemainder(dividingBy: 360)
        self.bearing = b < 0 ? b + 360 : b
        self.tilt = tilt
    }
}

/// Space kept free at the sides of the view, in points: the camera target is the centre of the padded area.
public struct EdgeInsets: Hashable, Sendable {
    public var top: Double, left: Double, bottom: Double, right: Double

    /// Checks every inset is finite and not negative.
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) throws(RoadSnapError) {
        for v in [top, left, bottom, right] where !(v.isFinite && v >= 0) {
            throw .invalidArgument("padding must be finite and not negative, got \(top),\(left),\(bottom),\(right)")
        }
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }

    /// No padding.
    public static let zero = EdgeInsets(uncheckedTop: 0, left: 0, bottom: 0, right: 0)
    init(uncheckedTop top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
}

/// What the map draws under the overlays.
public enum MapType: String, Hashable, Sendable, CaseIterable {
    /// Roads by class (and their names along the larger ones).
    case normal
    /// Only the background and the overlays.
    case none
}

/// Light or dark colours; `auto` follows the navigator's suggested lighting mode (`MapViewOptions.lightingMode`).
public enum MapColorScheme: String, Hashable, Sendable, CaseIterable {
    case light, dark, auto
}

/// The my-location puck: a dot, a course arrow when the course is known, an accuracy circle when it is known.
public struct MyLocation: Hashable, Sendable {
    public var coordinate: GeoCoordinate
    /// Degrees clockwise from north, nil when unknown.
    public var course: Double?
    /// Horizontal accuracy in metres (radius of the circle), nil when unknown.
    public var accuracy: Double?

    /// Checks the course is finite and the accuracy finite and not negative.
    public init(coordinate: GeoCoordinate, course: Double? = nil, accuracy: Double? = nil) throws(RoadSnapError) {
        if let course, !course.isFinite { throw .invalidArgument("my-location course must be finite, got \(course)") }
        if let accuracy, !(accuracy.isFinite && accuracy >= 0) {
            throw .invalidArgument("my-location accuracy must be a finite number of metres >= 0, got \(accuracy)")
        }
        self.coordinate = coordinate
        self.course = course
        self.accuracy = accuracy
    }
}

/// Everything that configures one picture of the map view (the overlays are separate: `MapOverlays`).
public struct MapViewOptions: Hashable, Sendable {
    /// Frame size in points.
    public var width: Double, height: Double
    /// Pixels per point (2 for a "retina" picture).
    public var scale: Double
    public var camera: MapCamera
    /// The background; nil for the colour scheme's own.
    public var background: RenderColor?
    public var mapType: MapType
    public var padding: EdgeInsets
    public var colorScheme: MapColorScheme
    /// The lighting `auto` follows (the navigator's `suggestedLightingMode`).
    public var lightingMode: LightingMode
    /// Current speeds: roads coloured by speed against free flow (nil: no traffic layer).
    public var traffic: TrafficFeed?
    public var myLocation: MyLocation?
    /// Road names along the larger roads.
    public var showsRoadNames: Bool

    /// Largest side accepted, in pixels.
    public static let maximumSide = 16384

    /// Checks the frame is 1...16384 pixels a side (size × scale), the scale finite in (0, 16] and the padding
    /// leaves room.
    public init(width: Double, height: Double, scale: Double = 1, camera: MapCamera, background: RenderColor? = nil,
                mapType: MapType = .normal, padding: EdgeInsets = .zero, colorScheme: MapColorScheme = .light,
                lightingMode: LightingMode = .normal, traffic: TrafficFeed? = nil, myLocation: MyLocation? = nil,
                showsRoadNames: Bool = true) throws(RoadSnapError)
    {
        guard scale.isFinite, scale > 0, scale <= 16 else {
            throw .invalidArgument("pixel scale must be a number in (0, 16], got \(scale)")
        }
        let max = Double(Self.maximumSide)
        guard width.isFinite, height.isFinite, (width * scale).rounded() >= 1, (height * scale).rounded() >= 1,
              (width * scale).rounded() <= max, (height * scale).rounded() <= max
        else {
            throw .invalidArgument("picture size \(width)x\(height) at scale \(scale) must be 1...\(Self.maximumSide) "
                + "pixels a side")
        }
        guard padding.left + padding.right < width, padding.top + padding.bottom < height else {
            throw .invalidArgument("padding \(padding.top),\(padding.left),\(padding.bottom),\(padding.right) leaves "
                + "no room in a \(width)x\(height) view")
        }
        self.width = width; self.height = height; self.scale = scale; self.camera = camera
        self.background = background; self.mapType = mapType; self.padding = padding
        self.colorScheme = colorScheme; self.lightingMode = lightingMode; self.traffic = traffic
        self.myLocation = myLocation; self.showsRoadNames = showsRoadNames
    }

    /// The scheme in effect: `auto` resolved by the lighting mode.
    public var effectiveScheme: MapColorScheme {
        switch colorScheme {
        case .auto: return lightingMode == .lowLight ? .dark : .light
        default: return colorScheme
        }
    }
}
