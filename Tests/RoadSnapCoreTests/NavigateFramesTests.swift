import Foundation
import RoadSnapBridge
import RoadSnapCore
import Testing

/// `roadsnap navigate --frames DIR` end to end (issue 14): the real CLI replays the Bellevue drive of the sample
/// and writes head-unit frames; the PNG files are decoded and checked.
@Suite struct NavigateFramesTests {
    @Test func replayWritesHeadUnitFramesInOrder() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = dir.appendingPathComponent("frames")
        let every = 60.0
        let r = try NavigationCommandTests.navigate([
            "--map", TestData.bellevueMap, "--replay", TestData.bellevueDrive, "--replay-speed", "max",
            "--to", "47.5799,-122.1830", "--no-locations",
            "--frames", frames.path, "--frame-size", "480x400", "--frame-every", String(every)])
        #expect(r.status == 0, "\(r.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: frames.path).sorted()
        // The drive lasts 20:45:25 .. 21:08:54 (1409 s): a frame at the start and one every 60 s of fix time
        // (the run ends at the arrival, near the track's end).
        let expected = Int(1409 / every) + 1
        #expect(abs(names.count - expected) <= 2, "\(names.count) frames, expected about \(expected)")
        #expect(names == (1...names.count).map { String(format: "frame-%06d.png", $0) }) // in order, nothing else
        #expect(r.stderr.contains("\(names.count) frames"))
        var previous: Pixels?
        var differing = 0
        for name in names {
            let png = try [UInt8](Data(contentsOf: frames.appendingPathComponent(name)))
            let canvas = try RenderCanvas(png: png)
            #expect(canvas.pixelWidth == 480 && canvas.pixelHeight == 400)
            let px = Pixels(width: 480, height: 400, bytes: try canvas.rgba())
            // The maneuver banner's blue across the top, the footer's white at the bottom.
            #expect(Pixels.distance(px[470, 10], RenderColor(rgba: 0x0B57_D0FF)) < 16, "\(name): no banner")
            #expect(Pixels.distance(px[5, 395], RenderColor(rgba: 0xFFFF_FFFF)) < 16, "\(name): no footer")
            // The car (the my-location dot) on the centre column, between banner and footer.
            var car = false
            for y in 100..<344 where !car { car = (236...244).contains { px[$0, y] == MapStyle.light.location } }
            #expect(car, "\(name): no car")
            if let previous {
                var changed = 0
                for i in stride(from: 0, to: px.bytes.count, by: 4) where px.bytes[i] != previous.bytes[i] { changed += 1 }
                if changed > 480 * 400 / 100 { differing += 1 }
            }
            previous = px
        }
        // The map moves with the car: nearly every frame differs from the one before (a stop at a light may not).
        #expect(differing >= names.count - 3, "only \(differing) of \(names.count) frames differ from the previous")

        let bad = try NavigationCommandTests.navigate([
            "--map", TestData.bellevueMap, "--replay", TestData.bellevueDrive, "--to", "47.5799,-122.1830",
            "--frames", frames.path, "--frame-every", "0"])
        #expect(bad.status != 0 && bad.stderr.contains("--frame-every"))
        let orphan = try NavigationCommandTests.navigate([
            "--map", TestData.bellevueMap, "--replay", TestData.bellevueDrive, "--to", "47.5799,-122.1830",
            "--frame-size", "480x400"])
        #expect(orphan.status != 0 && orphan.stderr.contains("--frames"))
    }
}
