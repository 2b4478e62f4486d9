import Foundation
import Testing
import RoadSnapCore
@testable import RoadSnapFormats

@Suite struct TrackFormatTests {
    @Test func extensionDecides() {
        #expect(TrackFormat.detect(path: "a/b/drive.GPX", content: []) == .gpx)
        #expect(TrackFormat.detect(path: "x.nmea", content: []) == .nmea)
        #expect(TrackFormat.detect(path: "x.tsv", content: []) == .csv)
        #expect(TrackFormat.detect(path: "x.geojson", content: []) == .geojson)
        #expect(TrackFormat.detect(path: "x.json", content: Array("[]".utf8)) == .geojson)
    }

    @Test func contentDecidesOtherwise() throws {
        func sniff(_ s: String) -> TrackFormat? { TrackFormat.detect(path: "-", content: Array(s.utf8)) }
        #expect(sniff("\u{FEFF}  <?xml version=\"1.0\"?><gpx/>") == .gpx)
        #expect(sniff("\n{\"type\":\"FeatureCollection\"}") == .geojson)
        #expect(sniff("$GPGGA,1*00") == .nmea)
        #expect(sniff("2024-07-15T13:09:48.683+0000    $IIRMC,130900,A*0A") == .nmea)
        #expect(sniff("time;lat;lon\n") == .csv)
        #expect(sniff("just words") == nil)
        #expect(sniff("   ") == nil)
        for file in ["gpsd-bu353-glonass.log"] {
            let bytes = Array(try String(contentsOfFile: FixturePaths.fixture("nmea/" + file), encoding: .utf8).utf8)
            #expect(TrackFormat.detect(path: file, content: bytes) == .nmea)
        }
    }

    @Test func unknownFormatNamesTheFile() {
        let error = trackError { () throws(RoadSnapError) in
            try TrackReader.read(bytes: Array("just words".utf8), name: "notes.txt", format: nil)
        }
        #expect(error?.description.hasPrefix("notes.txt:1: unrecognised track format") == true)
    }
}
