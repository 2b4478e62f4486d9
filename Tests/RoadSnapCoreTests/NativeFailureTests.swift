import Foundation
import Testing
import RoadSnapCore
import RoadSnapFormats

/// A GEOS or PROJ failure reaches the caller of the public API as a `RoadSnapError` saying what failed (issue 18),
/// instead of becoming "no road" (GEOS) or NaN (PROJ) on the way up.
@Suite struct NativeFailureTests {
    /// A point 90 degrees of longitude east of the map's centre, on the equator: outside the domain of the map's
    /// transverse Mercator frame, which PROJ refuses (PROJ_ERR_COORD_TRANSFM_OUTSIDE_PROJECTION_DOMAIN).
    static func outsideTheFrame(_ network: RoadNetwork) -> GeoCoordinate {
        GeoCoordinate(uncheckedLatitude: 0, longitude: network.frameCenter.longitude + 90)
    }

    static func projectionMessage(_ body: () throws(RoadSnapError) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            guard case let .projection(message) = error else { return "not a projection error: \(error)" }
            return message
        }
    }

    @Test func aPointPROJRefusesIsAProjectionErrorNamingThePoint() throws {
        let network = try TestData.bellevue()
        let far = Self.outsideTheFrame(network)
        let frame = try network.makeFrame()
        // The frame itself: PROJ's reason and which point.
        let direct = try #require(Self.projectionMessage { () throws(RoadSnapError) in
            _ = try frame.project(latitude: far.latitude, longitude: far.longitude)
        })
        #expect(direct.contains("point 0"), "\(direct)")
        #expect(direct.contains("outside"), "PROJ's reason is missing: \(direct)")
        // A point inside still projects, and the NaN path stays NaN (not a crash, not a stale value).
        let inside = try frame.project(latitude: network.frameCenter.latitude, longitude: network.frameCenter.longitude)
        #expect(abs(inside.x) < 1e-6 && abs(inside.y) < 1e-6)
        #expect(frame.forward(latitude: far.latitude, longitude: far.longitude).x.isNaN)
    }

    @Test func snapMatchAndRouteReportAFixPROJRefuses() throws {
        let network = try TestData.bellevue()
        let far = Self.outsideTheFrame(network)
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        // The fourth fix of a real drive moved out of the frame's domain.
        var fixes = Array(track.fixes.prefix(20))
        fixes[3] = Fix(coordinate: far, time: fixes[3].time)
        let snapper = try Snapper(network: network)
        let batch = try #require(Self.projectionMessage { () throws(RoadSnapError) in _ = try snapper.snap(fixes) })
        #expect(batch.contains("point 3"), "\(batch)")
        let one = try #require(Self.projectionMessage { () throws(RoadSnapError) in _ = try snapper.snap(fixes[3]) })
        #expect(one.contains("point 0"), "\(one)")
        // The same fixes without the far one snap.
        #expect(try snapper.snap(Array(fixes.prefix(3))).contains { $0 != nil })

        let matcher = try MapMatcher(network: network)
        let matched = try #require(Self.projectionMessage { () throws(RoadSnapError) in
            _ = try matcher.match(Track(name: "far", fixes: fixes))
        })
        #expect(matched.contains("point 3"), "\(matched)")

        let router = Router(network: network)
        let r = router.route(RouteRequest(waypoints: [Waypoint(coordinate: fixes[0].coordinate), Waypoint(coordinate: far)]))
        #expect(r.status == .waypointError, "\(r.status): \(r.message)")
        #expect(r.waypointIndex == 1)
        #expect(r.message.contains("projection error (PROJ)"), "\(r.message)")
    }

    /// A real GEOS failure: GEOS cannot be loaded (ROADSNAP_GEOS_LIBRARY names a missing file) while a compiled map,
    /// which opens and snaps within its cache radius without GEOS, is asked for a search beyond that radius (the
    /// STRtree is built from GEOS on first such search). Before: every fix "had no road" and the command succeeded.
    @Test func aGEOSFailureReachesTheCommandLine() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let compiled = dir.appendingPathComponent("bellevue.rsmap").path
        _ = try TestData.run(MatchCommandTests.binary, ["compile", "--map", TestData.bellevueMap, "--out", compiled])
        let out = dir.appendingPathComponent("snapped.csv").path
        let missing = "/nonexistent/roadsnap-test/libmissing.so.1"
        let args = ["snap", "--map", compiled, "--radius", "2000", "--out", out, TestData.bellevueDrive]

        let failed = try TestData.execute(MatchCommandTests.binary, args, environment: ["ROADSNAP_GEOS_LIBRARY": missing])
        #expect(failed.status == 1, "\(failed.status): \(failed.err)")
        #expect(failed.err.contains("geometry error (GEOS)"), "\(failed.err)")
        #expect(failed.err.contains("ROADSNAP_GEOS_LIBRARY") && failed.err.contains(missing), "\(failed.err)")
        #expect(!FileManager.default.fileExists(atPath: out))

        // Within the cache radius no GEOS is needed: the same map and track snap without it.
        let cached = try TestData.execute(MatchCommandTests.binary, ["snap", "--map", compiled, "--out", out,
                                                                     TestData.bellevueDrive],
                                          environment: ["ROADSNAP_GEOS_LIBRARY": missing])
        #expect(cached.status == 0, "\(cached.err)")
        // And with GEOS the wide search works.
        let wide = try TestData.execute(MatchCommandTests.binary, args)
        #expect(wide.status == 0, "\(wide.err)")
    }
}
