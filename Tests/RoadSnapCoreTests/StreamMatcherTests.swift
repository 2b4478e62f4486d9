import Foundation
import Testing
import RoadSnapBridge
import RoadSnapCore
import RoadSnapFormats

/// The matching engine's incremental mode (`StreamMatcher`, `MatchStream`) against its batch run, on the sample drive
/// (Newson & Krumm's Bellevue track, Samples/) and a hand-drawn junction with a turn restriction.
@Suite struct StreamMatcherTests {
    /// Parameters both modes apply alike: sigma as given, fixes held within 2 sigma.
    static var parameters: MatchParameters {
        var p = MatchParameters()
        p.raiseSigmaToTrack = false
        p.minFixDistance = 2 * p.sigma
        return p
    }

    static func localDrive(_ network: RoadNetwork, range: Range<Int>) throws -> (x: [Double], y: [Double], t: [Double]) {
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        let fixes = Array(track.fixes[range])
        let frame = try network.makeFrame()
        var x: [Double] = [], y: [Double] = []
        try frame.forward(latitudes: fixes.map(\.coordinate.latitude), longitudes: fixes.map(\.coordinate.longitude),
                      x: &x, y: &y)
        return (x, y, fixes.map { $0.time ?? .nan })
    }

    /// The drive's fixes 0..<120, then its fixes `later` from a second after fix 119 on: a jump no route can make.
    static func driveWithAJump(_ network: RoadNetwork, to later: Range<Int>) throws
        -> (x: [Double], y: [Double], t: [Double])
    {
        let a = try localDrive(network, range: 0..<120), b = try localDrive(network, range: later)
        return (a.x + b.x, a.y + b.y, a.t + b.t.indices.map { (a.t.last ?? 0) + Double($0 + 1) })
    }

