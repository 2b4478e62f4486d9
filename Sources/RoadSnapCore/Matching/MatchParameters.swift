import RoadSnapBridge

/// Tuning of the hidden-Markov matcher (Newson & Krumm 2009). Distances in metres, times in seconds, angles in degrees.
public struct MatchParameters: Hashable, Sendable {
    /// GPS error standard deviation of the Gaussian emission.
    public var sigma: Double = 4.07
    /// Raise sigma to the track's own estimate (1.4826 × median nearest-road distance, from up to ~128 of its fixes;
    /// for `StreamMatcher`, from the fixes scored so far) when that is larger: a noisy track is not forced through
    /// detours. Off: sigma is used as given.
    public var raiseSigmaToTrack: Bool = true
    /// Take sigma from each track (`MapMatcher.estimateSigma`: 1.4826 × median nearest-road distance over all its
    /// fixes) instead of the value given: `roadsnap match --sigma auto`, the C API's `estimate_sigma`.
    public var sigmaFromTrack: Bool = false
    /// Beyond this many sigmas the emission's log-probability falls linearly instead of quadratically (robust to
    /// roads drawn off their true line); 0 keeps it Gaussian throughout.
    public var huber: Double = 3
    /// Scale of the exponential transition on |route distance − great-circle distance|.
    public var beta: Double = 3.0
    /// Extra beta per second of sampling interval beyond 1 s, so sparse tracks tolerate longer detours.
    public var betaPerSecond: Double = 0.35
    /// Candidate search radius around each fix (grows to 5 sigma when `raiseSigmaToTrack` raises sigma).
    public var radius: Double = 40
    /// Nearest roads considered per fix: an edge and its twin (the same road drawn once per direction, as in
    /// networks of one-way arcs) count once; each edge gives one state per allowed direction.
    public var maxCandidates: Int = 8
    /// Route searches are bounded by max(distanceFactor × great circle, great circle + searchFloor).
    public var distanceFactor: Double = 3.0
    public var searchFloor: Double = 60
    /// With timestamps, a route longer than the great circle + maxSpeed × Δt is impossible (m/s).
    public var maxSpeed: Double = 50
    /// A longer time gap between consecutive fixes splits the track (0 disables) when the vehicle moved more than
    /// 2 sigma across it but slower than `gapMinSpeed` (m/s): its route is unknowable. Faster progress is bridged.
    public var maxGap: Double = 60
    public var gapMinSpeed: Double = 1
    /// Metres added to a route that turns back (in place, at a junction or at a dead end).
    public var uturnPenalty: Double = 60
    /// Metres (at least 3 sigma) a fix may fall back along the same road for free (stationary noise); further
    /// back costs like a U-turn plus the excess.
    public var backwardTolerance: Double = 12
    /// Standard deviation of course versus road bearing when a fix has a course.
    public var headingSigma: Double = 45
    /// The course is trusted only at or above this speed (m/s), when the fix reports a speed.
    public var minHeadingSpeed: Double = 2
    /// Log-probability window: previous states further below the best are not expanded. Wide enough that the road
    /// actually driven survives a run of fixes 30–40 m off it (a badly drawn bend) while a nearer spur leads nowhere.
    public var beam: Double = 60
    /// Consecutive unreachable fixes dropped as outliers before the track is split.
    public var maxOutliers: Int = 2
    /// When every reachable candidate lies this many sigmas (the fix's own) further from the fix than its nearest
    /// candidate, the fix counts as unreachable: the road driven is not connected to the hypotheses (a missing link).
    public var disconnectMargin: Double = 10
    /// A fix closer than this to the last fix scored is not scored (stops and slow crawling add no evidence, only
    /// noise); it is placed on the matched path between the scored fixes around it. nil means 2 sigma (Newson &
    /// Krumm), and on dense tracks (median interval ≤ 2 s) max(2 s, 6 s − 24 m) with s the larger of sigma and the
    /// track's white-noise estimate (`MapMatcher.estimateJitter`), so a noisy 1 s track is scored about as often as
    /// it moves clear of its noise while a sparse track keeps every fix that moved.
    public var minFixDistance: Double? = nil
    /// Consecutive scored fixes at least this many seconds apart (without times: their distance over 10 m/s) and at
    /// least 10 m/s times as many metres apart are joined by one route search from all of the earlier fix's
    /// candidates at once, goal-directed toward the later fix; denser ones by one search per candidate arc, cached
    /// and reused by the following fixes (see docs/matching.md for why both).
    public var jointSearchInterval: Double = 5
    /// That search stops once every state it could still reach would be this far below the best state found so far
    /// (log-probability; the Viterbi `beam` would keep them: 8 gave the same or lower mismatch than 15 on the 70
    /// Kubicka tracks at 10-60 s, clean and with 10 m noise within 0.03 points, for 5-30 % more fixes/s).
    public var jointSearchBeam: Double = 8
    /// A fix whose candidates are all unreachable, or whose best candidate is reached only by turning back (a U-turn,
    /// or falling back along its road beyond `backwardTolerance`), is searched again for twice `maxCandidates` roads
    /// within max(this, `radius`) metres before it is dropped or kept: the road driven can lie beyond the radius or
    /// the nearest roads (an interchange crowded with ramps) while a road the other way (the opposite carriageway) is
    /// near the fixes. 0: never.
    public var recoveryRadius: Double = 100
    /// A scored fix is dropped as an outlier when the best chain through it is worse than the best chain leaving it
    /// out (the next fix scored from the one before) by more than this (log-probability): one or two fixes that lie
    /// on another road must not pull the chain onto it. With `outlierWindow` on, a fix whose best chain falls by more
    /// than this (reachable only by a detour) is held back as an outlier within `maxOutliers`, and taken after all
    /// when no later fix resumes the chain past it by a chain scoring more than this above its fall. 0: never.
    public var outlierPenalty: Double = 30
    /// Seconds after the last scored fix during which unreachable fixes beyond `maxOutliers` stay outliers instead of
    /// splitting the track (GPS drifting 100 m and more off a motorway for a minute, onto minor roads the chain
    /// cannot reach). The chain resumes at a later fix only when those fixes lay on average at least sigma from
    /// their nearest road and the route is no longer than 1.25 × the path through them + 4 sigma; otherwise the
    /// track splits at the first of them, as with `maxOutliers` alone. 0: `maxOutliers` alone.
    public var outlierWindow: Double = 120
    /// Metres added to a route per 180° it turns beyond the straightest way on from each node it passes (following a
    /// road's bends, or its curve where a ramp leaves it, is free; turning off a road that goes on is not): of two
    /// routes between fixes about as long, the one going straight on wins, as a driver's would (a parallel road in a
    /// grid between sparse fixes). Applies on maps without road speeds (a GeoJSON network without them): where roads
    /// have speeds the quickest-path rule picks between such routes, and turn costs on top of it measured worse.
    /// 0: turns are free. See docs/matching.md (fourteenth round).
    public var turnCost: Double = 20
    /// Sigmas: a sub-match whose fixes lie on average at least this far from the road matched (each fix in its own
    /// sigma, its accuracy when larger) and that holds fewer than half the track's matched fixes is left unmatched:
    /// fixes off the map (a car park, a walk off the road) that strayed within the radius of a road, not a road
    /// driven. A track matched mostly that far keeps its match (a poor receiver, a shifted map, a sigma given too
    /// small). On the 70 Kubicka tracks the sub-matches of roads driven lie at most 2.7 sigmas from them on average
    /// and those off the map 4.7 and more (docs/matching.md, fifteenth round). 0: never.
    public var offRoadSigmas: Double = 4

