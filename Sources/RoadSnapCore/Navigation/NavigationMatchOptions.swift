/// How a navigation session matches its raw fixes to the road network: the matching engine's parameters (the same
/// engine and parameters as `MapMatcher` and `StreamMatcher`; sigma is used as given, a live feed has no whole track
/// to estimate it from), the lag, and the bonus of the guided route's arcs.
public struct NavigationMatchOptions: Hashable, Sendable {
    /// The engine's parameters; `maxGap` (seconds) also restarts matching after a longer gap between fixes.
    public var parameters: MatchParameters
    /// Fixes of delay before a fix is answered (0: at once; at most 1024). A fix is answered with the best chain
    /// through the `lag` newer ones.
    public var lag: Int
    /// Log units of emission added to the arcs of the leg being guided.
    public var routeBonus: Double

    public init(parameters: MatchParameters = MatchParameters(), lag: Int = 0, routeBonus: Double = 2) {
        self.parameters = parameters
        self.lag = lag
        self.routeBonus = routeBonus
    }
}
