import Testing
@testable import RoadSnapCore

/// The legs (steps, geometry, segments) of random routes (300 pairs per map) on two real maps, rendered exactly and
/// digested: a change to how a leg is built that is meant to be a pure speed-up (issue 13: attribute sets read from
/// the table, branches counted without arrays, lanes parsed only for the steps that show them) must leave this digest
/// as it was. The digest was taken from the builder before that change (25e6bdf) and after it: both give the same.
struct RoutingStepsGoldenTests {
    /// FNV-1a over the UTF-8 of a rendering (Swift's `Hasher` is seeded per process).
    static func fnv1a(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    static func render(_ leg: RouteLeg) -> String {
        var out = "leg \(leg.distance) \(leg.duration) \(leg.geometry.count) \(leg.segments.count)\n"
        for g in leg.geometry { out += "\(g.latitude),\(g.longitude);" }
        out += "\n"
        for s in leg.segments {
            out += "seg \(s.arc) \(s.fromOffset) \(s.toOffset) \(s.duration) \(s.distanceFromLegStart) "
                + "\(s.geometryStart)\n"
        }
        for s in leg.steps {
            let lanes = s.lanes.map { lane in
                lane.directions.map { "\($0.shape)\($0.isRecommended ? "*" : "")" }.joined(separator: ";")
            }
            out += "step \(s.stepNumber) \(s.maneuver.rawValue) \(s.location.latitude),\(s.location.longitude) "
                + "[\(s.simpleRoadName)] [\(s.fullRoadName)] [\(s.instruction)] \(s.distanceFromPreviousStep) "
                + "\(s.timeFromPreviousStep) \(s.distanceFromLegStart) \(s.timeFromLegStart) \(s.drivingSide) "
                + "\(lanes.joined(separator: "|")) \(s.exitNumber ?? "-") \(s.roundaboutTurnNumber) \(s.segmentIndex) "
                + "\(s.towards ?? "-")\n"
        }
        return out
    }

    @Test func legsOfRandomRoutesAreUnchanged() throws {
        var digests: [UInt64] = []
        var routes = 0, steps = 0
        for path in [NavigationFixtures.monaco, TestData.bellevueMap] {
            let router = try NavigationFixtures.router(path)
            let b = router.network.bounds
            var rng = SplitMix64(seed: 1313)
            var text = ""
            for _ in 0..<300 {
                let o = b.randomCoordinate(using: &rng), d = b.randomCoordinate(using: &rng)
                guard let leg = router.route(RouteRequest(origin: Waypoint(coordinate: o),
                                                          destinations: [Waypoint(coordinate: d)])).route?.legs.first
                else { continue }
                routes += 1
                steps += leg.steps.count
                text += Self.render(leg)
            }
            digests.append(Self.fnv1a(text))
        }
        print("step digests: \(digests.map { String($0, radix: 16) }) over \(routes) routes, \(steps) steps")
        #expect(routes >= 200)
        #expect(digests == Self.expected)
    }

    static let expected: [UInt64] = [0xf338_7b0c_75bb_8432, 0xaa37_cfd7_5fa9_b271]

    @Test func linkClassesAreTheLinkValues() {
        for c in RoadClass.allCases { #expect(c.isLink == c.rawValue.hasSuffix("_link"), "\(c)") }
        #expect(RoadClass.allCases.filter(\.isLink).count == 5)
    }
}
