import Foundation
import Testing
import RoadSnapCore
@testable import RoadSnapFormats

@Suite struct GPXTrackReaderTests {
    @Test func gpx11GarminTrackHasElevationAndMinuteTimes() throws {
        let path = FixturePaths.fixture("gpx/issue-70.gpx")
        let track = try TrackReader.read(path: path)
        #expect(track.fixes.count == 17)
        #expect(track.skipped.isEmpty)
        #expect(track.segmentStarts == [0])
        #expect(track.name == path)
        let first = try #require(track.fixes.first)
        #expect(first.coordinate.latitude == 45.24443688057394)
        #expect(first.coordinate.longitude == 19.70705632120371)
        #expect(first.altitude == 382)
        // 2010-01-01T01:00:53Z
        #expect(first.time == 1_262_307_653)
        #expect(track.fixes[1].time == 1_262_307_713)
        #expect(track.sourceLines.prefix(2) == [6, 7])
    }

    @Test func gpx10NamespaceIsAccepted() throws {
        let track = try TrackReader.read(path: FixturePaths.fixture("gpx/gpxv1_0.gpx"))
        #expect(track.fixes.count == 14)
        // 2015-02-06T07:36:46Z
        #expect(track.fixes[0].time == 1_423_208_206)
        #expect(track.fixes[0].coordinate.latitude == 51.343657)
        #expect(track.fixes.allSatisfy { $0.altitude == nil && $0.speed == nil })
    }

    @Test func segmentsTracksAndRoutesConcatenateInOrder() throws {
        let gpx = try TrackReader.read(path: FixturePaths.fixture("gpx/newson-krumm-segments-gpx10.gpx"))
        let csv = try TrackReader.read(path: FixturePaths.sample("newson-krumm-bellevue.csv"))
        #expect(gpx.fixes.count == 30)
        #expect(gpx.segmentStarts == [0, 10, 20, 25])
        #expect(gpx.skipped.isEmpty)
        // Same instants whatever the zone notation (Z, .000Z, -08:00), same positions, in file order.
        #expect(gpx.fixes.map(\.time) == csv.fixes.prefix(30).map(\.time))
        #expect(gpx.fixes.map(\.coordinate) == csv.fixes.prefix(30).map(\.coordinate))
        #expect(gpx.fixes[0].course == 196.12 && gpx.fixes[0].speed == 13.503)
        #expect(gpx.fixes.allSatisfy { $0.speed != nil && $0.course != nil })
        #expect(gpx.sourceLines[0] == 5 && gpx.sourceLines[10] == 17)
    }

    @Test func garminExtensionSpeedCourseAndHDOP() throws {
        let gpx = try TrackReader.read(path: FixturePaths.fixture("gpx/newson-krumm-gpx11-garmin.gpx"))
        #expect(gpx.fixes.count == 10)
        #expect(gpx.fixes[0].speed == 13.503 && gpx.fixes[0].course == 196.12)
        #expect(gpx.fixes.allSatisfy { $0.horizontalAccuracy == 1.2 * 4 })
    }

    @Test func issue13HasRepeatedTimestampsKept() throws {
        let track = try TrackReader.read(path: FixturePaths.fixture("gpx/issue-13.gpx"))
        #expect(track.fixes.count == 29)
        #expect(track.fixes[0].time == track.fixes[1].time)
        #expect(track.sourceLines[0] == 8)
    }

    @Test func issue147AndAndorraRead() throws {
        let bellevue = try TrackReader.read(path: FixturePaths.fixture("gpx/issue-147.gpx"))
        #expect(bellevue.fixes.count == 4)
        #expect(bellevue.fixes.allSatisfy { $0.coordinate.longitude < -122 && $0.time != nil })
        let andorra = try TrackReader.read(path: FixturePaths.fixture("gpx/andorra_for_map_matching.gpx"))
        #expect(andorra.fixes.count == 21)
        #expect(andorra.fixes[0].altitude == 1695.5)
        #expect(andorra.fixes.allSatisfy { $0.time == nil })
        #expect(andorra.sourceLines[0] == 14)
    }

    @Test func onlyWaypointsOrRoutePointsAreReportedClearly() {
        // test-only-wpt.gpx holds a <rte> of rtepts, which is a route to follow: it reads as a track.
        let route = try? TrackReader.read(path: FixturePaths.fixture("gpx/malformed/test-only-wpt.gpx"))
        #expect((route?.fixes.count ?? 0) > 0)

        let noTrack = trackError { () throws(RoadSnapError) in
            try TrackReader.read(path: FixturePaths.fixture("gpx/malformed/no_trk.gpx"))
        }
        #expect(noTrack?.description.contains("no tracks found") == true)
        #expect(noTrack?.description.contains("no_trk.gpx") == true)
        for file in ["no_trkpt.gpx", "no_trkseg.gpx"] {
            let error = trackError { () throws(RoadSnapError) in
                try TrackReader.read(path: FixturePaths.fixture("gpx/malformed/" + file))
            }
            #expect(error?.description.contains("no track points found") == true, "\(file)")
            #expect(error?.description.contains(file) == true)
        }
    }

