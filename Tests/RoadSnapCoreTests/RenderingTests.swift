import Foundation
import RoadSnapCore
import RoadSnapFormats
import Testing

/// Pixels of an RGBA picture.
struct Pixels {
    let width: Int, height: Int, bytes: [UInt8]

    subscript(x: Int, y: Int) -> RenderColor {
        let i = (y * width + x) * 4
        return RenderColor(red: bytes[i], green: bytes[i + 1], blue: bytes[i + 2], alpha: bytes[i + 3])
    }

    subscript(_ p: (x: Double, y: Double)) -> RenderColor { self[Int(p.x), Int(p.y)] }

    /// Largest difference of one channel between two colours.
    static func distance(_ a: RenderColor, _ b: RenderColor) -> Int {
        max(abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)),
            abs(Int(a.alpha) - Int(b.alpha)))
    }
}

@Suite struct MapProjectionTests {
    static let target = GeoCoordinate(uncheckedLatitude: 47.6, longitude: -122.15)

    static func options(zoom: Double = 16, bearing: Double = 0, tilt: Double = 0,
                        padding: EdgeInsets = .zero) throws -> MapViewOptions
    {
        try MapViewOptions(width: 400, height: 300,
                           camera: MapCamera(target: target, zoom: zoom, bearing: bearing, tilt: tilt),
                           padding: padding)
    }

    @Test func theTargetLandsOnTheCentreOfThePaddedArea() throws {
        let p = MapProjection(try Self.options(padding: EdgeInsets(top: 100, left: 40, bottom: 0, right: 0)))
        let c = try #require(p.point(Self.target))
        #expect(abs(c.x - 220) < 1e-9)
        #expect(abs(c.y - 200) < 1e-9)
    }

    @Test func aKnownCoordinateLandsOnTheExpectedPixel() throws {
        // At zoom 16 the world is 256·2^16 points wide: 0.01° of longitude is 0.01/360 of it east of the target.
        let east = GeoCoordinate(uncheckedLatitude: 47.6, longitude: -122.14)
        let dx = 0.01 / 360 * 256 * 65536
        let flat = try #require(MapProjection(try Self.options()).point(east))
        #expect(abs(flat.x - (200 + dx)) < 1e-6)
        #expect(abs(flat.y - 150) < 1e-6)
        // Bearing 90: east is up.
        let turned = try #require(MapProjection(try Self.options(bearing: 90)).point(east))
        #expect(abs(turned.x - 200) < 1e-6)
        #expect(abs(turned.y - (150 - dx)) < 1e-6)
        // A point due north at zoom 16: y from the Mercator formula.
        let north = GeoCoordinate(uncheckedLatitude: 47.601, longitude: -122.15)
        let merc = { (lat: Double) in log(tan(.pi / 4 + lat * .pi / 360)) }
        let dy = (merc(47.601) - merc(47.6)) / (2 * .pi) * 256 * 65536
        let n = try #require(MapProjection(try Self.options()).point(north))
        #expect(abs(n.y - (150 - dy)) < 1e-6)
    }

    @Test func tiltShrinksWhatLiesAheadAndInvertsExactly() throws {
        let p = MapProjection(try Self.options(tilt: 45))
        let ahead = GeoCoordinate(uncheckedLatitude: 47.601, longitude: -122.149)
        let behind = GeoCoordinate(uncheckedLatitude: 47.599, longitude: -122.149)
        let a = try #require(p.point(ahead)), b = try #require(p.point(behind))
        #expect(150 - a.y < b.y - 150) // ahead is foreshortened more than behind
        #expect(a.x - 200 < b.x - 200) // and narrower
        for q in [a, b] {
            let back = try #require(p.coordinate(x: q.x, y: q.y))
            let original = q.y < 150 ? ahead : behind
            #expect(back.distance(to: original) < 0.01)
        }
    }

    @Test func fitBoundsPutsTheCornersInsideThePaddedArea() throws {
        let bounds = GeoBoundingBox(minLatitude: 47.57, minLongitude: -122.18, maxLatitude: 47.59, maxLongitude: -122.10)
        let padding = try EdgeInsets(top: 50, left: 20, bottom: 10, right: 30)
        let camera = try MapCamera.fitting(bounds, width: 400, height: 300, padding: padding)
        let p = MapProjection(try MapViewOptions(width: 400, height: 300, camera: camera, padding: padding))
        let sw = try #require(p.point(GeoCoordinate(uncheckedLatitude: 47.57, longitude: -122.18)))
        let ne = try #require(p.point(GeoCoordinate(uncheckedLatitude: 47.59, longitude: -122.10)))
        #expect(sw.x >= 20 - 1e-6 && ne.x <= 370 + 1e-6 && ne.y >= 50 - 1e-6 && sw.y <= 290 + 1e-6)
        // The wider side touches the padding (as large as fits).
        #expect(abs(sw.x - 20) < 1e-6 || abs(ne.y - 50) < 1e-6)
    }

