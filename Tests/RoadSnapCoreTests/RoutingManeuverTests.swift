import RoadSnapCore
import Testing

/// Small hand-drawn networks, laid out in metres east (x) and north (y) of a point in Bellevue WA (right-hand
/// traffic).
struct Sketch {
    static let lat0 = 47.6, lon0 = -122.2
    var ways: [RoadWay] = []
    var exits: [Int64: String] = [:]
    /// Where the sketch lies (Bellevue by default; London for left-hand traffic).
    var origin = (Sketch.lat0, Sketch.lon0)

    static func at(_ x: Double, _ y: Double, origin: (Double, Double) = (lat0, lon0)) -> GeoCoordinate {
        GeoCoordinate(uncheckedLatitude: origin.0 + y / 111_320,
                      longitude: origin.1 + x / (111_320 * RSMath.cos(origin.0 * Double.pi / 180)))
    }

    /// Stable key for a vertex, so exit numbers can be tagged on it.
    static func key(_ p: (Double, Double)) -> Int64 { Int64((p.0 * 10).rounded()) * 1_000_000 + Int64((p.1 * 10).rounded()) }

    mutating func road(_ points: [(Double, Double)], _ cls: RoadClass = .residential, name: String? = nil,
                       ref: String? = nil, oneway: Bool = false, roundabout: Bool = false, toll: Bool = false,
                       turnLanes: String? = nil, train: Bool = false)
    {
        let attrs = RoadAttributes(roadClass: cls, name: name, ref: ref, turnLanesForward: turnLanes,
                                   isRoundabout: roundabout, isToll: toll, isTrain: train)
        ways.append(RoadWay(sourceID: .number(Int64(ways.count + 1)),
                            coordinates: points.map { Self.at($0.0, $0.1, origin: origin) },
                            nodeKeys: points.map(Self.key), direction: oneway ? .forward : .both, attributes: attrs))
    }

    func router() throws -> Router {
        Router(network: try RoadNetwork(ways: ways, exitRefs: exits, sourceName: "sketch"))
    }
}

func wp(_ x: Double, _ y: Double, heading: Double? = nil, sameSide: Bool = false) -> Waypoint {
    Waypoint(coordinate: Sketch.at(x, y), preferredHeading: heading, preferSameSideOfRoad: sameSide)
}

/// Routes and returns the single leg's steps (failing the test when there is no route).
func steps(_ router: Router, _ points: Waypoint..., options: RoutingOptions = RoutingOptions()) throws -> [RouteStep] {
    let result = router.route(RouteRequest(waypoints: points, options: options))
    #expect(result.status == .ok, "\(result.message)")
    let route = try #require(result.route)
    return route.legs.flatMap(\.steps)
}

/// The maneuvers between depart and destination.
func inner(_ s: [RouteStep]) -> [Maneuver] { s.dropFirst().dropLast().map(\.maneuver) }

@Suite struct RoutingManeuverTests {
    /// A crossroads: Main Street west-east, Cross Street south-north, Main becomes East Avenue past the junction.
    func crossroads(turnLanes: String? = nil) throws -> Router {
        var s = Sketch()
        s.road([(-300, 0), (0, 0)], name: "Main Street", turnLanes: turnLanes)
        s.road([(0, 0), (300, 0)], name: "East Avenue")
        s.road([(0, -300), (0, 0), (0, 300)], name: "Cross Street")
        return try s.router()
    }