    /// With `raiseSigmaToTrack` (the default) a feed noisier than sigma raises the stream's sigma, as fixes arrive, to
    /// about the batch run's estimate for the whole track, and the stream then agrees with the batch run (which raises
    /// its own) far better than a stream keeping the sigma given; the sample drive with 12 m of seeded noise.
    @Test func aNoisyFeedRaisesTheStreamsSigmaAsTheBatchRunRaisesItsOwn() throws {
        let network = try TestData.bellevue()
        let graph = try MatchGraph(network: network)
        let noisy = MatchingKubickaTests.noisy(try TrackReader.read(path: TestData.bellevueDrive), sigma: 12, seed: 5)
        let batch = try MapMatcher(network: network, graph: graph).match(noisy)
        #expect(batch.parameters.sigma > 2 * MatchParameters().sigma, "\(batch.parameters.sigma)")
        var fixed = MatchParameters()
        fixed.raiseSigmaToTrack = false
        var agreement: [Double] = [], sigmas: [Double] = []
        for parameters in [MatchParameters(), fixed] {
            let stream = try StreamMatcher(network: network, graph: graph, parameters: parameters, maxLag: 5)
            var same = 0, total = 0
            for (i, f) in noisy.fixes.enumerated() {
                try stream.push(f)
                guard i >= 5, let b = batch.fixes[i - 5] else { continue }
                total += 1
                if stream.result(lag: 5)?.arc == 2 * b.edge + (b.forward ? 0 : 1) { same += 1 }
            }
            agreement.append(Double(same) / Double(max(1, total)))
            sigmas.append(stream.sigma)
        }
        #expect(abs(sigmas[0] - batch.parameters.sigma) < 0.2 * batch.parameters.sigma,
                "stream \(sigmas[0]) m, batch \(batch.parameters.sigma) m")
        #expect(sigmas[1] == MatchParameters().sigma)
        #expect(agreement[0] > agreement[1] + 0.03, "lag-5 agreement raised \(agreement[0]), as given \(agreement[1])")
    }

    /// Online at lag L = the batch answer for the same fix over the same window (the fixes pushed so far), for every
    /// fix of a 400-fix cut (past many cut-backs of the stream's window), lags 0, 2, 5, 10. The one exception: a fix
    /// held by the window's newest layer, which the batch run (its chain ending there) leaves at the layer's point and
    /// the stream (whose next layer is still to come) places ahead, along the layer's arc or, beyond its head, on an
    /// arc leaving it: there the online answer must lie ahead of the batch's. The stream's answer also carries the
    /// matched point (the batch results keep none): `distance` from the fix, NaN when unmatched.
    @Test func onlineAtLagEqualsBatchOverTheSameWindow() throws {
        let network = try TestData.bellevue()
        let graph = try MatchGraph(network: network)
        let query = try SegmentQuery(index: network.index, capacity: 256)
        let engine = try MatchEngine(graph: graph, query: query)
        let (x, y, t) = try Self.localDrive(network, range: 200..<600)
        let stream = try MatchStream(graph: graph, query: query, parameters: Self.parameters.engine, maxLag: 10, routeBonus: 0)
        var compared = 0, ahead = 0, differing: [String] = [], pointsChecked = 0, badPoints: [String] = []
        for i in x.indices {
            try stream.push(x: x[i], y: y[i], time: t[i])
            for lag in [0, 3] where lag <= i {
                let a = try #require(stream.result(lag: lag))
                let gap = ((x[i - lag] - a.point.x) * (x[i - lag] - a.point.x)
                    + (y[i - lag] - a.point.y) * (y[i - lag] - a.point.y)).squareRoot()
                pointsChecked += 1
                if a.fix.arc >= 0 ? !(abs(gap - a.fix.distance) < 1e-6) : !(a.point.x.isNaN && a.point.y.isNaN) {
                    badPoints.append("fix \(i - lag) lag \(lag): arc \(a.fix.arc), \(gap) m from the point, distance \(a.fix.distance)")
                }
            }
            guard i % 7 == 0 || i == x.count - 1 else { continue }
            let n = try engine.run(parameters: Self.parameters.engine, x: Array(x[...i]), y: Array(y[...i]),
                                   time: Array(t[...i]), course: nil, speed: nil)
            #expect(n >= 1)
            let batch = engine.fixes
            for lag in [0, 2, 5, 10] where lag <= i {
                let online = try #require(stream.result(lag: lag)).fix
                let b = batch[i - lag]
                compared += 1
                if b.held, !batch[(i - lag)...].contains(where: { $0.arc >= 0 && !$0.held }),
                   online.arc != b.arc || online.offset != b.offset {
                    // held by the newest layer: ahead along its arc, or on an arc leaving its head
                    let on = online.arc == b.arc ? online.offset > b.offset
                        : Self.tail(online.arc, network) == Self.head(b.arc, network) && online.arc != b.arc ^ 1
                    if !on || !online.held {
                        differing.append("held fix \(i - lag) at \(i) lag \(lag): online \(online.arc)@\(online.offset) batch \(b.arc)@\(b.offset)")
                    }
                    ahead += 1
                    continue
                }
                if online.arc != b.arc || (b.arc >= 0 && abs(online.offset - b.offset) > 1e-9) || online.held != b.held {
                    differing.append("fix \(i - lag) at \(i) lag \(lag): online \(online.arc)@\(online.offset) batch \(b.arc)@\(b.offset)")
                }
            }
        }
        #expect(compared > 200)
        #expect(ahead * 4 < compared)
        #expect(differing.isEmpty, "\(differing.count) of \(compared): \(differing.prefix(5))")
        #expect(pointsChecked > 700)
        #expect(badPoints.isEmpty, "\(badPoints.count) of \(pointsChecked): \(badPoints.prefix(5))")
        #expect(stream.result(lag: 11) == nil)
    }

    /// A chain that ends after outliers: the stream replays them into the next chain, as the batch run replays them
    /// into the next sub-match. The drive cut at fix 120 and joined to its fixes 700 on, one second later: the jump is
    /// unreachable, the first two fixes after it are outliers of the first chain (max_outliers 2) and the third ends
    /// it. Online at lags 2, 5 and 10 equals the batch run over the same window for every window from the third on
    /// (before it the batch run, at its track's end, replays the outliers it holds; the stream cannot know the drive
    /// ends there), the replayed fixes matched. Without the outlier window (`outlierWindowRunsAsTheBatchDoes`), so that
    /// the third outlier ends the chain.
    @Test func outliersBeforeAChainEndAreReplayedAsTheBatchDoes() throws {
        var parameters = Self.parameters
        parameters.outlierWindow = 0
        let network = try TestData.bellevue()
        let graph = try MatchGraph(network: network)
        let query = try SegmentQuery(index: network.index, capacity: 256)
        let engine = try MatchEngine(graph: graph, query: query)
        let (x, y, t) = try Self.driveWithAJump(network, to: 700..<760)
        let stream = try MatchStream(graph: graph, query: query, parameters: parameters.engine, maxLag: 10, routeBonus: 0)
        var compared = 0, differing: [String] = []
        for i in x.indices {
            try stream.push(x: x[i], y: y[i], time: t[i])
            guard i >= 122 else { continue }
            _ = try engine.run(parameters: parameters.engine, x: Array(x[...i]), y: Array(y[...i]),
                               time: Array(t[...i]), course: nil, speed: nil)
            let batch = engine.fixes
            for lag in [2, 5, 10] {
                let online = try #require(stream.result(lag: lag)).fix
                let f = batch[i - lag]
                // the newest layer's held fixes are placed ahead (onlineAtLagEqualsBatchOverTheSameWindow)
                if f.held, !batch[(i - lag)...].contains(where: { $0.arc >= 0 && !$0.held }) { continue }
                compared += 1
                if online.arc != f.arc || (f.arc >= 0 && abs(online.offset - f.offset) > 1e-9) || online.held != f.held {
                    differing.append("fix \(i - lag) at \(i) lag \(lag): online \(online.arc)@\(online.offset) batch \(f.arc)@\(f.offset)")
                }
            }
            if i == 130 {
                // the batch run split at the jump and matched the replayed fixes
                #expect(engine.subMatches.count == 2)
                #expect(engine.subMatches.last?.firstFix == 120)
                #expect(batch[120].arc >= 0 && batch[121].arc >= 0)
            }
        }
        #expect(compared > 100)
        #expect(differing.isEmpty, "\(differing.count) of \(compared): \(differing.prefix(5))")
    }

    /// A run of outliers still open (the outlier window: the chain may yet resume) has no answer at lag 0, and at lags
    /// 1-10 the answer of the run matched as a chain of its own: what the batch run over the same window gives it (at
    /// its end, the batch run replays an open run into a sub-match of its own). The drive cut at fix 120 and joined
    /// to its fixes 700 on a second later: unreachable from the chain, the fixes after the jump stay a run for up to
    /// the window's 120 s. Before the run had its own chain, each of its fixes stayed unanswered at every lag.
    @Test func anOpenRunOfOutliersIsAnsweredAsItsOwnChainOnceLaterFixesCame() throws {
        let network = try TestData.bellevue()
        let graph = try MatchGraph(network: network)
        let query = try SegmentQuery(index: network.index, capacity: 256)
        let engine = try MatchEngine(graph: graph, query: query)
        let (x, y, t) = try Self.driveWithAJump(network, to: 700..<800)
        let stream = try MatchStream(graph: graph, query: query, parameters: Self.parameters.engine, maxLag: 10,
                                     routeBonus: 0)
        var open = 0, compared = 0, differing: [String] = []
        for i in x.indices {
            try stream.push(x: x[i], y: y[i], time: t[i])
            let run = stream.pendingOutliers
            guard i >= 120, run > 0 else { continue }
            open += 1
            #expect(try #require(stream.result(lag: 0)).fix.arc < 0, "fix \(i): a possible outlier has no answer at lag 0")
            _ = try engine.run(parameters: Self.parameters.engine, x: Array(x[...i]), y: Array(y[...i]),
                               time: Array(t[...i]), course: nil, speed: nil)
            let batch = engine.fixes
            for lag in stride(from: 1, through: min(10, run - 1), by: 1) {
                let f = batch[i - lag]
                // the newest layer's held fixes are placed ahead (onlineAtLagEqualsBatchOverTheSameWindow)
                if f.held, !batch[(i - lag)...].contains(where: { $0.arc >= 0 && !$0.held }) { continue }
                compared += 1
                let online = try #require(stream.result(lag: lag)).fix
                if online.arc != f.arc || f.arc < 0 || abs(online.offset - f.offset) > 1e-9 || online.held != f.held {
                    differing.append("fix \(i - lag) at \(i) lag \(lag): online \(online.arc)@\(online.offset) batch \(f.arc)@\(f.offset)")
                }
            }
        }
        #expect(open > 50, "the run stayed open for \(open) pushes")
        #expect(compared > 300)
        let differ = differing.count
        #expect(differ == 0, "\(differ) of \(compared): \(differing.prefix(5))")
    }

    /// The outlier window (`MatchParameters.outlierWindow`) online: track 43's drift off a motorway (the
    /// `kubicka-cuts/k043-drift` fixture, 221 fixes at 1 s), where dozens of fixes in a row are unreachable and the
    /// chain resumes on the motorway. While such a run is open the batch run, at its track's end, replays it into a
    /// sub-match of its own (the stream cannot know the track ends there); at every push whose fix is scored on the
    /// one chain, online at lags 2, 5 and 10 equals the batch run over the same window.
    @Test func outlierWindowRunsAsTheBatchDoes() throws {
        let k = try KubickaTrack.load(directory: TestData.fixture("kubicka-cuts/k043-drift"))
        let (engine, compared, differing) = try Self.onlineAgainstBatch(k.network, k.track, Self.parameters, lags: [2, 5, 10])
        // the window was used: the whole cut is one sub-match with a run of unmatched fixes inside it
        #expect(engine.subMatches.count == 1)
        #expect(engine.fixes.filter { $0.arc < 0 }.count >= 20)
        #expect(compared > 300)
        #expect(differing.isEmpty, "\(differing.count) of \(compared): \(differing.prefix(5))")
    }

    /// Fixes reachable only by a chain falling more than `outlierPenalty` (`RSC_STEP_COSTLY`) online: track 43's drift
    /// every 30 s (`kubicka-cuts/k043-drift-30s`, sigma 8 m as in `MatchingOutlierWindowTests`), held back and then
    /// passed by the motorway route; online at lags 1, 2 and 3 equals the batch run over the same window.
    @Test func costlyFixesHeldBackRunAsTheBatchDoes() throws {
        let k = try KubickaTrack.load(directory: TestData.fixture("kubicka-cuts/k043-drift-30s"))
        var p = Self.parameters
        p.chooseSigma(given: 8, fromTrack: false)
        p.minFixDistance = nil
        let (engine, compared, differing) = try Self.onlineAgainstBatch(k.network, k.track.subsampled(every: 30), p,
                                                                       lags: [1, 2, 3])
        #expect(engine.subMatches.count == 1)
        #expect(engine.fixes.filter { $0.arc < 0 }.count >= 2)
        #expect(compared >= 15)
        #expect(differing.isEmpty, "\(differing.count) of \(compared): \(differing.prefix(5))")
    }

    /// A detour really driven, every 30 s at 40 m/s: the car leaves a road at a junction, drives 600 m north and
    /// on west along another road, so its first fix there (300 m from the junction, 600 m from the fix before) is
    /// reachable only by a chain falling more than `outlierPenalty`. It is held back, no later fix resumes the old
    /// road within the window, and the run is rewound to it and it is taken: every fix matched, as with the window
    /// off, and online (lags 1-3) as in the batch run.
    @Test func aDetourReallyDrivenIsTakenAfterTheWindow() throws {
        let (network, track) = try Self.detourDrive(fixes: 8)
        var p = Self.parameters
        p.minFixDistance = nil
        let (engine, compared, differing) = try Self.onlineAgainstBatch(network, track, p, lags: [1, 2, 3])
        #expect(engine.subMatches.count == 1)
        #expect(engine.fixes.allSatisfy { $0.arc >= 0 }, "\(engine.fixes.map(\.arc))")
        var off = p
        off.outlierWindow = 0
        let plain = try MapMatcher(network: network, parameters: off).match(track)
        let windowed = try MapMatcher(network: network, parameters: p).match(track)
        #expect(windowed.fixes.map { $0?.edge } == plain.fixes.map { $0?.edge })
        #expect(compared >= 10)
        #expect(differing.isEmpty, "\(differing.count) of \(compared): \(differing.prefix(5))")
    }

    /// The track ends two fixes after its first fix on the detour, with no fix resuming the road before it: the run
    /// is resolved by taking the detour, not by splitting the track before it (which lost the route to it).
    @Test func aDetourAtTheTracksEndIsTaken() throws {
        let (network, track) = try Self.detourDrive(fixes: 3)
        let result = try MapMatcher(network: network, parameters: Self.parameters).match(track)
        #expect(result.subMatches.count == 1)
        #expect(result.fixes.allSatisfy { $0 != nil })
    }

    /// The network and drive of `aDetourReallyDrivenIsTakenAfterTheWindow`, its first `fixes` fixes.
    static func detourDrive(fixes count: Int) throws -> (RoadNetwork, Track) {
        let ways = [MatchingOutlierWindowTests.way("main", [(-100, 0), (1000, 0), (3100, 0)]),
                    MatchingOutlierWindowTests.way("north", [(1000, 0), (1000, 600), (-8000, 600)])]
        let network = try RoadNetwork(ways: ways, sourceName: "hand-drawn")
        func position(_ d: Double) -> (Double, Double) {
            if d <= 1100 { return (-100 + d, 0) }
            if d <= 1700 { return (1000, d - 1100) }
            return (1000 - (d - 1700), 600)
        }
        let fixes = (0..<count).map { i -> Fix in
            let (px, py) = position(Double(i) * 1200 + 800)
            return Fix(coordinate: MatchingOutlierWindowTests.at(px, py + (i % 2 == 0 ? 1 : -1)), time: Double(i) * 30)
        }
        return (network, Track(name: "detour", fixes: fixes))
    }

    /// Pushes `track` into a stream and, after each push, runs the batch engine over the fixes so far; where the
    /// batch run is one sub-match whose newest fix is scored, compares online at each lag with the batch answer.
    static func onlineAgainstBatch(_ network: RoadNetwork, _ track: Track, _ parameters: MatchParameters, lags: [Int])
        throws -> (engine: MatchEngine, compared: Int, differing: [String])
    {
        let graph = try MatchGraph(network: network)
        let query = try SegmentQuery(index: network.index, capacity: 256)
        let engine = try MatchEngine(graph: graph, query: query)
        let frame = try network.makeFrame()
        var x: [Double] = [], y: [Double] = []
        try frame.forward(latitudes: track.fixes.map(\.coordinate.latitude),
                          longitudes: track.fixes.map(\.coordinate.longitude), x: &x, y: &y)
        let t = track.fixes.map { $0.time ?? .nan }
        let maxLag = lags.max() ?? 0
        let stream = try MatchStream(graph: graph, query: query, parameters: parameters.engine, maxLag: maxLag, routeBonus: 0)
        var compared = 0, differing: [String] = []
        for i in x.indices {
            try stream.push(x: x[i], y: y[i], time: t[i])
            guard i >= maxLag else { continue }
            _ = try engine.run(parameters: parameters.engine, x: Array(x[...i]), y: Array(y[...i]),
                               time: Array(t[...i]), course: nil, speed: nil)
            let batch = engine.fixes
            // no run of outliers open at the window's end: the newest fix scored on the one chain, online too (at the
            // end of a track the batch run resolves an open run, which the stream cannot know is the end)
            guard engine.subMatches.count == 1, batch[i].arc >= 0, !batch[i].held,
                  try #require(stream.result(lag: 0)).fix.arc >= 0 else { continue }
            for lag in lags {
                let online = try #require(stream.result(lag: lag)).fix
                let f = batch[i - lag]
                compared += 1
                if online.arc != f.arc || (f.arc >= 0 && abs(online.offset - f.offset) > 1e-9) || online.held != f.held {
                    differing.append("fix \(i - lag) at \(i) lag \(lag): online \(online.arc)@\(online.offset) batch \(f.arc)@\(f.offset)")
                }
            }
        }
        _ = try engine.run(parameters: parameters.engine, x: x, y: y, time: t, course: nil, speed: nil)
        return (engine, compared, differing)
    }

    static func head(_ arc: Int, _ network: RoadNetwork) -> Int {
        let e = network.edges[RoadGraph.edge(ofArc: arc)]
        return RoadGraph.isForward(arc) ? e.toNode : e.fromNode
    }

    static func tail(_ arc: Int, _ network: RoadNetwork) -> Int {
        let e = network.edges[RoadGraph.edge(ofArc: arc)]
        return RoadGraph.isForward(arc) ? e.fromNode : e.toNode
    }

    /// A held fix of the newest layer lying beyond its layer's arc's head is answered on the arc leaving the head
    /// that the batch run, knowing the next layer, puts it on: on the sample drive (both runs holding within 2 sigma),
    /// every lag-0 answer of a held fix on another arc than its layer's (the window holds no newer layer) is checked
    /// against the batch run over the whole drive. Without the rule there is no such answer.
    @Test func heldFixBeyondTheHeadTakesTheBatchsArc() throws {
        let network = try TestData.bellevue()
        let graph = try MatchGraph(network: network)
        let query = try SegmentQuery(index: network.index, capacity: 256)
        let engine = try MatchEngine(graph: graph, query: query)
        let count = try TrackReader.read(path: TestData.bellevueDrive).fixes.count
        let (x, y, t) = try Self.localDrive(network, range: 0..<count)
        let stream = try MatchStream(graph: graph, query: query, parameters: Self.parameters.engine, maxLag: 5, routeBonus: 0)
        var layerArc = -1
        var beyond: [(fix: Int, arc: Int, layerArc: Int)] = []
        for i in x.indices {
            try stream.push(x: x[i], y: y[i], time: t[i])
            guard let now = stream.result(lag: 0)?.fix else { continue }
            if !now.held { layerArc = now.arc; continue }
            if now.arc != layerArc { beyond.append((i, now.arc, layerArc)) }
        }
        _ = try engine.run(parameters: Self.parameters.engine, x: x, y: y, time: t, course: nil, speed: nil)
        let batch = engine.fixes
        let same = beyond.filter { batch[$0.fix].arc == $0.arc }.count
        let layers = beyond.filter { batch[$0.fix].arc == $0.layerArc }.count
        #expect(beyond.count >= 3, "\(beyond.count) held fixes answered beyond their layer's arc")
        #expect(beyond.allSatisfy { Self.tail($0.arc, network) == Self.head($0.layerArc, network) })
        // the batch's arc for most of them (on the drive 5 of 8; 2 take another arc leaving the same head, 1 stays),
        // the layer's own arc (the answer without the rule) for far fewer
        #expect(same * 2 > beyond.count, "\(same) of \(beyond.count) on the batch's arc, \(layers) on the layer's")
        #expect(same > 2 * layers, "\(same) of \(beyond.count) on the batch's arc, \(layers) on the layer's")
    }

    /// Memory stays flat: the drive pushed five times over (times shifted) holds no more than after the first pass.
    @Test func memoryIsBoundedOnAnEndlessDrive() throws {
        let network = try TestData.bellevue()
        let matcher = try StreamMatcher(network: network, parameters: Self.parameters, maxLag: 5)
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        var afterFirst = 0
        for pass in 0..<5 {
            for f in track.fixes {
                var g = f
                g.time = (f.time ?? 0) + Double(pass) * 10_000
                try matcher.push(g)
            }
            if pass == 0 { afterFirst = matcher.memoryBytes }
            #expect(matcher.memoryBytes <= afterFirst, "pass \(pass): \(matcher.memoryBytes) > \(afterFirst)")
        }
        #expect(afterFirst > 0 && afterFirst < 4 << 20)
        #expect(matcher.result() != nil)
        matcher.reset()
        #expect(matcher.result() == nil)
    }

    /// The route bonus pulls answers onto the route's arcs: with the drive's own matched arcs as the route and a large
    /// bonus, at least as many lag-0 answers lie on them as without.
    @Test func routeBonusFavoursTheRoute() throws {
        let network = try TestData.bellevue()
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        let cut = Array(track.fixes[0..<300])
        let batch = try MapMatcher(network: network, parameters: Self.parameters).match(Track(name: "cut", fixes: cut))
        let routeEdges = Set(batch.subMatches.flatMap(\.edges))
        func onRoute(bonus: Double) throws -> Int {
            let m = try StreamMatcher(network: network, parameters: Self.parameters, maxLag: 0, routeBonus: bonus)
            try m.setRoute(arcs: routeEdges.flatMap { [Int32(2 * $0), Int32(2 * $0 + 1)] })
            var on = 0
            for f in cut {
                try m.push(f)
                if let r = m.result(), routeEdges.contains(r.edge) { on += 1 }
            }
            return on
        }
        let without = try onRoute(bonus: 0), with = try onRoute(bonus: 20)
        #expect(with >= without)
        #expect(with > cut.count * 9 / 10, "\(with) of \(cut.count)")
    }

    /// The online engine never answers a forbidden turn: on a junction where the left turn from the west onto the
    /// north road is forbidden, consecutive answers never go from the west arc straight onto the north arc; without
    /// the restriction they do (so the check can fail).
    @Test func onlineNeverCrossesAForbiddenTurn() throws {
        for restricted in [false, true] {
            let (network, map) = try MatchingTurnRestrictionTests.crossroads(restricted: restricted)
            let graph = try MatchGraph(network: network)
            let w = try #require(map.positions["w"]), c = try #require(map.positions["c"])
            let n = try #require(map.positions["n"])
            var fixes: [Fix] = []
            for k in 0...20 {  // w -> c -> n every 5 m, 1 s apart
                let (a, b, s) = k <= 10 ? (w, c, Double(k) / 10) : (c, n, Double(k - 10) / 10)
                fixes.append(Fix(coordinate: GeoCoordinate(uncheckedLatitude: a.latitude + s * (b.latitude - a.latitude),
                                                           longitude: a.longitude + s * (b.longitude - a.longitude)),
                                 time: Double(k) * 5))
            }
            var p = Self.parameters
            p.minFixDistance = 0
            // Lag 0 as each fix arrives, and the settled answers (every fix answered from the end of the drive).
            let m = try StreamMatcher(network: network, graph: graph, parameters: p, maxLag: fixes.count - 1)
            var live: [Int] = []
            for f in fixes {
                try m.push(f)
                if let r = m.result() { live.append(r.arc) }
            }
            let settled = (0..<fixes.count).reversed().compactMap { m.result(lag: $0)?.arc }
            for (answers, isSettled) in [(live, false), (settled, true)] {
            let turns = zip(answers, answers.dropFirst()).filter { a, b in
                a != b && network.graph.arcHead[a] == network.graph.arcTail[b]
            }
            let forbidden = turns.filter { !graph.isTurnAllowed(from: $0.0, to: $0.1) }
            #expect(forbidden.isEmpty, "restricted \(restricted): \(forbidden)")
            let west = try #require(network.edges.indices.first { network.nodeKeys[network.edges[$0].fromNode] == 10 })
            let leftTurn = turns.contains { a, b in
                a >> 1 == west && network.edges[b >> 1].sourceID == .osmWay(2)
            }
            // Lag 0 may place the fix at the junction on the east road; the settled chain turns left when it may.
            if isSettled { #expect(leftTurn == !restricted, "restricted \(restricted): answers \(answers)") }
            #expect(answers.count == fixes.count)
            }
        }
    }

    /// The engine's pruning against the engine without it (the independent naive Viterbi is NaiveViterbiTests): the
    /// engine with its pruning switched off (no beam: every previous state
    /// expanded; exact per-arc route searches, no joint search and its early stop) against the defaults, on short
    /// cuts of the sample drive every 5th fix: the same arc for at least 97 % of the fixes.
    @Test func fastViterbiAgreesWithExhaustiveSearch() throws {
        let network = try TestData.bellevue()
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        var exhaustive = Self.parameters
        exhaustive.beam = 10_000
        exhaustive.jointSearchBeam = 10_000
        exhaustive.jointSearchInterval = .infinity
        exhaustive.maxCandidates = 16
        var fast = Self.parameters
        fast.maxCandidates = 16
        var same = 0, total = 0
        for start in stride(from: 0, to: 1300, by: 100) {
            let cut = Track(name: "cut", fixes: stride(from: start, to: min(start + 100, track.fixes.count), by: 5)
                .map { track.fixes[$0] })
            let a = try MapMatcher(network: network, parameters: exhaustive).match(cut)
            let b = try MapMatcher(network: network, parameters: fast).match(cut)
            for (x, y) in zip(a.fixes, b.fixes) {
                total += 1
                if x?.edge == y?.edge { same += 1 }
            }
        }
        #expect(total > 200)
        #expect(Double(same) >= 0.97 * Double(total), "\(same) of \(total)")
    }
}

