/// Speeding percentage and alert severity from the fix's speed against the current road's speed limit.
///
/// The percentage is 100 x (speed - limit) / limit, 0 when not over the limit and -1 when the speed or the limit is
/// unknown. With `SpeedAlertOptions` the severity is minor from the minor percentage, and major from the major
/// percentage once the driver has stayed over it for `severityUpgradeDurationSeconds` (minor until then). Without
/// options the built-in absolute thresholds apply: minor from 10 km/h (5 mph) over, major from 20 km/h (10 mph) over.
public struct SpeedAlertEvaluator: Hashable, Sendable {
    public var options: SpeedAlertOptions?
    public var units: SpeedAlertUnits
    /// When the driver first went over the major threshold in the current spell, nil when not over it.
    private var majorSince: Double?

    public init(options: SpeedAlertOptions? = nil, units: SpeedAlertUnits = .metric) {
        self.options = options
        self.units = units
    }

    /// Built-in minor and major thresholds in km/h over the limit.
    public var builtInThresholdsKmh: (minor: Double, major: Double) {
        switch units {
        case .metric: return (10, 20)
        case .imperial: return (5 * 1.609344, 10 * 1.609344)
        }
    }

    /// Evaluates one fix: `speed` in m/s (nil or negative when unknown), `limitKmh` the road's limit (nil when not
    /// tagged), `time` in seconds. Returns the speeding percentage and the severity.
    public mutating func evaluate(speed: Double?, limitKmh: Double?, time: Double)
        -> (percentage: Double, severity: SpeedAlertSeverity)
    {
        guard let speed, speed >= 0, speed.isFinite, let limitKmh, limitKmh > 0, limitKmh.isFinite else {
            majorSince = nil
            return (-1, .unknown)
        }
        let kmh = speed * 3.6
        let over = kmh - limitKmh
        guard over > 0 else {
            majorSince = nil
            return (0, .notSpeeding)
        }
        let percentage = 100 * over / limitKmh
        let reachesMajor: Bool, reachesMinor: Bool, upgradeAfter: Double
        if let options {
            reachesMajor = percentage >= options.majorSpeedingThresholdPercentage
            reachesMinor = percentage >= options.minorSpeedingThresholdPercentage
            upgradeAfter = options.severityUpgradeDurationSeconds
        } else {
            let t = builtInThresholdsKmh
            reachesMajor = over >= t.major
            reachesMinor = over >= t.minor
            upgradeAfter = 0
        }
        if reachesMajor {
            let since = majorSince ?? time
            majorSince = since
            return (percentage, time - since >= upgradeAfter ? .major : .minor)
        }
        majorSince = nil
        return (percentage, reachesMinor ? .minor : .notSpeeding)
    }
}