    @Test func departTurnsStraightAndArrival() throws {
        let r = try crossroads()
        let left = try steps(r, wp(-200, 0), wp(0, 200))
        #expect(left.first?.maneuver == .depart)
        #expect(left.first?.instruction == "Head east on Main Street")
        #expect(inner(left) == [.turnLeft])
        #expect(left[1].instruction == "Turn left onto Cross Street")
        #expect(left.last?.maneuver == .destination)
        #expect(left.last?.instruction == "Your destination is ahead")
        #expect(inner(try steps(r, wp(-200, 0), wp(0, -200))) == [.turnRight])
        let straight = try steps(r, wp(-200, 0), wp(200, 0))
        #expect(inner(straight) == [.straight])
        #expect(straight[1].instruction == "Continue straight onto East Avenue")
        // Distances between steps add up to the leg, and are measured from the previous step.
        #expect(abs(straight[1].distanceFromPreviousStep - 200) < 1)
        #expect(abs(straight[2].distanceFromPreviousStep - 200) < 1)
        #expect(straight[2].timeFromPreviousStep > 0)
        #expect(straight.map(\.stepNumber) == [0, 1, 2])
    }

    @Test func slightAndSharpTurns() throws {
        var s = Sketch()
        s.road([(0, -300), (0, 0)], name: "Approach")
        s.road([(0, 0), (200 * 0.574, 200 * 0.819)], name: "Slight Road")  // bearing 35
        s.road([(0, 0), (200 * 0.5, -200 * 0.866)], name: "Sharp Road")  // bearing 150
        s.road([(0, 0), (-200, 0)], name: "Left Road")
        let r = try s.router()
        #expect(inner(try steps(r, wp(0, -200), wp(100 * 0.574, 100 * 0.819))) == [.turnSlightRight])
        #expect(inner(try steps(r, wp(0, -200), wp(100 * 0.5, -100 * 0.866))) == [.turnSharpRight])
        #expect(inner(try steps(r, wp(0, -200), wp(-150, 0))) == [.turnLeft])
    }

    @Test func nameChangeWithoutJunction() throws {
        var s = Sketch()
        s.road([(0, 0), (200, 0)], name: "First Street")
        s.road([(200, 0), (400, 10)], name: "Second Street")
        let st = try steps(try s.router(), wp(50, 0), wp(350, 7))
        #expect(inner(st) == [.nameChange])
        #expect(st[1].instruction == "Continue onto Second Street")
    }

    @Test func uTurnAtADeadEnd() throws {
        var s = Sketch()
        s.road([(0, -100), (0, 0), (0, 100)], name: "Cross Road")
        s.road([(0, 0), (200, 0)], name: "Dead End Lane")
        // Leaving eastwards, the only way to a point behind is turning at the dead end.
        let st = try steps(try s.router(), wp(100, 0, heading: 90), wp(50, 0))
        #expect(inner(st) == [.turnUTurnCounterClockwise])
        #expect(st[1].instruction == "Make a U-turn onto Dead End Lane")
    }

    @Test func keepAndForkAtSplits() throws {
        var s = Sketch()
        s.road([(0, -300), (0, 0)], name: "Oak Street")
        s.road([(0, 0), (-70, 200)], name: "Pine Street")
        s.road([(0, 0), (90, 200)], name: "Birch Street")
        let r = try s.router()
        #expect(inner(try steps(r, wp(0, -200), wp(-52, 150))) == [.turnKeepLeft])
        #expect(inner(try steps(r, wp(0, -200), wp(68, 150))) == [.turnKeepRight])

        var m = Sketch()
        m.road([(0, -2000), (0, 0)], .motorway, ref: "I 90", oneway: true)
        m.road([(0, 0), (-200, 2000)], .motorway, ref: "I 90", oneway: true)
        m.road([(0, 0), (300, 2000)], .motorway, ref: "I 405", oneway: true)
        let mr = try m.router()
        let fork = try steps(mr, wp(0, -1000), wp(150, 1000))
        #expect(inner(fork) == [.forkRight])
        #expect(fork[1].instruction == "At the fork, keep right onto I 405")
        // Staying on I 90 is no maneuver.
        #expect(inner(try steps(mr, wp(0, -1000), wp(-100, 1000))) == [])
    }