    @Test func waypointOnlyFileSaysNoTracksFound() {
        let gpx = """
            <?xml version="1.0"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="51.377719" lon="12.338217"><name>A</name></wpt>
            <wpt lat="51.37703" lon="12.339166"><name>B</name></wpt>
            </gpx>
            """
        let error = trackError { () throws(RoadSnapError) in
            try TrackReader.read(bytes: Array(gpx.utf8), name: "wpt.gpx", format: nil)
        }
        #expect(error?.description == "wpt.gpx: no tracks found: no <trk> or <rte> (only 2 waypoints)")
    }

    @Test func truncatedXMLNamesFileAndLine() throws {
        let path = FixturePaths.fixture("bad/truncated-issue-70.gpx")
        let error = try #require(trackError { () throws(RoadSnapError) in try TrackReader.read(path: path) })
        #expect(error.description.hasPrefix(path + ":"))
        #expect(error.description.contains("malformed XML"))
        let line = try #require(error.trackLine)
        #expect(line >= 10 && line <= 12)
    }

    @Test func fileCutAfterACompleteLineIsTruncated() throws {
        let lines = try String(contentsOfFile: FixturePaths.fixture("gpx/issue-70.gpx"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let cut = lines.prefix(9).joined(separator: "\n") + "\n"
        let error = try #require(trackError { () throws(RoadSnapError) in
            try TrackReader.read(bytes: Array(cut.utf8), name: "cut.gpx", format: nil)
        })
        #expect(error.description.hasPrefix("cut.gpx:"))
        #expect(error.description.contains("malformed XML"))
        #expect(error.trackLine == 9)
    }

    @Test func unusableTrackPointsAreSkippedWithTheirLines() throws {
        let gpx = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="47.58193333" lon="-122.1122667"><time>2009-01-17T20:45:25Z</time></trkpt>
            <trkpt lat="NaN" lon="-122.1123167"><time>2009-01-17T20:45:26Z</time></trkpt>
            <trkpt lat="47.58168333" lon="-182.11235"><time>2009-01-17T20:45:27Z</time></trkpt>
            <trkpt lat="47.58156667" lon="-122.1124167"><time>17/01/2009</time></trkpt>
            <trkpt lat="47.58143333"><time>2009-01-17T20:45:29Z</time></trkpt>
            <trkpt lat="47.58131667" lon="-122.1125"><ele>high</ele></trkpt>
            <trkpt lat="47.58118333" lon="-122.11255"><time>2009-01-17T20:45:31.250+00:00</time></trkpt>
            </trkseg></trk></gpx>
            """
        let track = try TrackReader.read(bytes: Array(gpx.utf8), name: "bad.gpx", format: .gpx)
        #expect(track.fixes.map(\.time) == [1_232_225_125, 1_232_225_131.25])
        #expect(track.sourceLines == [2, 8])
        #expect(track.skipped.map(\.trackLine) == [3, 4, 5, 6, 7])
        let reasons = track.skipped.map(\.description)
        #expect(reasons[0].hasPrefix("bad.gpx:3: <trkpt>: coordinate (nan, -122.1123167) is not a number"))
        #expect(reasons[1].contains("longitude -182.11235 out of range"))
        #expect(reasons[2].contains("time \"17/01/2009\" is not ISO 8601"))
        #expect(reasons[3].contains("missing lat or lon"))
        #expect(reasons[4].contains("<ele> \"high\" is not a number"))
    }

    /// libxml2 refuses a document over 10 MB handed over in one piece; a long drive's GPX is that big.
    @Test func gpxOverTenMegabytesReads() throws {
        let text = try String(contentsOfFile: FixturePaths.fixture("gpx/issue-70.gpx"), encoding: .utf8)
        let open = try #require(text.range(of: "<trkseg>")), close = try #require(text.range(of: "</trkseg>"))
        let points = text[open.upperBound..<close.lowerBound]
        var big = String(text[..<open.upperBound])
        big.reserveCapacity(11_600_000)
        for _ in 0..<5500 { big += points }
        big += text[close.lowerBound...]
        let bytes = Array(big.utf8)
        #expect(bytes.count > 11_000_000)
        let track = try TrackReader.read(bytes: bytes, name: "long.gpx", format: nil)
        #expect(track.fixes.count == 17 * 5500)
        #expect(track.skipped.isEmpty)
    }

    @Test func notGPXRootIsRejected() {
        let error = trackError { () throws(RoadSnapError) in
            try TrackReader.read(bytes: Array("<kml><Document/></kml>".utf8), name: "x.gpx", format: nil)
        }
        #expect(error?.description.contains("root element is <kml>") == true)
    }
}