/// A failed batch run leaves no results behind: the engine does not go on serving the previous run's (issue 18).
@Suite struct MatchEngineFailedRunTests {
    @Test func failedRunLeavesNoStaleResults() throws {
        let network = try TestData.bellevue()
        let graph = try MatchGraph(network: network)
        let engine = try MatchEngine(graph: graph, query: try SegmentQuery(index: network.index, capacity: 256))
        let (x, y, t) = try StreamMatcherTests.localDrive(network, range: 0..<200)
        let parameters = StreamMatcherTests.parameters
        #expect(try engine.run(parameters: parameters.engine, x: x, y: y, time: t, course: nil, speed: nil) >= 1)
        #expect(engine.fixes.count == 200 && !engine.subMatches.isEmpty)
        // Per-fix arrays of the wrong length: refused before C runs.
        #expect(throws: NativeFailure.self) {
            try engine.run(parameters: parameters.engine, x: x, y: y, time: Array(t.prefix(10)), course: nil, speed: nil)
        }
        #expect(engine.fixes.isEmpty && engine.subMatches.isEmpty)
        // Parameters the engine refuses: the same.
        #expect(try engine.run(parameters: parameters.engine, x: x, y: y, time: t, course: nil, speed: nil) >= 1)
        var bad = parameters
        bad.radius = 1e9
        #expect(throws: NativeFailure.self) {
            try engine.run(parameters: bad.engine, x: x, y: y, time: t, course: nil, speed: nil)
        }
        #expect(engine.fixes.isEmpty && engine.subMatches.isEmpty)
    }

    /// The engine reads time, course, speed and accuracy in place from `Fix` records (`Fix.doubleLayout`, as
    /// `MapMatcher` gives them: issue 16, item 11) with the results it gives from arrays of their own; the values
    /// do matter (leaving course, speed and accuracy out changes the match).
    @Test func valuesReadInPlaceFromFixesEqualArraysOfTheirOwn() throws {
        let network = try TestData.bellevue()
        let graph = try MatchGraph(network: network)
        let engine = try MatchEngine(graph: graph, query: try SegmentQuery(index: network.index, capacity: 256))
        let (x, y, _) = try StreamMatcherTests.localDrive(network, range: 0..<400)
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        let fixes = track.fixes.prefix(400).enumerated().map { i, f in
            var g = f
            g.course = i % 5 == 0 ? nil : Double((i * 37) % 360)
            g.speed = i % 7 == 0 ? nil : Double(i % 30)
            g.horizontalAccuracy = i % 3 == 0 ? nil : Double(i % 60)
            return g
        }
        let parameters = StreamMatcherTests.parameters.engine
        try engine.run(parameters: parameters, x: x, y: y, time: fixes.map { $0.time ?? .nan },
                       course: fixes.map { $0.course ?? .nan }, speed: fixes.map { $0.speed ?? .nan },
                       accuracy: fixes.map { $0.horizontalAccuracy ?? .nan })
        let (arrays, arraySubs) = (engine.fixes, engine.subMatches)
        let layout = try #require(Fix.doubleLayout)
        let offsets: [Int] = [layout.stride, layout.time, layout.course, layout.speed, layout.accuracy]
        #expect(offsets == [7, 2, 3, 4, 6])
        try fixes.withUnsafeBytes { raw in
            try raw.withMemoryRebound(to: Double.self) { d in
                let base = try #require(d.baseAddress)
                try engine.run(parameters: parameters, x: x, y: y, columns: MatchEngine.FixColumns(
                    stride: layout.stride, time: base + layout.time, course: base + layout.course,
                    speed: base + layout.speed, accuracy: base + layout.accuracy))
            }
        }
        #expect(engine.fixes.count == 400 && engine.fixes.filter { $0.arc >= 0 }.count > 300)
        #expect(engine.fixes == arrays && engine.subMatches == arraySubs)
        try engine.run(parameters: parameters, x: x, y: y, time: fixes.map { $0.time ?? .nan }, course: nil,
                       speed: nil)
        #expect(engine.fixes != arrays)
    }
}