    /// A motorway with an on-ramp from Elm Street (merging) and an off-ramp at exit 12 to Main Street.
    func motorway() throws -> Router {
        var s = Sketch()
        s.road([(0, 0), (600, 0), (1000, 0), (2000, 0)], .motorway, ref: "I 90", oneway: true)
        s.road([(400, -400), (400, -100)], name: "Elm Street")
        s.road([(400, -100), (450, -40), (600, 0)], .motorwayLink, oneway: true)
        s.road([(1000, 0), (1150, -30), (1300, -60)], .motorwayLink, oneway: true)
        s.road([(1300, 300), (1300, -60), (1300, -600)], name: "Main Street")
        s.exits[Sketch.key((1000, 0))] = "12"
        return try s.router()
    }

    @Test func onRampMergeAndOffRampWithExitNumber() throws {
        let r = try motorway()
        let st = try steps(r, wp(400, -300), wp(1300, -400))
        let m = inner(st)
        #expect(m.count == 4)
        #expect(m.first?.family == .onRamp)
        #expect(m.first == .onRampSlightRight)
        #expect(m.dropFirst().first == .mergeLeft)  // joining from the right-hand side
        #expect(m.dropFirst(2).first == .offRampKeepRight)
        let exit = st[3]
        #expect(exit.exitNumber == "12")
        #expect(exit.instruction.hasPrefix("Take exit 12 on the right"))
        #expect(m.last == .turnRight)
        #expect(st[4].instruction == "Turn right onto Main Street")
    }

    /// A counter-clockwise one-way ring (radius 20 m) with four two-way arms.
    func roundabout() throws -> Router {
        var s = Sketch()
        let r = 20.0, d = 20.0 * 0.7071
        s.road([(0, -r), (d, -d), (r, 0)], .tertiary, oneway: true, roundabout: true)
        s.road([(r, 0), (d, d), (0, r)], .tertiary, oneway: true, roundabout: true)
        s.road([(0, r), (-d, d), (-r, 0)], .tertiary, oneway: true, roundabout: true)
        s.road([(-r, 0), (-d, -d), (0, -r)], .tertiary, oneway: true, roundabout: true)
        s.road([(0, -200), (0, -r)], .tertiary, name: "South Road")
        s.road([(r, 0), (200, 0)], .tertiary, name: "East Road")
        s.road([(0, r), (0, 200)], .tertiary, name: "North Road")
        s.road([(-r, 0), (-200, 0)], .tertiary, name: "West Road")
        return try s.router()
    }

    @Test func roundaboutExitsAreCounted() throws {
        let r = try roundabout()
        let right = try steps(r, wp(0, -150), wp(150, 0))
        #expect(inner(right) == [.roundaboutRightCounterClockwise])
        #expect(right[1].roundaboutTurnNumber == 1)
        let straight = try steps(r, wp(0, -150), wp(0, 150))
        #expect(inner(straight) == [.roundaboutStraightCounterClockwise])
        #expect(straight[1].roundaboutTurnNumber == 2)
        #expect(straight[1].instruction == "At the roundabout, take the 2nd exit onto North Road")
        let left = try steps(r, wp(0, -150), wp(-150, 0))
        #expect(inner(left) == [.roundaboutLeftCounterClockwise])
        #expect(left[1].roundaboutTurnNumber == 3)
        #expect(left[1].instruction == "At the roundabout, take the 3rd exit onto West Road")
        // Announced where the ring starts, and the other steps are not roundabouts.
        #expect(abs(left[1].distanceFromPreviousStep - 130) < 1)
        #expect(left[0].roundaboutTurnNumber == -1)
        // Going all the way round: 4th exit, a U-turn.
        let back = try steps(r, wp(0, -150, heading: 0), wp(0, -180))
        #expect(back[1].roundaboutTurnNumber == 4)
        #expect(back[1].maneuver == .roundaboutUTurnCounterClockwise)
    }

