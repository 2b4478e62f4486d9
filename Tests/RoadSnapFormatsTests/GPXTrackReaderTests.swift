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

    @Test func notGPXRootIsRejected() {
        let error = trackError { () throws(RoadSnapError) in
            try TrackReader.read(bytes: Array("<kml><Document/></kml>".utf8), name: "x.gpx", format: nil)
        }
        #expect(error?.description.contains("root element is <kml>") == true)
    }
}
