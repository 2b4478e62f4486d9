/// Guidance state of the navigator, as the turn-by-turn feed reports it.
public enum NavState: String, Hashable, Sendable {
    case unknown
    /// Following the route.
    case enroute
    /// Off the route; a new route from the current position is being computed.
    case rerouting
    /// Guidance stopped (no route, arrived with stop-at-arrival, or cleared).
    case stopped
}

/// Traffic delay to the next destination (raw values as the reference SDK numbers them).
public enum DelayCategory: Int, Hashable, Sendable {
    /// No traffic data covers the remaining route.
    case noData = 0
    case heavy = 1
    case medium = 2
    case light = 3
}

/// The display lighting the sun's position suggests.
public enum LightingMode: String, Hashable, Sendable {
    case normal
    /// The sun is below the civil twilight limit (6 degrees under the horizon).
    case lowLight
}

/// How far the driver is over the speed limit, per the navigator's speed alert options.
public enum SpeedAlertSeverity: String, Hashable, Sendable {
    /// No speed or no speed limit known.
    case unknown
    case notSpeeding
    case minor
    case major
}

/// One location from the road-snapped provider. Missing values are invalid as the reference SDK reports them:
/// altitude NaN, course, speed and accuracy -1.
public struct RoadSnappedLocation: Hashable, Sendable {
    public var coordinate: GeoCoordinate
    /// Metres above the ellipsoid, NaN when unknown.
    public var altitude: Double
    /// Degrees clockwise from north along the road, -1 when unknown.
    public var course: Double
    /// Metres per second, -1 when unknown.
    public var speed: Double
    /// Seconds since 1970-01-01 UTC.
    public var timestamp: Double
    /// Horizontal accuracy in metres (1 sigma), -1 when unknown.
    public var horizontalAccuracy: Double
    /// The edge the location is snapped to, nil when no road was near (the raw position is passed through).
    public var edge: Int?
    /// Travelling along the edge's geometry (true) or against it.
    public var isForward: Bool
    /// Metres from the edge's start to the snapped point.
    public var offset: Double
    /// Metres between the raw fix and the snapped point.
    public var distanceFromFix: Double

    public init(coordinate: GeoCoordinate, altitude: Double = .nan, course: Double = -1, speed: Double = -1,
                timestamp: Double, horizontalAccuracy: Double = -1, edge: Int? = nil, isForward: Bool = true,
                offset: Double = 0, distanceFromFix: Double = 0)
    {
        self.coordinate = coordinate; self.altitude = altitude; self.course = course; self.speed = speed
        self.timestamp = timestamp; self.horizontalAccuracy = horizontalAccuracy; self.edge = edge
        self.isForward = isForward; self.offset = offset; self.distanceFromFix = distanceFromFix
    }

    /// Whether the location lies on a road of the map.
    public var isOnRoad: Bool { edge != nil }
}

/// Speed alert thresholds as a percentage over the speed limit (5 means 5% over), and how long the driver must stay
/// over the major threshold before the severity is upgraded from minor to major.
public struct SpeedAlertOptions: Hashable, Sendable {
    public let minorSpeedingThresholdPercentage: Double
    public let majorSpeedingThresholdPercentage: Double
    public let severityUpgradeDurationSeconds: Double

    /// Checks 0 <= minor <= major and a non-negative duration.
    public init(minorSpeedingThresholdPercentage minor: Double, majorSpeedingThresholdPercentage major: Double,
                severityUpgradeDurationSeconds duration: Double) throws(RoadSnapError)
    {
        guard minor.isFinite, major.isFinite else {
            throw .invalidArgument("speed alert thresholds must be finite percentages, got minor \(minor), major \(major)")
        }
        guard minor >= 0, major >= minor else {
            throw .invalidArgument("speed alert thresholds must satisfy 0 <= minor (\(minor)) <= major (\(major))")
        }
        guard duration.isFinite, duration >= 0 else {
            throw .invalidArgument("speed alert severity upgrade duration must be >= 0 seconds, got \(duration)")
        }
        minorSpeedingThresholdPercentage = minor
        majorSpeedingThresholdPercentage = major
        severityUpgradeDurationSeconds = duration
    }
}

/// Unit system for the built-in speed alert thresholds used when no `SpeedAlertOptions` are set.
public enum SpeedAlertUnits: String, Hashable, Sendable {
    /// Minor from 10 km/h over the limit, major from 20 km/h over.
    case metric
    /// Minor from 5 mph over the limit, major from 10 mph over.
    case imperial
}

/// The turn-by-turn feed: where guidance stands, the next maneuver and what remains.
public struct NavInfo: Hashable, Sendable {
    public var navState: NavState
    /// The next maneuver to make (only while en route).
    public var currentStep: RouteStep? {
        get { currentStepIndex >= 0 && currentStepIndex < stepList.count ? stepList[currentStepIndex] : nil }
        set {
            stepList = newValue.map { [$0] } ?? []
            currentStepIndex = newValue == nil ? -1 : 0
        }
    }
    /// Where `currentStep` is kept: a step list (the navigator passes its leg's, shared) and the index of the
    /// current step in it, -1 for none. A nav info then holds no copy of a step, and copying one (into an event, to
    /// a listener) retains two arrays instead of a step's strings and lanes.
    var stepList: [RouteStep]
    var currentStepIndex: Int
    /// The steps after the current one, to the end of the current leg.
    public var remainingSteps: [RouteStep]
    /// Whether the route changed since the previous nav info.
    public var routeChanged: Bool
    public var distanceToCurrentStepMeters: Double
    public var timeToCurrentStepSeconds: Double
    /// To the next destination (end of the current leg).
    public var distanceToNextDestinationMeters: Double
    public var timeToNextDestinationSeconds: Double
    /// To the last destination (end of the route).
    public var distanceToFinalDestinationMeters: Double
    public var timeToFinalDestinationSeconds: Double
    /// Speed limit of the road the driver is on, km/h in the direction of travel; nil when not tagged.
    public var speedLimitKmh: Double?