    /// In London traffic keeps left: the ring is drawn clockwise, exits are counted clockwise, U-turns swing right.
    @Test func leftHandTrafficRoundaboutAndUTurn() throws {
        var s = Sketch()
        s.origin = (51.5, -0.1)
        let r = 20.0, d = 20.0 * 0.7071
        s.road([(0, -r), (-d, -d), (-r, 0)], .tertiary, oneway: true, roundabout: true)
        s.road([(-r, 0), (-d, d), (0, r)], .tertiary, oneway: true, roundabout: true)
        s.road([(0, r), (d, d), (r, 0)], .tertiary, oneway: true, roundabout: true)
        s.road([(r, 0), (d, -d), (0, -r)], .tertiary, oneway: true, roundabout: true)
        s.road([(0, -200), (0, -r)], .tertiary, name: "South Road")
        s.road([(r, 0), (200, 0)], .tertiary, name: "East Road")
        s.road([(0, r), (0, 200)], .tertiary, name: "North Road")
        s.road([(-r, 0), (-200, 0)], .tertiary, name: "West Road")
        s.road([(0, -200), (-100, -200)], name: "Dead End")
        let router = try s.router()
        #expect(router.drivingSide == .left)
        func london(_ x: Double, _ y: Double, heading: Double? = nil) -> Waypoint {
            Waypoint(coordinate: Sketch.at(x, y, origin: s.origin), preferredHeading: heading)
        }
        let left = try steps(router, london(0, -150), london(-150, 0))
        #expect(inner(left) == [.roundaboutLeftClockwise])
        #expect(left[1].roundaboutTurnNumber == 1)
        #expect(left[1].drivingSide == .left)
        let right = try steps(router, london(0, -150), london(150, 0))
        #expect(inner(right) == [.roundaboutRightClockwise])
        #expect(right[1].roundaboutTurnNumber == 3)
        let uTurn = try steps(router, london(-50, -200, heading: 270), london(-20, -200))
        #expect(inner(uTurn) == [.turnUTurnClockwise])
    }

    @Test func ferryCrossing() throws {
        var s = Sketch()
        s.road([(0, 0), (1000, 0)], name: "Harbour Road")
        s.road([(1000, 0), (3000, 0)], .ferry, name: "Island Ferry")
        s.road([(3000, 0), (4000, 0)], name: "Island Road")
        let st = try steps(try s.router(), wp(500, 0), wp(3500, 0))
        #expect(inner(st) == [.ferryBoat, .nameChange])
        #expect(st[1].instruction == "Take the ferry Island Ferry")
    }

    @Test func carTrainThenFerry() throws {
        var s = Sketch()
        s.road([(0, 0), (1000, 0)], name: "Terminal Road")
        s.road([(1000, 0), (3000, 0)], .ferry, name: "Tunnel Shuttle", train: true)
        s.road([(3000, 0), (5000, 0)], .ferry, name: "Island Ferry")
        s.road([(5000, 0), (6000, 0)], name: "Island Road")
        let st = try steps(try s.router(), wp(500, 0), wp(5500, 0))
        #expect(inner(st) == [.ferryTrain, .ferryBoat, .nameChange])
        #expect(st[1].instruction == "Take the train Tunnel Shuttle")
        #expect(st[2].instruction == "Take the ferry Island Ferry")
    }

    @Test func destinationSide() throws {
        let r = try crossroads()
        let leftSide = try steps(r, wp(-250, 0), wp(-100, 15))
        #expect(leftSide.last?.maneuver == .destinationLeft)
        #expect(leftSide.last?.instruction == "Your destination is ahead on your left")
        #expect(try steps(r, wp(-250, 0), wp(-100, -15)).last?.maneuver == .destinationRight)
    }

    @Test func sameSideOfRoadArrivesWithTheDestinationOnTheRight() throws {
        var s = Sketch()
        s.road([(-500, 0), (500, 0)], name: "Long Road")
        let r = try s.router()
        let plain = try steps(r, wp(-200, 0), wp(100, 15))
        #expect(plain.last?.maneuver == .destinationLeft)
        let sameSide = try steps(r, wp(-200, 0), wp(100, 15, sameSide: true))
        #expect(sameSide.last?.maneuver == .destinationRight)
        #expect(inner(sameSide) == [.turnUTurnCounterClockwise])
    }

