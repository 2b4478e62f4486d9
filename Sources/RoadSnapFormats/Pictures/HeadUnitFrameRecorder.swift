import RoadSnapCore

#if canImport(Glibc)
import Glibc
#endif

/// Writes head-unit frames (`HeadUnitFrame`: the map following the car, maneuver banner, lane strip when lanes are
/// known, ETA footer) as PNG files into a directory during a navigation run: one frame at the first road-snapped
/// location and then one each time the locations' clock has advanced by `every` seconds. Files are named
/// `frame-000001.png`, `frame-000002.png`, ... in order and written atomically. Add it to the navigator and the
/// road-snapped location provider; listener calls must come from one thread at a time (as `navigate` delivers
/// them). The first write error stops the recording and is kept in `error`.
public final class HeadUnitFrameRecorder: NavigatorListener, RoadSnappedLocationProviderListener, @unchecked Sendable {
    public let directory: String
    /// Seconds of location time between frames.
    public let every: Double
    private let base: MapViewOptions
    private let renderer: MapRenderer
    private let canvas: RenderCanvas
    private var nextDue: Double?
    private var navInfo: NavInfo?
    private var leg: RouteLeg?
    /// Frames written so far.
    public private(set) var count = 0
    /// The error that stopped the recording (nil while it runs).
    public private(set) var error: RoadSnapError?

    /// A recorder drawing `network`'s roads (and `areas`, water and buildings, under them) into `width` x `height`
    /// point frames (zoom 16.5, light scheme unless `base` says otherwise), creating `directory` when missing. Fails for a bad size or interval, or a directory
    /// that cannot be created.
    public init(network: RoadNetwork, directory: String, width: Double = 800, height: Double = 480,
                every: Double = 1, zoom: Double = 16.5, colorScheme: MapColorScheme = .light,
                areas: MapAreas? = nil) throws(RoadSnapError)
    {
        guard every.isFinite, every > 0 else {
            throw .invalidArgument("--frame-every expects seconds > 0, got \(every)")
        }
        guard height > HeadUnitFrame.bannerHeight + HeadUnitFrame.laneHeight + HeadUnitFrame.footerHeight + 40,
              width >= 2 * HeadUnitFrame.bannerHeight
        else {
            throw .invalidArgument("frame size \(width)x\(height) is too small for the banner, lanes and footer: "
                + "give at least \(Int(2 * HeadUnitFrame.bannerHeight))x"
                + "\(Int(HeadUnitFrame.bannerHeight + HeadUnitFrame.laneHeight + HeadUnitFrame.footerHeight + 41))")
        }
        let center = GeoCoordinate(uncheckedLatitude: (network.bounds.minLatitude + network.bounds.maxLatitude) / 2,
                                   longitude: (network.bounds.minLongitude + network.bounds.maxLongitude) / 2)
        base = try MapViewOptions(width: width, height: height, camera: try MapCamera(target: center, zoom: zoom),
                                  colorScheme: colorScheme)
        renderer = try MapRenderer(network: network, areas: areas)
        canvas = try native { () throws(NativeFailure) in
            try RenderCanvas(kind: .raster, width: width, height: height)
        }
        self.directory = directory
        self.every = every
        try FileIO.makeDirectories(directory)
    }

    /// The path of frame `n` (1-based).
    public func path(ofFrame n: Int) -> String {
        let digits = String(n)
        return FileIO.join(directory, "frame-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".png")
    }

    public func navigator(_ navigator: Navigator, didUpdate navInfo: NavInfo) {
        self.navInfo = navInfo
        leg = navigator.currentRouteLeg
    }

    public func navigatorDidChangeRoute(_ navigator: Navigator) { leg = navigator.currentRouteLeg }

    public func locationProvider(_ provider: RoadSnappedLocationProvider, didUpdate location: RoadSnappedLocation) {
        guard error == nil, location.timestamp.isFinite else { return }
        if let due = nextDue, location.timestamp < due { return }
        // The next frame is due `every` seconds after this one's slot (slots stay on the grid of the first frame).
        var due = nextDue ?? location.timestamp
        while due <= location.timestamp { due += every }
        nextDue = due
        do throws(RoadSnapError) {
            try write(location)
        } catch {
            self.error = error
        }
    }

    /// Draws and writes the frame of one location.
    private func write(_ location: RoadSnappedLocation) throws(RoadSnapError) {
        let step = navInfo?.currentStep ?? leg?.steps.first
        let remainingTime = navInfo?.timeToFinalDestinationSeconds ?? leg?.duration ?? 0
        let remainingDistance = navInfo?.distanceToFinalDestinationMeters ?? leg?.distance ?? 0
        let toManeuver = navInfo?.distanceToCurrentStepMeters ?? 0
        let arrival = location.timestamp + remainingTime
        let guidance = try HeadUnitGuidance(
            maneuver: step?.maneuver ?? .unknown, distanceToManeuver: max(0, toManeuver.isFinite ? toManeuver : 0),
            roadName: step.map { $0.simpleRoadName.isEmpty ? $0.fullRoadName : $0.simpleRoadName } ?? "",
            lanes: step?.lanes ?? [], remainingTime: max(0, remainingTime.isFinite ? remainingTime : 0),
            remainingDistance: max(0, remainingDistance.isFinite ? remainingDistance : 0),
            arrivalTimeOfDay: arrival.isFinite && arrival >= 0 ? arrival.truncatingRemainder(dividingBy: 86_400) : nil)
        var overlays = MapOverlays()
        if let leg, leg.geometry.count >= 2 {
            let driven = max(0, leg.distance - (navInfo?.distanceToNextDestinationMeters ?? leg.distance))
            overlays.routes = [try RouteLine(coordinates: leg.geometry, drivenDistance: driven)]
        }
        let course = location.course.isFinite && location.course >= 0 ? location.course : nil
        try HeadUnitFrame.draw(renderer: renderer, options: base, location: location.coordinate, course: course,
                               guidance: guidance, overlays: overlays, on: canvas)
        count += 1
        try AtomicFile.write(try native { () throws(NativeFailure) in try canvas.encoded() }, to: path(ofFrame: count))
    }
}