/// A fix's horizontal accuracy (1 sigma) widens its own emission when larger than the model's sigma, in the batch run
/// and the stream alike (issue 13: the navigator's live fixes carry it).
@Suite struct MatchAccuracyTests {
    /// Sigma reaches only the emission here: the hold distance and the falling-back tolerance are set apart from it.
    static func parameters(sigma: Double) -> MatchParameters {
        var p = MatchParameters()
        p.raiseSigmaToTrack = false
        p.sigma = sigma
        p.minFixDistance = 8
        p.backwardTolerance = 40
        return p
    }

    @Test func accuracyActsAsThatFixsSigma() throws {
        let network = try TestData.bellevue()
        let drive = try TrackReader.read(path: TestData.bellevueDrive)
        // every 3rd fix, so the emission weighs against longer transitions
        let fixes = stride(from: 0, to: drive.fixes.count, by: 3).map { drive.fixes[$0] }
        let wide = 3 * 4.07
        let plain = Track(name: "plain", fixes: fixes)
        let reported = Track(name: "accuracy", fixes: fixes.map { f in var g = f; g.horizontalAccuracy = wide; return g })
        let small = Track(name: "small", fixes: fixes.map { f in var g = f; g.horizontalAccuracy = 2; return g })
        let base = try MapMatcher(network: network, parameters: Self.parameters(sigma: 4.07)).match(plain)
        let asSigma = try MapMatcher(network: network, parameters: Self.parameters(sigma: wide)).match(plain)
        let withAccuracy = try MapMatcher(network: network, parameters: Self.parameters(sigma: 4.07)).match(reported)
        let withSmall = try MapMatcher(network: network, parameters: Self.parameters(sigma: 4.07)).match(small)
        // the reported accuracy is that fix's sigma ...
        #expect(withAccuracy.fixes == asSigma.fixes)
        #expect(withAccuracy.subMatches.map(\.steps) == asSigma.subMatches.map(\.steps))
        // ... which matters (the wider emission lets transitions weigh more) ...
        #expect(withAccuracy.fixes != base.fixes)
        // ... and one below the model's sigma changes nothing
        #expect(withSmall.fixes == base.fixes)
        // The stream takes it too: at lag 0 every answer as with sigma = the accuracy.
        let a = try StreamMatcher(network: network, parameters: Self.parameters(sigma: 4.07), maxLag: 0)
        let b = try StreamMatcher(network: network, parameters: Self.parameters(sigma: wide), maxLag: 0)
        var differing = 0
        for (f, g) in zip(reported.fixes, plain.fixes) {
            try a.push(f)
            try b.push(g)
            if a.result() != b.result() { differing += 1 }
        }
        #expect(differing == 0)
    }
}
