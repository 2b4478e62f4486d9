import Dispatch
import RoadSnapBridge
@testable import RoadSnapCore
import Testing

@Suite struct GeodesyTests {
    @Test func projectionRoundTripIsUnderOneMillimetre() throws {
        let frame = try LocalFrame(centerLatitude: 47.5757, centerLongitude: -122.133)
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let lat = 47.5757 + Double.random(in: -0.2...0.2, using: &rng)
            let lon = -122.133 + Double.random(in: -0.3...0.3, using: &rng)
            let p = try frame.project(latitude: lat, longitude: lon)
            let back = frame.inverse(p)
            let error = Geodesic.inverse(latitude1: lat, longitude1: lon, latitude2: back.latitude,
                                         longitude2: back.longitude).distance
            #expect(error < 0.001)
        }
        // The frame is metric: 1 km north of the centre is ~1 km in y.
        let north = Geodesic.direct(latitude: 47.5757, longitude: -122.133, azimuth: 0, distance: 1000)
        let p = try frame.project(latitude: north.latitude, longitude: north.longitude)
        #expect(abs(p.y - 1000) < 0.01)
        #expect(abs(p.x) < 0.01)
    }

    /// The frame converts degrees to radians itself and calls PROJ's tmerc directly; PROJ's pipeline (unitconvert,
    /// then tmerc) is the slow obvious reference. Same bits both ways, near the centre and up to 30 degrees from it,
    /// and the same refusals (a point 90 degrees away, a latitude past the pole).
    @Test func frameGivesThePipelinesBits() throws {
        var rng = SeededGenerator(seed: 23)
        for centre in [(47.6101, -122.2015), (42.5063, 1.5218), (-33.86785, 151.20732), (64.1466, -21.9426)] {
            let frame = try LocalFrame(centerLatitude: centre.0, centerLongitude: centre.1)
            let pipeline = try LocalFrame.reference(centerLatitude: centre.0, centerLongitude: centre.1)
            var lat: [Double] = [], lon: [Double] = []
            for k in 0..<30_000 {
                let spread = [0.05, 1.0, 30.0][k % 3]
                lat.append(max(-89.9, min(89.9, centre.0 + Double.random(in: -spread...spread, using: &rng))))
                lon.append(centre.1 + Double.random(in: -spread...spread, using: &rng))
            }
            var x: [Double] = [], y: [Double] = [], rx: [Double] = [], ry: [Double] = []
            try frame.forward(latitudes: lat, longitudes: lon, x: &x, y: &y)
            try pipeline.forward(latitudes: lat, longitudes: lon, x: &rx, y: &ry)
            #expect(x.map(\.bitPattern) == rx.map(\.bitPattern))
            #expect(y.map(\.bitPattern) == ry.map(\.bitPattern))
            var same = 0
            for i in stride(from: 0, to: lat.count, by: 7) {
                let p = try frame.project(latitude: lat[i], longitude: lon[i])
                #expect(p.x.bitPattern == x[i].bitPattern && p.y.bitPattern == y[i].bitPattern)
                let a = frame.inverse(p), b = pipeline.inverse(p)
                if a.latitude.bitPattern == b.latitude.bitPattern && a.longitude.bitPattern == b.longitude.bitPattern {
                    same += 1
                }
            }
            #expect(same == (lat.count + 6) / 7)
            for bad in [(0.0, centre.1 - 90), (91.0, centre.1)] {
                #expect(throws: NativeFailure.self) { try frame.project(latitude: bad.0, longitude: bad.1) }
                #expect(throws: NativeFailure.self) { try pipeline.project(latitude: bad.0, longitude: bad.1) }
            }
        }
    }

    @Test func clonedFrameAgrees() throws {
        let frame = try LocalFrame(centerLatitude: 43.73, centerLongitude: 7.42)
        let copy = try frame.clone()
        let a = try frame.project(latitude: 43.74, longitude: 7.43), b = try copy.project(latitude: 43.74, longitude: 7.43)
        #expect(a == b)
    }

    /// A frame given up is kept as a spare and handed out again for the same centre (rsc_frame_destroy): after a
    /// refused point in its old life it starts clean, and it gives the same bits as a frame made afresh (made while
    /// the spare is taken) and as a clone of that one. The centre is this test's own, so no other test's frames
    /// share it.
    @Test func aFrameMadeAgainForTheSameCentreGivesTheSameBits() throws {
        let centre = (latitude: -33.86785, longitude: 151.20732)
        var rng = SeededGenerator(seed: 11)
        let points = (0..<500).map { _ in
            (centre.latitude + Double.random(in: -0.5...0.5, using: &rng),
             centre.longitude + Double.random(in: -0.5...0.5, using: &rng))
        }
        func run(_ frame: LocalFrame) throws -> [UInt64] {
            try points.flatMap { p -> [UInt64] in
                let q = try frame.project(latitude: p.0, longitude: p.1)
                let back = frame.inverse(q)
                return [q.x.bitPattern, q.y.bitPattern, back.latitude.bitPattern, back.longitude.bitPattern]
            }
        }
        let expected: [UInt64]
        do {
            let first = try LocalFrame(centerLatitude: centre.latitude, centerLongitude: centre.longitude)
            expected = try run(first)
            // A point on the equator 90 degrees west is refused: the frame's context ends in a failed state.
            #expect(throws: NativeFailure.self) { try first.project(latitude: 0, longitude: centre.longitude - 90) }
        }
        let again = try LocalFrame(centerLatitude: centre.latitude, centerLongitude: centre.longitude)
        let fresh = try LocalFrame(centerLatitude: centre.latitude, centerLongitude: centre.longitude)
        let copy = try fresh.clone()
        #expect(try run(again) == expected)
        #expect(try run(fresh) == expected)
        #expect(try run(copy) == expected)
        // A refused point still names itself in a frame handed out again.
        #expect {
            try again.project(latitude: 0, longitude: centre.longitude - 90)
        } throws: { error in
            guard let failure = error as? NativeFailure else { return false }
            return failure.kind == .projection && failure.message.contains("point 0")
                && failure.message.contains("outside")
        }
    }

    /// Threads making and giving up frames of two centres at once, through the spares (a mutex in CShims/frame.c):
    /// every frame, new or a spare, projects each centre's test point to the same bits as a frame made alone.
    /// Run under TSan too (`make sanitize-tsan TSAN_FILTER=GeodesyTests`).
    @Test func framesMadeAndGivenUpOnManyThreadsAgree() throws {
        let centres = [(latitude: 35.6812, longitude: 139.7671), (latitude: 35.6895, longitude: 139.6917)]
        let point = (latitude: 35.70, longitude: 139.75)
        let expected = try centres.map { c -> [UInt64] in
            let f = try LocalFrame(centerLatitude: c.latitude, centerLongitude: c.longitude)
            let q = try f.project(latitude: point.latitude, longitude: point.longitude)
            return [q.x.bitPattern, q.y.bitPattern]
        }
        let threads = 4, rounds = 50
        let results = RoadSnapBridge.Locked([[UInt64]?](repeating: nil, count: threads * rounds))
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for r in 0..<rounds {
                let c = centres[(t + r) % centres.count]
                let bits = try? { () throws -> [UInt64] in
                    let f = try LocalFrame(centerLatitude: c.latitude, centerLongitude: c.longitude)
                    let q = try f.project(latitude: point.latitude, longitude: point.longitude)
                    return [q.x.bitPattern, q.y.bitPattern]
                }()
                results.withLock { $0[t * rounds + r] = bits }
            }
        }
        let all = results.withLock { $0 }
        for t in 0..<threads {
            for r in 0..<rounds {
                #expect(all[t * rounds + r] == expected[(t + r) % centres.count], "thread \(t), round \(r)")
            }
        }
    }

    @Test func invalidFrameCentreThrows() {
        #expect(throws: NativeFailure.self) { try LocalFrame(centerLatitude: 95, centerLongitude: 0) }
    }

    /// Vincenty (1975) / Geoscience Australia worked example: Flinders Peak to Buninyong, 54,972.271 m,
    /// azimuth 306°52′05.37″.
    @Test func geodesicMatchesPublishedFlindersPeakToBuninyong() {
        let lat1 = -(37 + 57 / 60.0 + 3.72030 / 3600), lon1 = 144 + 25 / 60.0 + 29.52440 / 3600
        let lat2 = -(37 + 39 / 60.0 + 10.15610 / 3600), lon2 = 143 + 55 / 60.0 + 35.38390 / 3600
        let g = Geodesic.inverse(latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2)
        #expect(abs(g.distance - 54972.271) < 0.001)
        #expect(abs(g.initialAzimuth - (306 + 52 / 60.0 + 5.37 / 3600)) < 0.5 / 3600)
    }

    /// WGS84 facts: one degree of longitude on the equator is a·π/180 = 111,319.4908 m; the meridian quadrant
    /// (equator to pole) is 10,001,965.729 m.
    @Test func geodesicMatchesWGS84Constants() {
        let degree = Geodesic.inverse(latitude1: 0, longitude1: 0, latitude2: 0, longitude2: 1).distance
        #expect(abs(degree - 111_319.4908) < 0.001)
        let quadrant = Geodesic.inverse(latitude1: 0, longitude1: 0, latitude2: 90, longitude2: 0).distance
        #expect(abs(quadrant - 10_001_965.729) < 0.001)
        let back = Geodesic.direct(latitude: 0, longitude: 0, azimuth: 90, distance: 111_319.4908)
        #expect(abs(back.longitude - 1) < 1e-8)
    }
}
