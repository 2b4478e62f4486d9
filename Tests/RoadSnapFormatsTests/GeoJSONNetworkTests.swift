import Foundation
import RoadSnapCore
import RoadSnapFormats
import Testing

@Suite struct GeoJSONNetworkTests {
    /// The Kubicka track 00000046 network as `kubicka.py convert` writes it: one one-way LineString per arc, id = arc.
    @Test func kubickaNetworkKeepsArcIDsAndDirections() throws {
        let path = FixturePaths.fixture("networks/kubicka-00000046.geojson")
        let network = try MapLoader.load(path: path)
        let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let features = doc?["features"] as? [[String: Any]] ?? []
        #expect(features.count == 649)
        // Every arc is one two-point segment, so one edge per feature, with the feature id as source id.
        #expect(network.edges.count == features.count)
        let ids = Set(network.edges.map(\.sourceID))
        #expect(ids == Set((0..<features.count).map { EdgeSourceID.number(Int64($0)) }))
        #expect(network.edges.allSatisfy { $0.direction == .forward })
        // Two-way roads are two opposite arcs that share their end nodes.
        let pairs = Set(network.edges.map { [$0.fromNode, $0.toNode] })
        let twoWay = network.edges.filter { pairs.contains([$0.toNode, $0.fromNode]) }.count
        #expect(twoWay > 100)
    }

    @Test func propertiesAndStringIDsAreRead() throws {
        let json = """
        {"type":"FeatureCollection","features":[
          {"type":"Feature","id":"main-1","properties":{"name":"Main Street","oneway":"yes","maxspeed":"30 mph","highway":"primary"},
           "geometry":{"type":"LineString","coordinates":[[8.0,47.0],[8.001,47.0],[8.002,47.0]]}},
          {"type":"Feature","properties":{"id":42,"oneway":false,"maxspeed":50},
           "geometry":{"type":"LineString","coordinates":[[8.001,47.0],[8.001,47.001]]}},
          {"type":"Feature","properties":{"oneway":"-1"},
           "geometry":{"type":"MultiLineString","coordinates":[[[8.002,47.0],[8.002,47.001]],[[8.003,47.0],[8.003,47.001]]]}},
          {"type":"Feature","id":"poi","properties":{},"geometry":{"type":"Point","coordinates":[8.0,47.0]}}
        ]}
        """
        let network = try GeoJSONNetworkReader.read(bytes: Array(json.utf8), name: "hand.geojson")
        // "main-1" is split at the vertex the second feature joins: two edges keep the string id.
        let main = network.edges.filter { $0.sourceID == .string("main-1") }
        #expect(main.count == 2)
        #expect(main.allSatisfy { $0.direction == .forward && $0.attributes.name == "Main Street" })
        #expect(main.allSatisfy { abs(($0.attributes.maxspeedForward ?? 0) - 48.28) < 0.01 })
        #expect(main.allSatisfy { $0.attributes.roadClass == .primary })
        let side = network.edges.filter { $0.sourceID == .number(42) }
        #expect(side.count == 1 && side[0].direction == .both && side[0].attributes.maxspeedForward == 50)
        // A feature without an id gets its index; a MultiLineString gives one edge per part.
        let multi = network.edges.filter { $0.sourceID == .number(2) }
        #expect(multi.count == 2 && multi.allSatisfy { $0.direction == .backward })
        #expect(network.edges.count == 5)
        // Lengths are metric: 0.001° of longitude at 47° N is ~76 m.
        #expect(abs(main[0].length - 75.99) < 0.3)
    }

    @Test func badNetworksGiveErrorsNamingTheFile() {
        func error(_ text: String) -> RoadSnapError? {
            do { _ = try GeoJSONNetworkReader.read(bytes: Array(text.utf8), name: "bad.geojson"); return nil } catch { return error }
        }
        if case let .invalidMap(path, _) = error("{not json") { #expect(path == "bad.geojson") } else { Issue.record("bad JSON accepted") }
        #expect(error(#"{"type":"FeatureCollection","features":[]}"#) == .noDrivableRoads(path: "bad.geojson"))
        if case .invalidMap = error(#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"LineString","coordinates":[[8,95],[8,47]]}}]}"#) {} else {
            Issue.record("out-of-range coordinate accepted")
        }
        if case .unreadableFile = Result(catching: { () throws(RoadSnapError) in try GeoJSONNetworkReader.read(path: "/nonexistent/x.geojson") }).failureValue {} else {
            Issue.record("missing file accepted")
        }
    }
}

extension Result {
    var failureValue: Failure? { if case let .failure(e) = self { return e } else { return nil } }
}

@Suite struct TimeFormattingTests {
    /// Formatting agrees with Foundation's ISO 8601 formatter, and parsing it back gives the same instant.
    @Test func iso8601MatchesFoundationAndRoundTrips() {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        // Fixed instants (epoch, the sample drive, a leap day, year 2100, before 1970) and a deterministic sweep.
        for t in [0.0, 1_232_224_725, 951_782_400, 4_107_542_399, -86_400] + stride(from: -2_000_000_000.0, to: 4e9, by: 2_999_983.0) {
            #expect(SnapOutput.isoTime(t) == f.string(from: Date(timeIntervalSince1970: t)))
        }
        #expect(SnapOutput.isoTime(1_232_224_725.25) == "2009-01-17T20:38:45.250Z")
        #expect(SnapOutput.isoTime(1_232_224_725) == "2009-01-17T20:38:45Z")
    }
}