    @Test func scrollZoomAndFollowMoveTheCameraAsTheGuideHasThem() throws {
        let o = try Self.options(bearing: 30)
        let scrolled = try o.camera.scrolled(byX: 50, y: -20)
        // What was 50 points right and 20 up is now at the centre.
        let before = try #require(MapProjection(o).coordinate(x: 250, y: 130))
        #expect(before.distance(to: scrolled.target) < 0.01)
        #expect(try o.camera.zoomedIn().zoom == 17)
        #expect(try o.camera.zoomedOut(by: 2).zoom == 14)
        let follow = try o.camera.following(Self.target, course: 271)
        #expect(follow.bearing == 271 && follow.target == Self.target)
        #expect(try o.camera.following(Self.target, course: nil).bearing == 30)
    }

    @Test func badValuesAreClearErrors() throws {
        let t = Self.target
        #expect(throws: RoadSnapError.self) { try MapCamera(target: t, zoom: .nan) }
        #expect(throws: RoadSnapError.self) { try MapCamera(target: t, zoom: 12, bearing: .infinity) }
        #expect(throws: RoadSnapError.self) { try MapCamera(target: t, zoom: 12, tilt: 80) }
        let camera = try MapCamera(target: t, zoom: 12)
        for (w, h) in [(0.0, 100.0), (100, 0), (16385, 10), (10, 20000), (.nan, 10)] {
            #expect(throws: RoadSnapError.self) { try MapViewOptions(width: w, height: h, camera: camera) }
        }
        #expect(throws: RoadSnapError.self) { try MapViewOptions(width: 100, height: 100, scale: 0, camera: camera) }
        #expect(throws: RoadSnapError.self) {
            try MapViewOptions(width: 100, height: 100, camera: camera, padding: EdgeInsets(top: 60, bottom: 60))
        }
        for bad in ["#12345G", "red", "#1234", ""] {
            #expect(throws: RoadSnapError.invalidArgument(
                "unknown colour '\(bad)': give #RRGGBB or #RRGGBBAA in hexadecimal")) { try RenderColor(hex: bad) }
        }
        #expect(try RenderColor(hex: "#1a2B3c").rgba == 0x1A2B_3CFF)
        #expect(try RenderColor(hex: "1a2b3c80").description == "#1a2b3c80")
    }
}

@Suite struct MapRendererTests {
    /// One residential road running west to east through the target, and nothing else.
    static func oneRoad() throws -> RoadNetwork {
        func c(_ lat: Double, _ lon: Double) -> GeoCoordinate { GeoCoordinate(uncheckedLatitude: lat, longitude: lon) }
        let way = RoadWay(sourceID: .osmWay(1), coordinates: [c(47.6, -122.16), c(47.6, -122.14)], nodeKeys: [1, 2],
                          direction: .both, attributes: RoadAttributes(roadClass: .residential))
        return try RoadNetwork(ways: [way], sourceName: "one road")
    }

    static func pixels(_ renderer: MapRenderer, _ o: MapViewOptions, _ overlays: MapOverlays = MapOverlays()) throws
        -> Pixels
    {
        Pixels(width: Int(o.width * o.scale), height: Int(o.height * o.scale),
               bytes: try renderer.rgba(o, overlays: overlays))
    }

    static func options(scheme: MapColorScheme = .light, lighting: LightingMode = .normal, mapType: MapType = .normal,
                        background: RenderColor? = nil, scale: Double = 1) throws -> MapViewOptions
    {
        try MapViewOptions(width: 200, height: 100, scale: scale,
                           camera: MapCamera(target: MapProjectionTests.target, zoom: 16), background: background,
                           mapType: mapType, colorScheme: scheme, lightingMode: lighting)
    }

