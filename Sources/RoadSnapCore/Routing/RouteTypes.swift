// Public routing types: requests, waypoints, options, route status, routes, legs, steps, maneuvers and lanes.
// Names follow the navigation SDK surface (see shared/reference/navigation-sdk-api.md).

/// How the route is travelled. Only `.driving` is routed; the others give `.travelModeUnsupported`.
public enum TravelMode: String, Hashable, Sendable, CaseIterable {
    case driving, cycling, walking, twoWheeler, taxicab
}

/// The outcome of a route request, one case per outcome a navigation SDK reports.
public enum RouteStatus: String, Hashable, Sendable, CaseIterable {
    /// A route was found.
    case ok
    /// The waypoints were snapped to roads, but no road path joins them (one-ways, restrictions, islands).
    case noRouteFound
    /// The request has no destination.
    case noWaypoints
    /// Two consecutive waypoints are the same place.
    case duplicateWaypoints
    /// A waypoint has no routable road near it (or its coordinate is invalid).
    case waypointError
    /// The origin is unknown (no current location to route from).
    case locationUnavailable
    /// A newer request replaced this one before it completed.
    case canceled
    /// The travel mode is not routable on this engine (only driving is).
    case travelModeUnsupported
    /// Something failed inside the router; the message says what.
    case internalError
}

/// Which side of the road traffic drives on.
public enum DrivingSide: String, Hashable, Sendable {
    case none, left, right
}

/// A place to route from, through or to.
public struct Waypoint: Hashable, Sendable {
    public var coordinate: GeoCoordinate
    /// Preferred direction of travel at the waypoint, degrees clockwise from north (departing at the origin,
    /// arriving elsewhere); nil for any.
    public var preferredHeading: Double?
    /// Largest difference in degrees between `preferredHeading` and the road's direction still accepted.
    public var headingTolerance: Double
    /// Arrive with the waypoint on the driving side of the road (no crossing the road to reach it).
    public var preferSameSideOfRoad: Bool
    /// Optional label, carried into the leg.
    public var title: String?

    public init(coordinate: GeoCoordinate, preferredHeading: Double? = nil, headingTolerance: Double = 60,
                preferSameSideOfRoad: Bool = false, title: String? = nil)
    {
        self.coordinate = coordinate; self.preferredHeading = preferredHeading
        self.headingTolerance = headingTolerance; self.preferSameSideOfRoad = preferSameSideOfRoad; self.title = title
    }

    /// A waypoint at `latitude`, `longitude` (checked).
    public init(latitude: Double, longitude: Double) throws(RoadSnapError) {
        self.init(coordinate: try GeoCoordinate(latitude: latitude, longitude: longitude))
    }
}

/// Road types a route should avoid. Avoided roads are still used when nothing else connects (see `CarProfile`).
public struct RoutingOptions: Hashable, Sendable {
    /// Motorways and trunk roads, with their ramps.
    public var avoidsHighways: Bool
    /// Roads tagged `toll=yes`.
    public var avoidsTolls: Bool
    /// Ferry crossings.
    public var avoidsFerries: Bool

    /// Defaults as the navigation SDK: highways and tolls allowed, ferries avoided.
    public init(avoidsHighways: Bool = false, avoidsTolls: Bool = false, avoidsFerries: Bool = true) {
        self.avoidsHighways = avoidsHighways; self.avoidsTolls = avoidsTolls; self.avoidsFerries = avoidsFerries
    }

    /// Parses a comma-separated list of `highways`, `tolls`, `ferries` or `none` (ferries are then only avoided if
    /// named).
    public init(avoiding list: String) throws(RoadSnapError) {
        self.init(avoidsHighways: false, avoidsTolls: false, avoidsFerries: false)
        for item in list.split(separator: ",") {
            switch item.trimmed.lowercased() {
            case "highways", "highway", "motorways": avoidsHighways = true
            case "tolls", "toll": avoidsTolls = true
            case "ferries", "ferry": avoidsFerries = true
            case "", "none": continue
            default: throw .invalidArgument("cannot avoid '\(item)': expected highways, tolls or ferries")
            }
        }
    }
}

/// A route request: where from, where to (one leg per destination), how.
public struct RouteRequest: Hashable, Sendable {
    /// Start of the route; nil when the current location is unknown (gives `.locationUnavailable`).
    public var origin: Waypoint?
    /// Destinations in order; the route has one leg per destination.
    public var destinations: [Waypoint]
    public var options: RoutingOptions
    public var travelMode: TravelMode

    public init(origin: Waypoint?, destinations: [Waypoint], options: RoutingOptions = RoutingOptions(),
                travelMode: TravelMode = .driving)
    {
        self.origin = origin; self.destinations = destinations; self.options = options; self.travelMode = travelMode
    }

