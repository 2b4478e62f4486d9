import Foundation
import RoadSnapCore
import RoadSnapFormats
import Testing

/// `match --format html`: the page's content, and the page opened in a real browser (headless Chromium, Debian
/// `chromium`, installed by `make deps`) whose screenshot shows the sub-match colour where the sub-match is.
@Suite(.serialized) struct MatchReportTests {
    /// The first 400 fixes of the sample drive matched on the sample map (and a fix far off the map, unmatched).
    static func sample() throws -> (MatchResult, Track, RoadNetwork) {
        let network = try MapLoader.load(path: TestData.bellevueMap)
        let full = try TrackReader.read(path: TestData.bellevueDrive)
        var fixes = Array(full.fixes.prefix(400))
        fixes.append(Fix(coordinate: GeoCoordinate(uncheckedLatitude: 47.7, longitude: -122.0),
                         time: (fixes.last?.time ?? 0) + 1))
        let track = Track(name: "bellevue <first 400>", fixes: fixes)
        return (try MapMatcher(network: network).match(track), track, network)
    }

    @Test func thePageIsSelfContainedWithTheTables() throws {
        let (result, track, network) = try Self.sample()
        let html = MatchReport.html(result, track: track, network: network)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("src=\"data:image/png;base64,iVBORw0KGgo")) // the PNG signature in base64
        #expect(!html.contains("http://") && !html.contains("https://")) // nothing fetched
        #expect(html.contains("bellevue &lt;first 400&gt;")) // the name escaped
        #expect(html.components(separatedBy: "<tr><td>").count - 1
            == result.subMatches.count + (track.fixes.count - result.matchedCount))
        #expect(html.contains("<td>400</td><td>")) // the unmatched fix far away is listed
        #expect(MatchReport.base64(Array("any carnal pleas".utf8)) == "YW55IGNhcm5hbCBwbGVhcw==")
        #expect(MatchReport.base64(Array("any carnal pleasu".utf8)) == "YW55IGNhcm5hbCBwbGVhc3U=")
    }

    @Test func chromiumShowsTheRouteColourWhereTheRouteIs() throws {
        let chromium = "/usr/bin/chromium"
        guard FileManager.default.isExecutableFile(atPath: chromium) else {
            Issue.record("headless Chromium is needed at \(chromium): run `make deps` (Debian package chromium)")
            return
        }
        let (result, track, network) = try Self.sample()
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("report.html"), shot = dir.appendingPathComponent("shot.png")
        try MatchReport.html(result, track: track, network: network).write(to: page, atomically: true, encoding: .utf8)
        let r = try TestData.execute("/usr/bin/timeout", [
            "90", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--force-device-scale-factor=1", "--window-size=960,760", "--user-data-dir=\(dir.path)/profile",
            "--screenshot=\(shot.path)", page.absoluteString,
        ])
        #expect(r.status == 0, "chromium failed: \(r.err.suffix(500))")
        let canvas = try RenderCanvas(png: Array(try Data(contentsOf: shot)))
        #expect(canvas.pixelWidth == 960 && canvas.pixelHeight == 760)
        let px = Pixels(width: canvas.pixelWidth, height: canvas.pixelHeight, bytes: try canvas.rgba())
        // The longest sub-match: its colour near the picture point of a coordinate in the middle of its geometry.
        let sub = try #require(result.subMatches.max { $0.geometry.count < $1.geometry.count })
        let (options, _) = try MatchReport.view(result, track: track)
        let projection = MapProjection(options)
        let want = MatchReport.color(confidence: sub.confidence)
        var hits = 0
        for c in sub.geometry.dropFirst(sub.geometry.count / 4).prefix(sub.geometry.count / 2) {
            guard let p = projection.point(c) else { continue }
            var found = false
            for dy in -2...2 { for dx in -2...2 {
                let x = Int(p.x) + dx, y = Int(p.y) + dy
                if x >= 0, y >= 0, x < 960, y < 640, Pixels.distance(px[x, y], want) <= 12 { found = true }
            } }
            if found { hits += 1 }
        }
        #expect(hits >= sub.geometry.count / 4, "route colour found at \(hits) of \(sub.geometry.count / 2) points")
        // Not blank: the picture's background and roads, and dark text under the picture.
        var colours = Set<UInt32>(), dark = 0
        for y in stride(from: 0, to: 640, by: 4) { for x in stride(from: 0, to: 960, by: 4) { colours.insert(px[x, y].rgba) } }
        for y in 650..<760 { for x in 0..<960 where px[x, y].red < 100 && px[x, y].green < 100 { dark += 1 } }
        #expect(colours.count > 20)
        #expect(px[3, 3] == MapStyle.light.background)
        #expect(dark > 200)
    }
}
