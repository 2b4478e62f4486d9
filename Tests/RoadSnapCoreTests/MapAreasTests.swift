import RoadSnapBridge
import RoadSnapCore
import RoadSnapFormats
import Testing

/// The area layer (issue 14): water and buildings of a real OSM extract drawn under the roads.
@Suite struct MapAreasTests {
    @Test func monacoBuildingsAndWaterAreReadAndDrawn() throws {
        let path = TestData.fixture("osm/monaco.osm.pbf")
        let areas = try MapAreas.load(path: path)
        let buildings = areas.kinds.indices.filter { areas.kinds[$0] == .building }
        // `osmium tags-count` counts 23,379 building tags (ways and relations; a few do not assemble) and 9 water.
        #expect(buildings.count > 20_000)
        #expect(areas.kinds.contains(.water))
        // The largest building's outer ring: its centre of the bounding box is inside it for most buildings; take
        // a point well inside instead, the mean of the ring's points, and check its pixel is the building colour
        // on a view centred there with no roads (map type normal on an empty network has only areas).
        var best = 0, bestSize = 0.0
        for i in buildings.prefix(5000) {
            guard let ring = areas.rings(ofArea: i).first, ring.count >= 4 else { continue }
            let lats = ring.map(\.latitude), lons = ring.map(\.longitude)
            let size = ((lats.max() ?? 0) - (lats.min() ?? 0)) * ((lons.max() ?? 0) - (lons.min() ?? 0))
            if size > bestSize { bestSize = size; best = i }
        }
        let ring = try #require(areas.rings(ofArea: best).first)
        let network = try MapLoader.load(path: path)
        let renderer = try MapRenderer(network: network, areas: areas)
        let bare = try MapRenderer(network: network)
        var inside = 0, checked = 0
        for c in ring.prefix(12) {
            // A point a little inside the ring from each vertex, towards the ring's mean.
            let mLat = ring.map(\.latitude).reduce(0, +) / Double(ring.count)
            let mLon = ring.map(\.longitude).reduce(0, +) / Double(ring.count)
            let p = GeoCoordinate(uncheckedLatitude: c.latitude + (mLat - c.latitude) * 0.3,
                                  longitude: c.longitude + (mLon - c.longitude) * 0.3)
            let o = try MapViewOptions(width: 64, height: 64, camera: MapCamera(target: p, zoom: 19),
                                       showsRoadNames: false)
            let px = try MapRendererTests.pixels(renderer, o)
            let none = try MapRendererTests.pixels(bare, o)
            checked += 1
            if px[32, 32] == MapStyle.light.building && none[32, 32] != MapStyle.light.building { inside += 1 }
        }
        // Most points just inside the outline (a concave corner may put a few outside, or a road over it).
        #expect(inside * 2 > checked, "\(inside) of \(checked) points inside the building in its colour")
        // Dark style: the dark building colour.
        let mLat = ring.map(\.latitude).reduce(0, +) / Double(ring.count)
        let mLon = ring.map(\.longitude).reduce(0, +) / Double(ring.count)
        var dark = try MapViewOptions(width: 256, height: 256,
                                      camera: MapCamera(target: GeoCoordinate(uncheckedLatitude: mLat, longitude: mLon),
                                                        zoom: 18), colorScheme: .dark)
        let darkPixels = try MapRendererTests.pixels(renderer, dark)
        var darkBuilding = 0
        for y in 0..<256 { for x in 0..<256 where darkPixels[x, y] == MapStyle.dark.building { darkBuilding += 1 } }
        #expect(darkBuilding > 100)
        // Map type none draws no areas.
        dark.mapType = .none
        let nonePixels = try MapRendererTests.pixels(renderer, dark)
        var noneBuilding = 0
        for y in 0..<256 { for x in 0..<256 where nonePixels[x, y] == MapStyle.dark.building { noneBuilding += 1 } }
        #expect(noneBuilding == 0)
    }

    @Test func geoJSONAndMissingFiles() throws {
        #expect(try MapAreas.load(path: "/nonexistent/network.geojson").count == 0)
        #expect(throws: RoadSnapError.self) { try MapAreas.load(path: "/nonexistent/map.osm.pbf") }
    }
}
