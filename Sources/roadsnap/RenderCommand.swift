import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// `roadsnap render`: a picture of the map view (PNG or SVG) with a route, a track, traffic and my-location.
enum RenderCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let opts = try Options(args, spec: CommandSpecs.render)
        let out = try opts.require("out")
        _ = try PictureOutput.kind(forPath: out) // a bad extension fails before the map loads
        let size = try PictureOutput.size(opts.string("size") ?? "1024x768", flag: "size")
        let scale = try opts.double("scale", default: 1)
        let padding = try opts.string("padding").map { s throws(RoadSnapError) -> EdgeInsets in
            let v = try PictureOutput.numbers(s, flag: "padding", count: 4, form: "TOP,LEFT,BOTTOM,RIGHT in points")
            return try EdgeInsets(top: v[0], left: v[1], bottom: v[2], right: v[3])
        } ?? EdgeInsets(top: 24, left: 24, bottom: 24, right: 24)
        let scheme = try parseScheme(opts.string("style") ?? "light")
        guard let mapType = MapType(rawValue: opts.string("map-type") ?? "normal") else {
            throw RoadSnapError.invalidArgument("--map-type expects normal or none, got '\(opts.string("map-type") ?? "")'")
        }
        let background = try opts.string("background").map { s throws(RoadSnapError) in try RenderColor(hex: s) }
        let traffic = try opts.string("traffic").map { p throws(RoadSnapError) in try TrafficFeedReader.read(path: p) }
        var myLocation: MyLocation?
        if let s = opts.string("my-location") {
            let v = try PictureOutput.numbers(s, flag: "my-location", count: 2, maximum: 3, form: "LAT,LON[,COURSE]")
            myLocation = try MyLocation(coordinate: try GeoCoordinate(latitude: v[0], longitude: v[1]),
                                        course: v.count > 2 ? v[2] : nil)
        }
        var camera: MapCamera?
        if let s = opts.string("camera") {
            let v = try PictureOutput.numbers(s, flag: "camera", count: 3, maximum: 5,
                                              form: "LAT,LON,ZOOM[,BEARING[,TILT]]")
            camera = try MapCamera(target: try GeoCoordinate(latitude: v[0], longitude: v[1]), zoom: v[2],
                                   bearing: v.count > 3 ? v[3] : 0, tilt: v.count > 4 ? v[4] : 0)
        }
        let from = try opts.string("from").map { s throws(RoadSnapError) in try Options.coordinate(s, flag: "from") }
        let to = try opts.string("to").map { s throws(RoadSnapError) in try Options.coordinate(s, flag: "to") }
        guard (from == nil) == (to == nil) else { throw RoadSnapError.invalidArgument("--from and --to go together") }

        let network = try MapLoader.load(path: try opts.require("map"))
        var overlays = MapOverlays()
        if let from, let to {
            let router = Router(network: network, algorithm: RouteCommand.autoAlgorithm(network),
                                prepare: [RoutingOptions()])
            let result = router.route(RouteRequest(origin: Waypoint(coordinate: from),
                                                   destinations: [Waypoint(coordinate: to)]))
            guard let route = result.route else {
                throw RoadSnapError.invalidArgument("no route from --from to --to: \(result.message)")
            }
            overlays.routes.append(try RouteLine(coordinates: route.geometry))
            overlays.markers += [MapMarker(coordinate: from, label: "A"), MapMarker(coordinate: to, label: "B")]
        }
        if let path = opts.string("track") {
            let track = try TrackReader.read(path: path)
            let snapped = try Snapper(network: network).snap(track.fixes)
            for (fix, s) in zip(track.fixes, snapped) {
                overlays.fixes.append(FixMark(raw: fix.coordinate, matched: s?.coordinate))
            }
        }
        if camera == nil {
            var all: [GeoCoordinate] = []
            if let b = overlays.bounds {
                all += [GeoCoordinate(uncheckedLatitude: b.minLatitude, longitude: b.minLongitude),
                        GeoCoordinate(uncheckedLatitude: b.maxLatitude, longitude: b.maxLongitude)]
            } else {
                let b = network.bounds
                all += [GeoCoordinate(uncheckedLatitude: b.minLatitude, longitude: b.minLongitude),
                        GeoCoordinate(uncheckedLatitude: b.maxLatitude, longitude: b.maxLongitude)]
            }
            if let me = myLocation { all.append(me.coordinate) }
            guard let bounds = GeoBoundingBox(covering: all) else {
                throw RoadSnapError.invalidArgument("nothing to show: give --camera")
            }
            camera = try MapCamera.fitting(bounds, width: size.width, height: size.height, padding: padding)
        }
        guard let camera else { return 1 }
        let options = try MapViewOptions(width: size.width, height: size.height, scale: scale, camera: camera,
                                         background: background, mapType: mapType, padding: padding,
                                         colorScheme: scheme, lightingMode: lightingNow(at: camera.target),
                                         traffic: traffic, myLocation: myLocation)
        // Water and buildings of an OSM map (none for GeoJSON or compiled maps), drawn under the roads.
        let areas = mapType == .normal ? try MapAreas.load(path: try opts.require("map")) : nil
        let renderer = try MapRenderer(network: network, areas: areas)
        let t0 = monotonicSeconds()
        try PictureOutput.write(renderer, options, overlays: overlays, to: out)
        writeStderr("wrote \(out): \(Int(size.width * scale))x\(Int(size.height * scale)) px, zoom "
            + "\(format(camera.zoom, 2)), \(renderer.lastVisibleEdgeCount) edges in view, "
            + "\(format((monotonicSeconds() - t0) * 1000, 1)) ms\n")
        return 0
    }

    static func parseScheme(_ s: String) throws(RoadSnapError) -> MapColorScheme {
        guard let v = MapColorScheme(rawValue: s) else {
            throw .invalidArgument("--style expects light, dark or auto, got '\(s)'")
        }
        return v
    }

    /// The lighting the sun suggests now at a place (what `auto` follows without a navigator).
    static func lightingNow(at c: GeoCoordinate) -> LightingMode {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return SolarPosition(time: Double(ts.tv_sec), latitude: c.latitude, longitude: c.longitude)
            .suggestedLightingMode
    }
}
