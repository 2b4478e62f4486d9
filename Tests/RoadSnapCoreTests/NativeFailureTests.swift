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
        let snapper = try Snapper(network: network)
        // The one single-point projection: PROJ's reason and which point, never a NaN point.
        let direct = try #require(Self.projectionMessage { () throws(RoadSnapError) in _ = try snapper.project(far) })
        #expect(direct.contains("point 0"), "\(direct)")
        #expect(direct.contains("outside"), "PROJ's reason is missing: \(direct)")
        let matcher = try StreamMatcher(network: network)
        let streamed = try #require(Self.projectionMessage { () throws(RoadSnapError) in _ = try matcher.project(far) })
        #expect(streamed.contains("outside"), "\(streamed)")
        // A point inside still projects.
        let inside = try snapper.project(network.frameCenter)
        #expect(abs(inside.x) < 1e-6 && abs(inside.y) < 1e-6)
    }

    /// The stream matcher reports a fix PROJ refuses and keeps the lags of the fixes after it aligned: the fix is
    /// pushed unmatched, then the push throws.
    @Test func aStreamedFixPROJRefusesIsReportedAndPushedUnmatched() throws {
        let network = try TestData.bellevue()
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        let matcher = try StreamMatcher(network: network, maxLag: 2)
        for f in track.fixes.prefix(5) { try matcher.push(f) }
        #expect(matcher.result(lag: 0) != nil)
        var far = track.fixes[5]
        far.coordinate = Self.outsideTheFrame(network)
        let message = try #require(Self.projectionMessage { () throws(RoadSnapError) in try matcher.push(far) })
        #expect(message.contains("outside"), "\(message)")
        #expect(matcher.result(lag: 0) == nil)   // the refused fix, unmatched
        #expect(matcher.result(lag: 1) != nil)   // the fix before it, still answered
        try matcher.push(track.fixes[6])
        #expect(matcher.result(lag: 1) == nil)   // the refused fix is one back now: the lags stay aligned
    }

    /// Navigation: a raw fix PROJ refuses is skipped and said so to the location listeners (with PROJ's reason);
    /// no location, NaN or otherwise, is reported for it, and the fixes after it are reported as before.
    @Test func aNavigationFixPROJRefusesIsSkippedWithAWord() throws {
        final class Listener: RoadSnappedLocationProviderListener, @unchecked Sendable {
            var locations: [RoadSnappedLocation] = []
            var skipped: [(Fix, RoadSnapError)] = []
            func locationProvider(_ provider: RoadSnappedLocationProvider, didUpdate location: RoadSnappedLocation) {
                locations.append(location)
            }
            func locationProvider(_ provider: RoadSnappedLocationProvider, didSkip fix: Fix, error: RoadSnapError) {
                skipped.append((fix, error))
            }
        }
        let network = try TestData.bellevue()
        let track = try TrackReader.read(path: TestData.bellevueDrive)
        let session = try NavigationSession(router: Router(network: network), clock: VirtualClock(start: 0),
                                            listenerQueue: nil)
        let listener = Listener()
        let provider = session.roadSnappedLocationProvider
        provider.add(listener)
        provider.startUpdatingLocation()
        let fixes = Array(track.fixes.prefix(30))
        for f in fixes.prefix(10) { provider.updateLocation(with: f) }
        let before = listener.locations.count
        #expect(before > 0)
        var far = fixes[10]
        far.coordinate = Self.outsideTheFrame(network)
        provider.updateLocation(with: far)
        #expect(listener.locations.count == before)
        #expect(listener.locations.allSatisfy { $0.coordinate.latitude.isFinite && $0.coordinate.longitude.isFinite })
        try #require(listener.skipped.count == 1)
        #expect(listener.skipped[0].0 == far)
        guard case let .projection(message) = listener.skipped[0].1 else {
            Issue.record("expected a projection error, got \(listener.skipped[0].1)")
            return
        }
        #expect(message.contains("outside"), "\(message)")
        for f in fixes[11...] { provider.updateLocation(with: f) }
        #expect(listener.locations.count > before)
        #expect(listener.skipped.count == 1)
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
