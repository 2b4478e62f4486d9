import RoadSnapCore
import RoadSnapFormats

/// Pictures (issue 14): a 1280x720 follow-camera frame of the sample city at zoom 16 drawn into a reused raster
/// canvas (roads culled with the segment index, against drawing every edge in the same process), the same with the
/// RGBA copy a head unit takes, and the full-map picture of the 10x10 Andorra tiling (draw, and draw + PNG).
enum RenderBenchmark {
    static func run(_ args: [String]) throws {
        let network = try MapLoader.load(path: repoPath("Samples/bellevue-issue147.osm.gz"))
        let track = try TrackReader.read(path: repoPath("Samples/newson-krumm-bellevue.csv"))
        let snapped = try Snapper(network: network).snap(track.fixes)
        // Follow positions: the road-snapped fixes with the course from one to the next (every 10th fix).
        var follow: [(GeoCoordinate, Double)] = []
        var i = 0
        while i + 1 < track.fixes.count {
            if let a = snapped[i], let b = snapped[i + 1], a.coordinate != b.coordinate {
                follow.append((a.coordinate, a.coordinate.bearing(to: b.coordinate)))
            }
            i += 10
        }
        let renderer = try MapRenderer(network: network)
        let canvas = try RenderCanvas(kind: .raster, width: 1280, height: 720)
        let base = try MapCamera(target: follow[0].0, zoom: 16)
        func options(_ k: Int, tilt: Double) throws -> MapViewOptions {
            let (c, course) = follow[k % follow.count]
            var camera = try base.following(c, course: course)
            camera.tilt = tilt
            return try MapViewOptions(width: 1280, height: 720, camera: camera,
                                      padding: EdgeInsets(top: 240, left: 0, bottom: 0, right: 0),
                                      myLocation: try MyLocation(coordinate: c, course: course, accuracy: 10))
        }
        let route = try RouteLine(coordinates: snapped.compactMap { $0?.coordinate }, drivenDistance: 2000)
        let overlays = MapOverlays(routes: [route])
        var rgba = [UInt8](repeating: 0, count: 1280 * 720 * 4)
        // `render profile N`: N follow frames (tilt 0, culled) and one full Andorra picture, no timing, for
        // valgrind --tool=callgrind / perf (repeatable instruction counts on a busy machine).
        if let at = args.firstIndex(of: "profile") {
            let rest = Array(args[(at + 1)...])
            let n = rest.first.flatMap { Int($0) } ?? 10
            for k in 0..<n { renderer.draw(try options(k, tilt: 0), overlays: overlays, on: canvas) }
            if !rest.contains("frames") {
                let tiled = try MapLoader.load(path: repoPath("Tests/RoadSnapCoreTests/Fixtures/osm/andorra.osm.pbf"))
                    .tiled(rows: 10, columns: 10)
                let big = try MapRenderer(network: tiled)
                let camera = try MapCamera.fitting(tiled.bounds, width: 2048, height: 2048)
                let bigCanvas = try RenderCanvas(kind: .raster, width: 2048, height: 2048)
                big.draw(try MapViewOptions(width: 2048, height: 2048, camera: camera), overlays: MapOverlays(),
                         on: bigCanvas)
            }
            return
        }
        print("sample city: \(network.edges.count) edges, \(follow.count) follow positions")
        for tilt in [0.0, 45.0] {
            for cull in [true, false] {
                renderer.cullsWithIndex = cull
                var k = 0, edges = 0
                let cpu0 = processCPUSeconds()
                let s = try measure(items: 1, minIterations: 100, minSeconds: 2) {
                    renderer.draw(try options(k, tilt: tilt), overlays: overlays, on: canvas)
                    edges += renderer.lastVisibleEdgeCount
                    k += 1
                }
                print("RENDER_FRAME tilt=\(Int(tilt)) \(cull ? "culled   " : "all-edges") median \(fmt(s.median / 1e6, 2)) ms"
                    + "  p99 \(fmt(s.p99 / 1e6, 2)) ms  CPU \(fmt((processCPUSeconds() - cpu0) * 1000 / Double(max(k, 1)), 2)) ms a frame"
                    + "  (\(edges / max(k, 1)) edges drawn a frame)")
            }
        }
        renderer.cullsWithIndex = true
        var k = 0
        let withCopy = try measure(items: 1, minIterations: 100, minSeconds: 2) {
            renderer.draw(try options(k, tilt: 0), overlays: overlays, on: canvas)
            rgba.withUnsafeMutableBytes { b in _ = try? canvas.rgba(into: b, stride: 1280 * 4) }
            k += 1
        }
        print("RENDER_FRAME_RGBA tilt=0 culled    median \(fmt(withCopy.median / 1e6, 2)) ms  p99 \(fmt(withCopy.p99 / 1e6, 2)) ms")

        let tiled = try MapLoader.load(path: repoPath("Tests/RoadSnapCoreTests/Fixtures/osm/andorra.osm.pbf"))
            .tiled(rows: 10, columns: 10)
        let big = try MapRenderer(network: tiled)
        let camera = try MapCamera.fitting(tiled.bounds, width: 2048, height: 2048)
        let full = try MapViewOptions(width: 2048, height: 2048, camera: camera)
        let bigCanvas = try RenderCanvas(kind: .raster, width: 2048, height: 2048)
        let fullCPU0 = processCPUSeconds()
        var fullRuns = 0
        let draw = measure(items: 1, warmup: 1, minIterations: 3, minSeconds: 0) {
            big.draw(full, overlays: MapOverlays(), on: bigCanvas)
            fullRuns += 1
        }
        let fullCPU = (processCPUSeconds() - fullCPU0) * 1000 / Double(max(fullRuns, 1))
        let png = try measure(items: 1, warmup: 1, minIterations: 3, minSeconds: 0) {
            _ = try big.picture(full, overlays: MapOverlays(), kind: .raster)
        }
        print("RENDER_FULLMAP andorra 10x10 (\(tiled.edges.count) edges) 2048x2048 zoom \(fmt(camera.zoom, 2, width: 0)):"
            + " draw median \(fmt(draw.median / 1e6, 1)) ms p99 \(fmt(draw.p99 / 1e6, 1)) ms (CPU \(fmt(fullCPU, 1)) ms a draw, warm-up included);"
            + " draw+PNG median \(fmt(png.median / 1e6, 1)) ms p99 \(fmt(png.p99 / 1e6, 1)) ms")
    }
}