    @Test func laneGuidanceMarksTheLanesForTheTurn() throws {
        let r = try crossroads(turnLanes: "left|through|through;right")
        let st = try steps(r, wp(-200, 0), wp(0, 200))
        let lanes = st[1].lanes
        #expect(lanes.count == 3)
        #expect(lanes.map(\.isRecommended) == [true, false, false])
        #expect(lanes[0].directions == [LaneDirection(shape: .normalLeft, isRecommended: true)])
        let right = try steps(r, wp(-200, 0), wp(0, -200))[1].lanes
        #expect(right.map(\.isRecommended) == [false, false, true])
        #expect(right[2].directions == [LaneDirection(shape: .straight, isRecommended: false),
                                        LaneDirection(shape: .normalRight, isRecommended: true)])
        let ahead = try steps(r, wp(-200, 0), wp(200, 0))[1].lanes
        #expect(ahead.map(\.isRecommended) == [false, true, true])
        // No turn:lanes, no lanes.
        #expect(try steps(try crossroads(), wp(-200, 0), wp(0, 200))[1].lanes.isEmpty)
    }

    @Test func avoidOptionsTakeTheOtherRoad() throws {
        var s = Sketch()
        s.road([(0, 0), (3000, 0)], .motorway, ref: "SR 1")
        s.road([(0, 0), (0, 500), (3000, 500), (3000, 0)], .secondary, name: "Old Road")
        s.road([(3000, 0), (3500, 0)], name: "End Street")
        s.road([(-500, 0), (0, 0)], name: "Start Street")
        let r = try s.router()
        func classes(_ o: RoutingOptions) throws -> Set<RoadClass> {
            let res = r.route(RouteRequest(waypoints: [wp(-300, 0), wp(3300, 0)], options: o))
            let route = try #require(res.route)
            return Set(route.legs[0].segments.map { r.network.edges[$0.edge].attributes.roadClass })
        }
        #expect(try classes(RoutingOptions()).contains(.motorway))
        #expect(try !classes(RoutingOptions(avoidsHighways: true)).contains(.motorway))
        var t = Sketch()
        t.road([(0, 0), (3000, 0)], .primary, name: "Toll Bridge", toll: true)
        t.road([(0, 0), (0, 500), (3000, 500), (3000, 0)], .primary, name: "Free Road")
        let tr = try t.router()
        let viaToll = tr.route(RouteRequest(waypoints: [wp(100, 0), wp(2900, 0)]))
        let noToll = tr.route(RouteRequest(waypoints: [wp(100, 0), wp(2900, 0)], options: RoutingOptions(avoidsTolls: true)))
        #expect(try #require(viaToll.route).distance < 3000)
        #expect(try #require(noToll.route).distance > 3500)
    }

    @Test func viaWaypointsMakeOneLegPerDestination() throws {
        let r = try crossroads()
        let res = r.route(RouteRequest(waypoints: [wp(-200, 0), wp(0, 200), wp(200, 0)]))
        let route = try #require(res.route)
        #expect(route.legs.count == 2)
        #expect(route.legs.allSatisfy { $0.steps.first?.maneuver == .depart && $0.steps.last?.maneuver.family == .destination })
        #expect(abs(route.distance - (route.legs[0].distance + route.legs[1].distance)) < 1e-9)
        // Segments carry offsets and cumulative distances a navigator can track.
        let leg = route.legs[0]
        #expect(abs(leg.segments.reduce(0) { $0 + $1.distance } - leg.distance) < 1e-6)
        #expect(leg.segments.first?.distanceFromLegStart == 0)
        #expect(abs(leg.duration - leg.segments.reduce(0) { $0 + $1.duration }) < 1e-6)
        #expect(leg.geometry.count >= 3)
    }

    @Test func everyOutcomeHasAStatus() throws {
        var s = Sketch()
        s.road([(0, 0), (500, 0)], name: "Island A", oneway: true)
        s.road([(0, 100), (500, 100)], name: "Island B", oneway: true)
        s.road([(2000, 0), (2500, 0)], name: "Far Road")
        let r = try s.router()
        func status(_ req: RouteRequest) -> RouteStatus { r.route(req).status }
        #expect(status(RouteRequest(waypoints: [wp(100, 0), wp(400, 0)])) == .ok)
        #expect(status(RouteRequest(origin: wp(100, 0), destinations: [])) == .noWaypoints)
        #expect(status(RouteRequest(origin: nil, destinations: [wp(400, 0)])) == .locationUnavailable)
        #expect(status(RouteRequest(waypoints: [wp(100, 0), wp(100, 0)])) == .duplicateWaypoints)
        #expect(status(RouteRequest(waypoints: [wp(100, 0), wp(100, 5000)])) == .waypointError)
        #expect(status(RouteRequest(waypoints: [wp(100, 0), wp(400, 100)])) == .noRouteFound)
        #expect(status(RouteRequest(waypoints: [wp(400, 0), wp(100, 0)])) == .noRouteFound)  // against the one-way
        #expect(status(RouteRequest(waypoints: [wp(100, 0), wp(400, 0)], travelMode: .walking)) == .travelModeUnsupported)
        #expect(r.route(RouteRequest(waypoints: [wp(100, 0), wp(400, 0)]), isCanceled: { true }).status == .canceled)
        let failed = r.route(RouteRequest(waypoints: [wp(100, 0), wp(100, 5000)]))
        #expect(failed.waypointIndex == 1)
        #expect(failed.message.contains("waypoint 1"))
    }

    /// The navigation SDK's 66 maneuvers (its reference lists them; `../shared/reference/navigation-sdk-api.md`), in
    /// lower camel case: RoadSnap has exactly these, no more, none missing or misspelt.
    @Test func maneuversAreTheSDKsSixtySix() {
        let ramp = ["Unspecified", "Left", "Right", "KeepLeft", "KeepRight", "SlightLeft", "SlightRight", "SharpLeft",
                    "SharpRight", "UTurnClockwise", "UTurnCounterClockwise"]
        let roundaboutTurns = ["", "Straight", "Left", "Right", "SlightLeft", "SlightRight", "SharpLeft", "SharpRight",
                               "UTurn", "Exit"]
        var sdk = ["Unknown", "Depart", "Destination", "DestinationLeft", "DestinationRight", "Straight", "TurnLeft",
                   "TurnRight", "TurnKeepLeft", "TurnKeepRight", "TurnSlightLeft", "TurnSlightRight", "TurnSharpLeft",
                   "TurnSharpRight", "TurnUTurnClockwise", "TurnUTurnCounterClockwise", "MergeUnspecified",
                   "MergeLeft", "MergeRight", "ForkLeft", "ForkRight"]
        sdk += ramp.map { "OnRamp" + $0 } + ramp.map { "OffRamp" + $0 }
        sdk += roundaboutTurns.flatMap { ["Roundabout\($0)Clockwise", "Roundabout\($0)CounterClockwise"] }
        sdk += ["FerryBoat", "FerryTrain", "NameChange"]
        let expected = sdk.map { $0.prefix(1).lowercased() + $0.dropFirst() }
        #expect(expected.count == 66 && Set(expected).count == 66)
        #expect(Set(Maneuver.allCases.map(\.rawValue)) == Set(expected))
    }

    @Test func displayRounding() {
        #expect(DisplayRounding.distance(42) == 40)
        #expect(DisplayRounding.distance(237) == 240)
        #expect(DisplayRounding.distance(733) == 750)
        #expect(DisplayRounding.distanceText(1234) == "1.2 km")
        #expect(DisplayRounding.distanceText(23_456) == "23 km")
        #expect(DisplayRounding.time(20) == 60)
        #expect(DisplayRounding.time(151) == 180)
        #expect(DisplayRounding.timeText(3900) == "1 h 5 min")
        #expect(Instructions.ordinal(1) == "1st" && Instructions.ordinal(12) == "12th" && Instructions.ordinal(23) == "23rd")
    }
}
