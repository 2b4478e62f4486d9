// Parsing speed of track and map files (issue 10): the Foundation-free readers (libexpat, simdjson through CShims)
// against the Foundation readers they replaced (FoundationBaseline.swift), in the same process, on the same bytes.
import CShims
import RoadSnapBridge
import RoadSnapCore
import RoadSnapFormats

enum ParseBenchmark {
    /// GPX and GeoJSON texts of the Newson & Krumm Seattle drive (7,531 fixes at 1 Hz, the full `gps_data.txt`),
    /// written as common tools write them; a GeoJSON road network of the Bellevue OSM sample (every edge a
    /// LineString with highway, name, oneway and maxspeed).
    static func inputs() throws -> (gpx: [UInt8], geojson: [UInt8], network: [UInt8], fixes: Int, ways: Int) {
        let drive = try TrackReader.read(path: "/work/shared/data/newson_krumm_2009_seattle/gps_data.txt")
        var gpx = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        gpx += "<gpx version=\"1.1\" creator=\"roadsnap-bench\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        gpx += "  <trk>\n    <name>Newson &amp; Krumm, Seattle</name>\n    <trkseg>\n"
        var coordinates: [String] = [], times: [String] = []
        for fix in drive.fixes {
            let time = fix.time.map(SnapOutput.isoTime) ?? ""
            gpx += "      <trkpt lat=\"\(fix.coordinate.latitude)\" lon=\"\(fix.coordinate.longitude)\">"
            gpx += "<ele>0</ele><time>\(time)</time></trkpt>\n"
            coordinates.append("[\(fix.coordinate.longitude),\(fix.coordinate.latitude)]")
            times.append("\"\(time)\"")
        }
        gpx += "    </trkseg>\n  </trk>\n</gpx>\n"
        let geojson = "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{"
            + "\"name\":\"Newson & Krumm, Seattle\",\"coordTimes\":[\(times.joined(separator: ","))]},"
            + "\"geometry\":{\"type\":\"LineString\",\"coordinates\":[\(coordinates.joined(separator: ","))]}}]}\n"

        let map = try MapLoader.load(path: "Samples/bellevue-issue147.osm.gz")
        var features: [String] = []
        for (e, edge) in map.edges.enumerated() {
            let line = map.geometry(ofEdge: e).map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",")
            var props = "\"highway\":\"\(edge.attributes.roadClass.rawValue)\",\"oneway\":\"\(edge.direction == .both ? "no" : "yes")\""
            if let name = edge.attributes.name { props += ",\"name\":\"\(name.replacingQuotes)\"" }
            if let speed = edge.attributes.maxspeedForward { props += ",\"maxspeed\":\(speed)" }
            features.append("{\"type\":\"Feature\",\"id\":\(e),\"properties\":{\(props)},"
                            + "\"geometry\":{\"type\":\"LineString\",\"coordinates\":[\(line)]}}")
        }
        let network = "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
        return (Array(gpx.utf8), Array(geojson.utf8), Array(network.utf8), drive.fixes.count, map.edges.count)
    }

    static func run(_ args: [String]) throws {
        let input = try inputs()
        // The two paths read the same fixes and roads (checked before timing).
        let gpxNew = try TrackReader.read(bytes: input.gpx, name: "bench.gpx", format: .gpx)
        let gpxOld = FoundationBaseline.gpx(input.gpx)
        let jsonNew = try TrackReader.read(bytes: input.geojson, name: "bench.geojson", format: .geojson)
        let jsonOld = FoundationBaseline.geojsonTrack(input.geojson)
        let waysNew = try GeoJSONNetworkReader.ways(bytes: input.network, name: "bench.geojson")
        let waysOld = FoundationBaseline.networkWays(input.network)
        // Foundation's JSON number parsing is not always correctly rounded (56.327040000000004 reads as 56.32704);
        // simdjson's is, so speeds are compared to 1e-12 relative.
        func same(_ a: RoadWay, _ b: RoadWay) -> Bool {
            var a = a, b = b
            guard abs((a.attributes.maxspeedForward ?? 0) - (b.attributes.maxspeedForward ?? 0))
                <= 1e-12 * abs(a.attributes.maxspeedForward ?? 0) else { return false }
            a.attributes.maxspeedForward = nil; a.attributes.maxspeedBackward = nil
            b.attributes.maxspeedForward = nil; b.attributes.maxspeedBackward = nil
            return a == b
        }
        guard gpxNew.fixes == gpxOld.fixes, jsonNew.fixes == jsonOld.fixes, gpxNew.fixes.count == input.fixes,
              waysNew.count == waysOld.count, zip(waysNew, waysOld).allSatisfy(same), waysNew.count == input.ways
        else {
            if let i = gpxNew.fixes.indices.first(where: { gpxNew.fixes[$0] != gpxOld.fixes[$0] }) {
                print("gpx fix \(i): \(gpxNew.fixes[i]) vs \(gpxOld.fixes[i])")
            }
            if let i = jsonNew.fixes.indices.first(where: { jsonNew.fixes[$0] != jsonOld.fixes[$0] }) {
                print("geojson fix \(i): \(jsonNew.fixes[i]) vs \(jsonOld.fixes[i])")
            }
            if let i = waysNew.indices.first(where: { !same(waysNew[$0], waysOld[$0]) }) {
                print("way \(i): \(waysNew[i]) vs \(waysOld[i])")
            }
            print("parse: the readers disagree (gpx \(gpxNew.fixes.count)/\(gpxOld.fixes.count), geojson "
                  + "\(jsonNew.fixes.count)/\(jsonOld.fixes.count), ways \(waysNew.count)/\(waysOld.count))")
            return
        }
        print("inputs: GPX \(fmt(Double(input.gpx.count) / 1e6, 2, width: 0)) MB and GeoJSON track "
              + "\(fmt(Double(input.geojson.count) / 1e6, 2, width: 0)) MB of \(input.fixes) fixes; GeoJSON network "
              + "\(fmt(Double(input.network.count) / 1e6, 2, width: 0)) MB of \(input.ways) roads")
        print("reader                          MB/s med   MB/s p99  items/s med   ns/item med  ns/item p99   speed-up")
        func row(_ label: String, bytes: Int, items: Int, _ stats: Stats, baseline: Stats? = nil) {
            let mbps = { (nsPerItem: Double) in Double(bytes) / (nsPerItem * Double(items)) * 1e3 }
            let speedup = baseline.map { fmt($0.median / stats.median, 1, width: 9) + "x" } ?? ""
            print(label.padding(30) + fmt(mbps(stats.median), 1, width: 11) + fmt(mbps(stats.p99), 1, width: 11)
                  + fmt(1e9 / stats.median, 0, width: 13) + fmt(stats.median, 1, width: 14) + fmt(stats.p99, 1, width: 13)
                  + speedup)
        }
        let oldGPX = measure(items: input.fixes, minIterations: 30) { _ = FoundationBaseline.gpx(input.gpx) }
        let newGPX = try measure(items: input.fixes, minIterations: 30) {
            _ = try TrackReader.read(bytes: input.gpx, name: "bench.gpx", format: .gpx)
        }
        row("GPX, Foundation XMLParser", bytes: input.gpx.count, items: input.fixes, oldGPX)
        row("GPX, libexpat", bytes: input.gpx.count, items: input.fixes, newGPX, baseline: oldGPX)
        let expatOnly = try measure(items: input.fixes, minIterations: 30) {
            _ = try input.gpx.withUnsafeBytes { raw in Result { () throws(NativeFailure) in try XMLEventList(bytes: raw) } }.get()
        }
        row("  of which C: event list", bytes: input.gpx.count, items: input.fixes, expatOnly)
        let oldJSON = measure(items: input.fixes, minIterations: 30) { _ = FoundationBaseline.geojsonTrack(input.geojson) }
        let newJSON = try measure(items: input.fixes, minIterations: 30) {
            _ = try TrackReader.read(bytes: input.geojson, name: "bench.geojson", format: .geojson)
        }
        row("GeoJSON track, JSONSerializ.", bytes: input.geojson.count, items: input.fixes, oldJSON)
        row("GeoJSON track, simdjson", bytes: input.geojson.count, items: input.fixes, newJSON, baseline: oldJSON)
        let tapeOnly = try measure(items: input.fixes, minIterations: 30) {
            _ = try input.geojson.withUnsafeBytes { raw in Result { () throws(NativeFailure) in try JSONNodes(bytes: raw) } }.get()
        }
        row("  of which C: node tape", bytes: input.geojson.count, items: input.fixes, tapeOnly)
        let oldNet = measure(items: input.ways, minIterations: 30) { _ = FoundationBaseline.networkWays(input.network) }
        let newNet = try measure(items: input.ways, minIterations: 30) {
            _ = try GeoJSONNetworkReader.ways(bytes: input.network, name: "bench.geojson")
        }
        row("network, JSONSerialization", bytes: input.network.count, items: input.ways, oldNet)
        row("network, simdjson", bytes: input.network.count, items: input.ways, newNet, baseline: oldNet)
        let netTape = try measure(items: input.ways, minIterations: 30) {
            _ = try input.network.withUnsafeBytes { raw in Result { () throws(NativeFailure) in try JSONNodes(bytes: raw) } }.get()
        }
        row("  of which C: node tape", bytes: input.network.count, items: input.ways, netTape)
        print("(items are fixes for tracks, roads for the network; whole-file parse to fixes / RoadWays, bytes in memory)")
    }
}

private extension String {
    var replacingQuotes: String { String(map { $0 == "\"" ? "'" : $0 }) }
    func padding(_ n: Int) -> String { count >= n ? self + " " : self + String(repeating: " ", count: n - count) }
}
