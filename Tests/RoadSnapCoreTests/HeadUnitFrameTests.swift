import RoadSnapCore
import Testing

@Suite struct HeadUnitFrameTests {
    @Test func distancesAndTimesAreRoundedAsNavigationUIsSayThem() {
        let d = HeadUnitGuidance.spokenDistance
        #expect(d(42) == "40 m" && d(47.6) == "50 m" && d(123) == "120 m" && d(437) == "450 m")
        #expect(d(960) == "1.0 km" && d(1549) == "1.5 km" && d(12_600) == "13 km")
        let t = HeadUnitGuidance.spokenDuration
        #expect(t(10) == "< 1 min" && t(61) == "2 min" && t(3900) == "1 h 05 min")
        #expect(HeadUnitGuidance.clock(8 * 3600 + 5 * 60 + 31) == "08:06")
        #expect(HeadUnitGuidance.clock(25 * 3600) == "01:00")
    }

    @Test func aFrameHasTheBannerTheCarAndTheFooter() throws {
        let network = try MapRendererTests.oneRoad()
        let renderer = try MapRenderer(network: network)
        let here = MapProjectionTests.target
        let base = try MapViewOptions(width: 480, height: 400, camera: MapCamera(target: here, zoom: 17))
        let lanes = [Lane(directions: [LaneDirection(shape: .normalLeft, isRecommended: true)]),
                     Lane(directions: [LaneDirection(shape: .straight, isRecommended: false)])]
        let guidance = try HeadUnitGuidance(maneuver: .turnLeft, distanceToManeuver: 230, roadName: "Main Street",
                                            lanes: lanes, remainingTime: 600, remainingDistance: 5400,
                                            arrivalTimeOfDay: 8 * 3600)
        let canvas = try RenderCanvas(kind: .raster, width: 480, height: 400)
        try HeadUnitFrame.draw(renderer: renderer, options: base, location: here, course: 90, guidance: guidance,
                               on: canvas)
        let px = Pixels(width: 480, height: 400, bytes: try canvas.rgba())
        // The banner's blue at its right end, the footer's white at its left end.
        #expect(Pixels.distance(px[470, 10], RenderColor(rgba: 0x0B57_D0FF)) < 16)
        #expect(Pixels.distance(px[5, 395], RenderColor(rgba: 0xFFFF_FFFF)) < 16)
        // The car where the padded camera puts it, heading-up: course 90 means the road (east-west) runs up.
        let o = try HeadUnitFrame.mapOptions(base, location: here, course: 90, hasLanes: true)
        let car = try #require(MapProjection(o).point(here))
        #expect(px[car] == MapStyle.light.location)
        #expect(car.y > 200) // the car sits low, with the road ahead above it
        #expect(px[Int(car.x), Int(car.y) - 60] == MapStyle.light.minor) // the road ahead, drawn upwards
        #expect(px[Int(car.x) + 60, Int(car.y)] == MapStyle.light.background)
        #expect(throws: RoadSnapError.self) {
            try HeadUnitGuidance(maneuver: .straight, distanceToManeuver: .nan, roadName: "", remainingTime: 1,
                                 remainingDistance: 1)
        }
    }
}
