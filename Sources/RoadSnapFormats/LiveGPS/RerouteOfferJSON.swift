import RoadSnapCore

extension NavigationEventJSON {
    /// `{"event":"didOfferFasterRoute", ...}`: both traffic ETAs to the final destination (current route and
    /// offered route), the saving in seconds and percent, and the offered route's distance and free-flow duration.
    public static func rerouteOffer(_ o: RerouteOffer) -> JSONValue {
        let r1 = NavigationEventJSON.round1  // the one rounding of the event stream (-1 for unknown)
        return ["event": "didOfferFasterRoute", "current_eta_s": r1(o.currentETA), "offered_eta_s": r1(o.offeredETA),
                "saving_s": r1(o.savingSeconds), "saving_percent": r1(o.savingPercent),
                "distance_m": r1(o.route.distance), "duration_s": r1(o.route.duration), "time": .number(o.time)]
    }
}