    @Test func aRoadIsDrawnWhereTheNetworkHasItAndNotElsewhere() throws {
        let renderer = try MapRenderer(network: try Self.oneRoad())
        let px = try Self.pixels(renderer, try Self.options())
        #expect(px[100, 50] == MapStyle.light.minor) // on the road (the residential fill)
        #expect(px[20, 50] == MapStyle.light.minor)
        for y in [10, 30, 40, 60, 70, 90] { #expect(px[100, y] == MapStyle.light.background, "row \(y)") }
    }

    @Test func colourSchemeAndMapTypeAreVisibleInPixels() throws {
        let renderer = try MapRenderer(network: try Self.oneRoad())
        let dark = try Self.pixels(renderer, try Self.options(scheme: .dark))
        #expect(dark[100, 10] == MapStyle.dark.background)
        #expect(dark[100, 50] == MapStyle.dark.minor)
        let autoNight = try Self.pixels(renderer, try Self.options(scheme: .auto, lighting: .lowLight))
        #expect(autoNight[100, 10] == MapStyle.dark.background)
        let autoDay = try Self.pixels(renderer, try Self.options(scheme: .auto, lighting: .normal))
        #expect(autoDay[100, 10] == MapStyle.light.background)
        let none = try Self.pixels(renderer, try Self.options(mapType: .none))
        #expect(none[100, 50] == MapStyle.light.background) // no road drawn
        let custom = try RenderColor(hex: "#204060")
        let bg = try Self.pixels(renderer, try Self.options(mapType: .none, background: custom))
        #expect(bg[5, 5] == custom && bg[100, 50] == custom)
        let retina = try Self.pixels(renderer, try Self.options(scale: 2))
        #expect(retina.width == 400 && retina[200, 100] == MapStyle.light.minor && retina[200, 20] != MapStyle.light.minor)
    }

    @Test func overlaysLandOnTheirCoordinates() throws {
        let renderer = try MapRenderer(network: nil)
        let o = try Self.options(mapType: .none)
        let p = MapProjection(o)
        let west = GeoCoordinate(uncheckedLatitude: 47.6, longitude: -122.152)
        let east = GeoCoordinate(uncheckedLatitude: 47.6, longitude: -122.148)
        let route = try RouteLine(coordinates: [west, east], drivenDistance: west.distance(to: east) / 2)
        let fixNorth = GeoCoordinate(uncheckedLatitude: 47.6003, longitude: -122.1505)
        let overlays = MapOverlays(routes: [route], fixes: [FixMark(raw: fixNorth, matched: nil)])
        let px = try Self.pixels(renderer, o, overlays)
        let w = try #require(p.point(GeoCoordinate(uncheckedLatitude: 47.6, longitude: -122.1515)))
        let e = try #require(p.point(GeoCoordinate(uncheckedLatitude: 47.6, longitude: -122.1485)))
        #expect(px[w] == MapStyle.light.driven) // the driven half is grey
        #expect(px[e] == MapStyle.light.route) // the rest in the route colour
        #expect(px[try #require(p.point(fixNorth))] == MapStyle.light.rawFix)
        #expect(px[100, 10] == MapStyle.light.background)
    }

    @Test func myLocationShowsDotAndAccuracyCircle() throws {
        let renderer = try MapRenderer(network: nil)
        var o = try Self.options(mapType: .none)
        let here = MapProjectionTests.target
        o.myLocation = try MyLocation(coordinate: here, course: 90, accuracy: 40)
        let px = try Self.pixels(renderer, o)
        #expect(px[100, 50] == MapStyle.light.location)
        let r = 40 / MapProjection(o).metresPerPoint // points
        // Inside the accuracy circle but away from the dot and the arrow: the tinted fill.
        let inside = px[100, 50 + Int(r * 0.7)]
        #expect(inside != MapStyle.light.background && Pixels.distance(inside, MapStyle.light.background) < 80)
        #expect(px[100, min(99, 50 + Int(r + 4))] == MapStyle.light.background || 50 + Int(r + 4) > 99)
        // The course arrow points east (bearing 0): a location-coloured pixel ~14 points right of the dot.
        #expect(Pixels.distance(px[114, 50], MapStyle.light.location) < 40)
        #expect(px[86, 50] != MapStyle.light.location)
    }

    @Test func onlyEdgesNearTheViewAreQueriedAndEveryVisibleOneIs() throws {
        let network = try MapLoader.load(path: TestData.bellevueMap)
        let renderer = try MapRenderer(network: network)
        let o = try MapViewOptions(width: 640, height: 360,
                                   camera: MapCamera(target: GeoCoordinate(uncheckedLatitude: 47.58, longitude: -122.14),
                                                     zoom: 17))
        _ = try renderer.rgba(o)
        #expect(renderer.lastVisibleEdgeCount > 10)
        #expect(renderer.lastVisibleEdgeCount < network.edges.count / 4)
        // Every edge with a shape point inside the view was among those drawn: drawing with the map type none and
        // then normal changes exactly the pixels of roads; a road point inside the view is not background.
        let p = MapProjection(o)
        let px = Pixels(width: 640, height: 360, bytes: try renderer.rgba(o))
        var checked = 0
        for e in 0..<network.edges.count {
            for c in network.geometry(ofEdge: e) {
                guard let q = p.point(c), q.x >= 2, q.y >= 2, q.x < 638, q.y < 358 else { continue }
                if px[q] == MapStyle.light.background { Issue.record("edge \(e) point \(c) not drawn"); return }
                checked += 1
            }
        }
        #expect(checked > 50)
    }

    @Test func svgAndPNGFilesAreWrittenAtomicallyAndBadPathsFail() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let renderer = try MapRenderer(network: try Self.oneRoad())
        let o = try Self.options()
        let png = dir.appendingPathComponent("a.png").path, svg = dir.appendingPathComponent("a.svg").path
        try PictureOutput.write(renderer, o, overlays: MapOverlays(), to: png)
        try PictureOutput.write(renderer, o, overlays: MapOverlays(), to: svg)
        let pngBytes = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(Array(pngBytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let svgText = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(svgText.contains("<svg") && svgText.contains("</svg>"))
        #expect(throws: RoadSnapError.self) {
            try PictureOutput.write(renderer, o, overlays: MapOverlays(), to: dir.appendingPathComponent("a.jpg").path)
        }
        #expect(throws: RoadSnapError.self) {
            try PictureOutput.write(renderer, o, overlays: MapOverlays(), to: png + "/inside-a-file.png")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["a.png", "a.svg"]) // no temporary left behind
    }
}