    /// First waypoint is the origin, the others destinations.
    public init(waypoints: [Waypoint], options: RoutingOptions = RoutingOptions(), travelMode: TravelMode = .driving) {
        self.init(origin: waypoints.first, destinations: Array(waypoints.dropFirst()), options: options,
                  travelMode: travelMode)
    }
}

/// What a route request produced: a status and, when `.ok`, the route.
public struct RouteResult: Hashable, Sendable {
    public var status: RouteStatus
    public var route: Route?
    /// Why the status is not `.ok` (names the waypoint), empty when ok.
    public var message: String
    /// Index of the offending waypoint (0 = origin) for waypoint errors, duplicates and failed legs.
    public var waypointIndex: Int?

    public init(status: RouteStatus, route: Route? = nil, message: String = "", waypointIndex: Int? = nil) {
        self.status = status; self.route = route; self.message = message; self.waypointIndex = waypointIndex
    }
}

/// A routed path through all waypoints.
public struct Route: Hashable, Sendable {
    public var legs: [RouteLeg]
    /// Driving side used for maneuvers and instructions.
    public var drivingSide: DrivingSide
    /// Total metres.
    public var distance: Double { legs.reduce(0) { $0 + $1.distance } }
    /// Total seconds.
    public var duration: Double { legs.reduce(0) { $0 + $1.duration } }
    /// Whole geometry (legs joined, shared points once).
    public var geometry: [GeoCoordinate] {
        var g: [GeoCoordinate] = []
        for leg in legs { g.append(contentsOf: g.last == leg.geometry.first ? leg.geometry.dropFirst() : leg.geometry[...]) }
        return g
    }

    public init(legs: [RouteLeg], drivingSide: DrivingSide) { self.legs = legs; self.drivingSide = drivingSide }
}

/// One traversed piece of an edge within a leg: what a navigator tracks progress along.
public struct LegSegment: Hashable, Sendable {
    /// Graph arc (`2 * edge` forward, `2 * edge + 1` backward).
    public var arc: Int
    public var edge: Int { arc >> 1 }
    /// Whether the edge is travelled along its geometry.
    public var isForward: Bool { arc & 1 == 0 }
    /// Where the segment starts and ends, metres from the edge's geometry start (`from > to` when backward).
    public var fromOffset: Double
    public var toOffset: Double
    /// Metres travelled on this segment.
    public var distance: Double { abs(toOffset - fromOffset) }
    /// Seconds on this segment, including the turn onto it.
    public var duration: Double
    /// Metres from the leg's start to this segment's start.
    public var distanceFromLegStart: Double
    /// Index in the leg's geometry of this segment's first point.
    public var geometryStart: Int

    public init(arc: Int, fromOffset: Double, toOffset: Double, duration: Double, distanceFromLegStart: Double,
                geometryStart: Int)
    {
        self.arc = arc; self.fromOffset = fromOffset; self.toOffset = toOffset; self.duration = duration
        self.distanceFromLegStart = distanceFromLegStart; self.geometryStart = geometryStart
    }
}

/// The route from one waypoint to the next.
public struct RouteLeg: Hashable, Sendable {
    public var origin: Waypoint
    public var destination: Waypoint
    /// Where the origin and destination were placed on the road.
    public var snappedOrigin: GeoCoordinate
    public var snappedDestination: GeoCoordinate
    /// Path from snapped origin to snapped destination.
    public var geometry: [GeoCoordinate]
    /// Metres.
    public var distance: Double
    /// Seconds, turn costs included.
    public var duration: Double
    /// Turn-by-turn steps: a depart first, a destination last.
    public var steps: [RouteStep]
    /// The traversed edges in order with offsets, durations and distances along the leg.
    public var segments: [LegSegment]

    public init(origin: Waypoint, destination: Waypoint, snappedOrigin: GeoCoordinate,
                snappedDestination: GeoCoordinate, geometry: [GeoCoordinate], distance: Double, duration: Double,
                steps: [RouteStep], segments: [LegSegment])
    {
        self.origin = origin; self.destination = destination; self.snappedOrigin = snappedOrigin
        self.snappedDestination = snappedDestination; self.geometry = geometry; self.distance = distance
        self.duration = duration; self.steps = steps; self.segments = segments
    }
}

/// The shape of a lane arrow.
public enum LaneShape: String, Hashable, Sendable, CaseIterable {
    case unknown, straight, slightLeft, slightRight, normalLeft, normalRight, sharpLeft, sharpRight, uTurnLeft,
         uTurnRight
}

/// One arrow painted on a lane.
public struct LaneDirection: Hashable, Sendable {
    public var shape: LaneShape
    /// Whether this direction is the way the route goes.
    public var isRecommended: Bool
    public init(shape: LaneShape, isRecommended: Bool) { self.shape = shape; self.isRecommended = isRecommended }
}