    public init() {}

    /// The one sigma rule (CLI `--sigma M|auto`, the C API's `sigma` and `estimate_sigma`): a sigma given is used as
    /// given (not raised to the track's estimate); `fromTrack` takes it from each track instead; neither keeps the
    /// default, raised to the track's own estimate when larger. Checked by `validate`.
    public mutating func chooseSigma(given: Double?, fromTrack: Bool) {
        if let given {
            sigma = given
            raiseSigmaToTrack = false
        }
        sigmaFromTrack = fromTrack
    }

    /// Checks every value is finite and in its range, lower and upper bound (sigma in (0, 1000] m, beta in
    /// (0, 10000] m, radius in (0, 10000] m, candidates 1...256, ...): the engine's one validation
    /// (`rsc_match_params_check`), which the CLI, the Swift API and the C API all go through. The error names the
    /// first bad value, its range and the value given.
    public func validate() throws(RoadSnapError) {
        guard (-1_000_000...1_000_000).contains(maxCandidates), (-1_000_000...1_000_000).contains(maxOutliers) else {
            throw .invalidArgument("candidates must be in [1, 256] roads and max outliers in [0, 100000] fixes, got "
                                   + "\(maxCandidates) and \(maxOutliers)")
        }
        try native { () throws(NativeFailure) in try engine.check() }
    }

    /// The values as the engine takes them (after `validate`: the counts must fit 32 bits).
    package var engine: MatchEngineParameters {
        MatchEngineParameters(sigma: sigma, huber: huber, beta: beta, radius: radius, maxCandidates: Int32(clamping: maxCandidates),
                              distanceFactor: distanceFactor, searchFloor: searchFloor, maxSpeed: maxSpeed,
                              maxGap: maxGap, gapMinSpeed: gapMinSpeed, uturnPenalty: uturnPenalty,
                              backwardTolerance: backwardTolerance, headingSigma: headingSigma,
                              minHeadingSpeed: minHeadingSpeed, beam: beam, betaPerSecond: betaPerSecond,
                              maxOutliers: Int32(clamping: maxOutliers), disconnectMargin: disconnectMargin,
                              minFixDistance: minFixDistance ?? max(2 * sigma, 6 * sigma - 24),
                              jointInterval: jointSearchInterval, jointBeam: jointSearchBeam,
                              recoveryRadius: recoveryRadius, outlierPenalty: outlierPenalty,
                              outlierWindow: outlierWindow, turnCost: turnCost, offRoad: offRoadSigmas)
    }
}
