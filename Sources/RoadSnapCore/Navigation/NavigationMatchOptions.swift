/// How a navigation session matches its raw fixes to the road network: the matching engine's parameters (the same
/// engine and parameters as `MapMatcher` and `StreamMatcher`), the lag, and the bonus of the guided route's arcs.
public struct NavigationMatchOptions: Hashable, Sendable {
    /// The engine's parameters; `maxGap` (seconds) also restarts matching after a longer gap between fixes.
    public var parameters: MatchParameters
    /// Fixes of delay before a fix is answered (0: at once; at most 1024). A fix is answered with the best chain
    /// through the `lag` newer ones.
    public var lag: Int
    /// Log units of emission added to the arcs of the leg being guided.
    public var routeBonus: Double

    /// The engine's defaults but sigma kept as given (`raiseSigmaToTrack` off): raising it to the feed's own estimate,
    /// as `StreamMatcher` does by default, took the sample drive guided with 10 m of noise per axis from 18.2 to 17.3
    /// reroutes but with 20 m from 20.5 to 22.8 (`Benchmarks/noisy_guidance.py`, docs/matching-engine.md, Session 23).
    public static var defaultParameters: MatchParameters {
        var p = MatchParameters()
        p.raiseSigmaToTrack = false
        return p
    }

    public init(parameters: MatchParameters = NavigationMatchOptions.defaultParameters, lag: Int = 0,
                routeBonus: Double = 2) {
        self.parameters = parameters
        self.lag = lag
        self.routeBonus = routeBonus
    }
}