/// One lane at a maneuver, from `turn:lanes` (lanes are listed left to right).
public struct Lane: Hashable, Sendable {
    public var directions: [LaneDirection]
    /// Whether any of its directions is recommended.
    public var isRecommended: Bool { directions.contains { $0.isRecommended } }
    public init(directions: [LaneDirection]) { self.directions = directions }
}

/// One turn-by-turn step: the maneuver at a point of the leg and the road it leads onto.
public struct RouteStep: Hashable, Sendable {
    /// Position in the leg, from 0.
    public var stepNumber: Int
    public var maneuver: Maneuver
    /// Where the maneuver happens.
    public var location: GeoCoordinate
    /// Name of the road after the maneuver: `name`, else `ref`; empty when unnamed.
    public var simpleRoadName: String
    /// `name` and `ref` together ("Main Street (SR 520)") when both are tagged.
    public var fullRoadName: String
    /// English instruction ("Turn left onto Main Street").
    public var instruction: String
    /// Metres and seconds from the previous step's maneuver to this one (0 for the first step).
    public var distanceFromPreviousStep: Double
    public var timeFromPreviousStep: Double
    /// Metres and seconds from the leg's start to this maneuver.
    public var distanceFromLegStart: Double
    public var timeFromLegStart: Double
    public var drivingSide: DrivingSide
    /// Lanes at the maneuver, left to right; empty without lane guidance.
    public var lanes: [Lane]
    /// Exit number tagged on the junction (`ref` of a `motorway_junction`), when any.
    public var exitNumber: String?
    /// Roundabout exit to take (1 = first), -1 when not a roundabout.
    public var roundaboutTurnNumber: Int
    /// Index of the leg segment the maneuver leads onto: for roundabouts the one leaving the ring (the step's location
    /// and distances are at the ring's entry); for the destination step the last segment.
    public var segmentIndex: Int
    /// Signposted destinations of the road after the maneuver, joined as a person says them ("A, B and C"); nil
    /// when none are tagged.
    public var towards: String? = nil
    /// Distance to show for the stretch up to this step, rounded as navigation displays do.
    public var roundedDistanceFromPreviousStep: Double { DisplayRounding.distance(distanceFromPreviousStep) }
    /// Time to show for the stretch up to this step: nearest minute, at least one (seconds).
    public var roundedTimeFromPreviousStep: Double { DisplayRounding.time(timeFromPreviousStep) }

    public init(stepNumber: Int, maneuver: Maneuver, location: GeoCoordinate, simpleRoadName: String,
                fullRoadName: String, instruction: String, distanceFromPreviousStep: Double,
                timeFromPreviousStep: Double, distanceFromLegStart: Double, timeFromLegStart: Double,
                drivingSide: DrivingSide, lanes: [Lane], exitNumber: String?, roundaboutTurnNumber: Int,
                segmentIndex: Int)
    {
        self.stepNumber = stepNumber; self.maneuver = maneuver; self.location = location
        self.simpleRoadName = simpleRoadName; self.fullRoadName = fullRoadName; self.instruction = instruction
        self.distanceFromPreviousStep = distanceFromPreviousStep; self.timeFromPreviousStep = timeFromPreviousStep
        self.distanceFromLegStart = distanceFromLegStart; self.timeFromLegStart = timeFromLegStart
        self.drivingSide = drivingSide; self.lanes = lanes; self.exitNumber = exitNumber
        self.roundaboutTurnNumber = roundaboutTurnNumber; self.segmentIndex = segmentIndex
    }
}

/// Rounding of distances and times for display, as navigation UIs show them.
public enum DisplayRounding {
    /// Metres rounded: to 5 m under 100 m, 10 m under 500 m, 50 m under 1 km, 100 m under 10 km, 1 km beyond.
    public static func distance(_ metres: Double) -> Double {
        guard metres.isFinite, metres > 0 else { return 0 }
        let unit: Double
        switch metres {
        case ..<100: unit = 5
        case ..<500: unit = 10
        case ..<1000: unit = 50
        case ..<10000: unit = 100
        default: unit = 1000
        }
        return (metres / unit).rounded() * unit
    }

    /// Seconds rounded to the nearest minute, at least one minute (in seconds).
    public static func time(_ seconds: Double) -> Double {
        guard seconds.isFinite, seconds > 0 else { return 60 }
        return max(1, (seconds / 60).rounded()) * 60
    }

    /// "450 m", "1.2 km", "12 km".
    public static func distanceText(_ metres: Double) -> String {
        let r = distance(metres)
        if r < 1000 { return "\(Int(r)) m" }
        if r < 10000 {
            let tenths = Int((r / 100).rounded())
            return tenths % 10 == 0 ? "\(tenths / 10) km" : "\(tenths / 10).\(tenths % 10) km"
        }
        return "\(Int(r / 1000)) km"
    }

    /// "1 min", "25 min", "1 h 5 min".
    public static func timeText(_ seconds: Double) -> String {
        let minutes = Int(time(seconds) / 60)
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}