    public init(navState: NavState, currentStep: RouteStep? = nil, remainingSteps: [RouteStep] = [],
                routeChanged: Bool = false, distanceToCurrentStepMeters: Double = 0,
                timeToCurrentStepSeconds: Double = 0, distanceToNextDestinationMeters: Double = 0,
                timeToNextDestinationSeconds: Double = 0, distanceToFinalDestinationMeters: Double = 0,
                timeToFinalDestinationSeconds: Double = 0)
    {
        self.init(navState: navState, stepList: currentStep.map { [$0] } ?? [],
                  currentStepIndex: currentStep == nil ? -1 : 0, remainingSteps: remainingSteps,
                  routeChanged: routeChanged,
                  distanceToCurrentStepMeters: distanceToCurrentStepMeters,
                  timeToCurrentStepSeconds: timeToCurrentStepSeconds,
                  distanceToNextDestinationMeters: distanceToNextDestinationMeters,
                  timeToNextDestinationSeconds: timeToNextDestinationSeconds,
                  distanceToFinalDestinationMeters: distanceToFinalDestinationMeters,
                  timeToFinalDestinationSeconds: timeToFinalDestinationSeconds, speedLimitKmh: nil)
    }

    /// Every stored value (the navigator builds a nav info in one go, its current step as
    /// `stepList[currentStepIndex]`).
    init(navState: NavState, stepList: [RouteStep], currentStepIndex: Int, remainingSteps: [RouteStep],
         routeChanged: Bool, distanceToCurrentStepMeters: Double, timeToCurrentStepSeconds: Double,
         distanceToNextDestinationMeters: Double, timeToNextDestinationSeconds: Double,
         distanceToFinalDestinationMeters: Double, timeToFinalDestinationSeconds: Double, speedLimitKmh: Double?)
    {
        self.navState = navState; self.stepList = stepList; self.currentStepIndex = currentStepIndex
        self.remainingSteps = remainingSteps
        self.routeChanged = routeChanged; self.distanceToCurrentStepMeters = distanceToCurrentStepMeters
        self.timeToCurrentStepSeconds = timeToCurrentStepSeconds
        self.distanceToNextDestinationMeters = distanceToNextDestinationMeters
        self.timeToNextDestinationSeconds = timeToNextDestinationSeconds
        self.distanceToFinalDestinationMeters = distanceToFinalDestinationMeters
        self.timeToFinalDestinationSeconds = timeToFinalDestinationSeconds
        self.speedLimitKmh = speedLimitKmh
    }

    /// Equal when every public value is (the current step compared by value, not by where it is kept).
    public static func == (a: NavInfo, b: NavInfo) -> Bool {
        a.navState == b.navState && a.currentStep == b.currentStep && a.remainingSteps == b.remainingSteps
            && a.routeChanged == b.routeChanged && a.distanceToCurrentStepMeters == b.distanceToCurrentStepMeters
            && a.timeToCurrentStepSeconds == b.timeToCurrentStepSeconds
            && a.distanceToNextDestinationMeters == b.distanceToNextDestinationMeters
            && a.timeToNextDestinationSeconds == b.timeToNextDestinationSeconds
            && a.distanceToFinalDestinationMeters == b.distanceToFinalDestinationMeters
            && a.timeToFinalDestinationSeconds == b.timeToFinalDestinationSeconds && a.speedLimitKmh == b.speedLimitKmh
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(navState)
        hasher.combine(currentStep)
        hasher.combine(remainingSteps)
        hasher.combine(routeChanged)
        hasher.combine(distanceToCurrentStepMeters)
        hasher.combine(timeToCurrentStepSeconds)
        hasher.combine(distanceToNextDestinationMeters)
        hasher.combine(timeToNextDestinationSeconds)
        hasher.combine(distanceToFinalDestinationMeters)
        hasher.combine(timeToFinalDestinationSeconds)
        hasher.combine(speedLimitKmh)
    }

    /// Distance to the current step rounded for display.
    public var roundedDistanceToCurrentStepMeters: Double { DisplayRounding.distance(distanceToCurrentStepMeters) }
    /// Time to the final destination rounded to the minute (at least one) for display; 0 once stopped.
    public var roundedTimeToFinalDestinationSeconds: Double {
        navState == .stopped ? 0 : DisplayRounding.time(timeToFinalDestinationSeconds)
    }
    /// Time to the current step rounded to the minute (at least one) for display; 0 without a current step.
    public var roundedTimeToCurrentStepSeconds: Double {
        currentStep == nil ? 0 : DisplayRounding.time(timeToCurrentStepSeconds)
    }
}
