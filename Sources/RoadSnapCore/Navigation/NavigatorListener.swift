/// Receives the navigator's events on the session's listener queue. Every method has a default that does
/// nothing, so a listener implements only what it needs. Listeners are held weakly.
public protocol NavigatorListener: AnyObject {
    /// The driver reached a destination (within the navigator's arrival radius); fires once per waypoint.
    func navigator(_ navigator: Navigator, didArriveAt waypoint: Waypoint)
    /// The route changed: destinations set, cleared or advanced, or a new route after leaving the old one.
    func navigatorDidChangeRoute(_ navigator: Navigator)
    /// Seconds to the next destination, when changed by at least the time update threshold.
    func navigator(_ navigator: Navigator, didUpdateRemainingTime time: Double)
    /// Metres to the next destination, when changed by at least the distance update threshold.
    func navigator(_ navigator: Navigator, didUpdateRemainingDistance distance: Double)
    /// The traffic delay category to the next destination changed.
    func navigator(_ navigator: Navigator, didUpdate delayCategory: DelayCategory)
    /// The lighting suggested by the sun's elevation changed.
    func navigator(_ navigator: Navigator, didChangeSuggestedLightingMode lightingMode: LightingMode)
    /// Percentage over the speed limit changed (0 = not speeding, -1 = unknown speed or limit).
    func navigator(_ navigator: Navigator, didUpdateSpeedingPercentage percentageAboveLimit: Double)
    /// The speed alert severity changed, with the current speeding percentage.
    func navigator(_ navigator: Navigator, didUpdate speedAlertSeverity: SpeedAlertSeverity,
                   speedingPercentage: Double)
    /// The turn-by-turn feed moved on.
    func navigator(_ navigator: Navigator, didUpdate navInfo: NavInfo)
    /// A voice prompt is due (early, preparation or "now"); each once per step, re-planned after a reroute.
    func navigator(_ navigator: Navigator, didAnnounce announcement: Announcement)
    /// Under a traffic feed, a route faster than the rest of the current one by at least
    /// `RerouteOfferOptions.minimumSavingPercent` was found; `Navigator.acceptRerouteOffer()` takes it.
    func navigator(_ navigator: Navigator, didOffer offer: RerouteOffer)
}

extension NavigatorListener {
    public func navigator(_ navigator: Navigator, didArriveAt waypoint: Waypoint) {}
    public func navigatorDidChangeRoute(_ navigator: Navigator) {}
    public func navigator(_ navigator: Navigator, didUpdateRemainingTime time: Double) {}
    public func navigator(_ navigator: Navigator, didUpdateRemainingDistance distance: Double) {}
    public func navigator(_ navigator: Navigator, didUpdate delayCategory: DelayCategory) {}
    public func navigator(_ navigator: Navigator, didChangeSuggestedLightingMode lightingMode: LightingMode) {}
    public func navigator(_ navigator: Navigator, didUpdateSpeedingPercentage percentageAboveLimit: Double) {}
    public func navigator(_ navigator: Navigator, didUpdate speedAlertSeverity: SpeedAlertSeverity,
                          speedingPercentage: Double) {}
    public func navigator(_ navigator: Navigator, didUpdate navInfo: NavInfo) {}
    public func navigator(_ navigator: Navigator, didAnnounce announcement: Announcement) {}
    public func navigator(_ navigator: Navigator, didOffer offer: RerouteOffer) {}
}

/// Receives road-snapped locations on the session's listener queue (held weakly).
public protocol RoadSnappedLocationProviderListener: AnyObject {
    /// One road-snapped location per raw fix while the provider is updating.
    func locationProvider(_ provider: RoadSnappedLocationProvider, didUpdate location: RoadSnappedLocation)
    /// A raw fix was skipped: PROJ could not project it into the map's frame (`error` is the `.projection` error
    /// naming PROJ's reason). No location is reported for it.
    func locationProvider(_ provider: RoadSnappedLocationProvider, didSkip fix: Fix, error: RoadSnapError)
}

extension RoadSnappedLocationProviderListener {
    public func locationProvider(_ provider: RoadSnappedLocationProvider, didSkip fix: Fix, error: RoadSnapError) {}
}

/// A weak reference to a navigator listener, boxed: delivery reads it in place (a weak reference in a struct is
/// copied, with its side table's count, each time the struct is read out of the listener list); a `let`, read
/// without an exclusivity check.
final class WeakNavigatorListener {
    weak let value: NavigatorListener?
    init(value: NavigatorListener) { self.value = value }
}

/// A weak reference to a location listener, boxed like `WeakNavigatorListener`.
final class WeakLocationListener {
    weak let value: RoadSnappedLocationProviderListener?
    init(value: RoadSnappedLocationProviderListener) { self.value = value }
}
