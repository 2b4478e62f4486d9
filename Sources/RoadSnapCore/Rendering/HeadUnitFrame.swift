import RoadSnapBridge

#if canImport(Glibc)
import Glibc
#endif

/// What a head-unit frame shows besides the map: the next maneuver, its lanes and the arrival estimate.
public struct HeadUnitGuidance: Hashable, Sendable {
    public var maneuver: Maneuver
    /// Metres to the maneuver.
    public var distanceToManeuver: Double
    /// The road after the maneuver ("" when unnamed).
    public var roadName: String
    /// Lanes at the maneuver, left to right (empty: no lane strip).
    public var lanes: [Lane]
    /// Seconds and metres to the destination.
    public var remainingTime: Double, remainingDistance: Double
    /// Arrival as seconds since midnight, local time of the caller's choosing (nil: not shown).
    public var arrivalTimeOfDay: Double?

    /// Checks distances and times are finite and not negative.
    public init(maneuver: Maneuver, distanceToManeuver: Double, roadName: String, lanes: [Lane] = [],
                remainingTime: Double, remainingDistance: Double, arrivalTimeOfDay: Double? = nil)
        throws(RoadSnapError)
    {
        for v in [distanceToManeuver, remainingTime, remainingDistance] + (arrivalTimeOfDay.map { [$0] } ?? [])
            where !(v.isFinite && v >= 0)
        {
            throw .invalidArgument("head-unit guidance values must be finite and not negative, got \(v)")
        }
        self.maneuver = maneuver; self.distanceToManeuver = distanceToManeuver; self.roadName = roadName
        self.lanes = lanes; self.remainingTime = remainingTime; self.remainingDistance = remainingDistance
        self.arrivalTimeOfDay = arrivalTimeOfDay
    }

    /// A distance as navigation UIs say it: under 1 km rounded to 10 m (5 m under 100 m, 50 m from 300 m),
    /// then kilometres with one decimal under 10 km, whole kilometres beyond.
    public static func spokenDistance(_ metres: Double) -> String {
        if metres < 100 { return "\(Int((metres / 5).rounded()) * 5) m" }
        if metres < 300 { return "\(Int((metres / 10).rounded()) * 10) m" }
        if metres < 950 { return "\(Int((metres / 50).rounded()) * 50) m" }
        if metres < 9950 {
            let tenths = Int((metres / 100).rounded())
            return "\(tenths / 10).\(tenths % 10) km"
        }
        return "\(Int((metres / 1000).rounded())) km"
    }

    /// A duration as "1 h 05 min" or "12 min" (minutes rounded up; "< 1 min" under 30 s).
    public static func spokenDuration(_ seconds: Double) -> String {
        if seconds < 30 { return "< 1 min" }
        let minutes = Int((seconds / 60).rounded(.up))
        if minutes < 60 { return "\(minutes) min" }
        let m = minutes % 60
        return "\(minutes / 60) h \(m < 10 ? "0" : "")\(m) min"
    }

    /// "HH:MM" of seconds since midnight, to the nearest minute (wrapping past 24 h).
    public static func clock(_ secondsOfDay: Double) -> String {
        let total = Int((secondsOfDay / 60).rounded()) % (24 * 60)
        let h = total / 60, m = total % 60
        return "\(h < 10 ? "0" : "")\(h):\(m < 10 ? "0" : "")\(m)"
    }
}

/// A head-unit frame: the map following the car heading-up (target low in the frame), a maneuver banner on top
/// (icon, distance, road name), the lane strip under it when lanes are known, and an ETA footer.
public enum HeadUnitFrame {
    /// Banner and footer heights in points.
    public static let bannerHeight = 96.0, laneHeight = 48.0, footerHeight = 56.0

    /// The map view of a frame: `base` with the camera on `location` heading-up along `course`, padded so the car
    /// sits in the lower part of the space between banner and footer, and the my-location puck on it.
    public static func mapOptions(_ base: MapViewOptions, location: GeoCoordinate, course: Double?,
                                  hasLanes: Bool) throws(RoadSnapError) -> MapViewOptions
    {
        var o = base
        o.camera = try base.camera.following(location, course: course)
        let top = bannerHeight + (hasLanes ? laneHeight : 0)
        let free = base.height - top - footerHeight
        o.padding = try EdgeInsets(top: top + max(0, free * 0.35), left: 0, bottom: footerHeight, right: 0)
        o.myLocation = try MyLocation(coordinate: location, course: course)
        return o
    }

    /// Draws one frame on a canvas of the options' size.
    public static func draw(renderer: MapRenderer, options base: MapViewOptions, location: GeoCoordinate,
                            course: Double?, guidance: HeadUnitGuidance, overlays: MapOverlays = MapOverlays(),
                            on canvas: RenderCanvas) throws(RoadSnapError)
    {
        let options = try mapOptions(base, location: location, course: course, hasLanes: !guidance.lanes.isEmpty)
        renderer.draw(options, overlays: overlays, on: canvas)
        let dark = options.effectiveScheme == .dark
        let panel = dark ? RenderColor(rgba: 0x2021_24F2) : RenderColor(rgba: 0x0B57_D0F2)
        let text = RenderColor(rgba: 0xFFFF_FFFF)
        let w = options.width
        // Banner: icon, distance, road name.
        canvas.polygon([(0, 0), (w, 0), (w, bannerHeight), (0, bannerHeight)], fill: panel)
        let iconStyle = ManeuverIconStyle(primary: text, secondary: RenderColor(rgba: 0xFFFF_FF80))
        ManeuverIcons.draw(guidance.maneuver, size: bannerHeight - 16, style: iconStyle, on: canvas, x: 12, y: 8)
        canvas.text(HeadUnitGuidance.spokenDistance(guidance.distanceToManeuver), x: bannerHeight + 12, y: 42,
                    size: 30, color: text, bold: true)
        canvas.text(guidance.roadName, x: bannerHeight + 12, y: 78, size: 20, color: text)
        var y = bannerHeight
        if !guidance.lanes.isEmpty {
            let laneStyle = ManeuverIconStyle(primary: text, secondary: RenderColor(rgba: 0xFFFF_FF66))
            canvas.polygon([(0, y), (w, y), (w, y + laneHeight), (0, y + laneHeight)],
                           fill: dark ? RenderColor(rgba: 0x1515_18F2) : RenderColor(rgba: 0x0842_A0F2))
            ManeuverIcons.drawLanes(guidance.lanes, height: laneHeight - 8, style: laneStyle, on: canvas,
                                    x: bannerHeight + 12, y: y + 4)
            y += laneHeight
        }
        // Footer: arrival time, remaining time and distance.
        let fy = options.height - footerHeight
        let footer = dark ? RenderColor(rgba: 0x2021_24F2) : RenderColor(rgba: 0xFFFF_FFF2)
        let footerText = dark ? text : RenderColor(rgba: 0x2021_24FF)
        canvas.polygon([(0, fy), (w, fy), (w, options.height), (0, options.height)], fill: footer)
        var eta = HeadUnitGuidance.spokenDuration(guidance.remainingTime) + " · "
            + HeadUnitGuidance.spokenDistance(guidance.remainingDistance)
        if let arrival = guidance.arrivalTimeOfDay { eta = HeadUnitGuidance.clock(arrival) + " arrival · " + eta }
        canvas.text(eta, x: w / 2, y: fy + 36, size: 20, color: footerText, bold: true, align: .center)
    }
}
