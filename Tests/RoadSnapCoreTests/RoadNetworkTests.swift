import Foundation
import RoadSnapBridge
@testable import RoadSnapCore
import Testing

@Suite struct RoadNetworkTests {
    /// Counts from Debian's osmium-tool: nodes and ways of `tags-filter w/highway w/route=ferry`, and restriction
    /// relations carrying a restriction value.
    static func osmiumCounts(_ path: String) throws -> (nodes: Int, ways: Int, restrictions: Int) {
        let osmium = ["/usr/bin/osmium", "/usr/local/bin/osmium"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let osmium else { throw RoadSnapError.internalError("osmium-tool is not installed (make deps installs it)") }
        let ways = try TestData.run(osmium, ["tags-filter", path, "w/highway", "w/route=ferry", "-f", "opl", "-o", "-"])
        var present = Set<Substring>(), referenced = Set<Substring>(), wayCount = 0
        for line in ways.split(separator: "\n") {
            if line.hasPrefix("n") { present.insert(line.split(separator: " ")[0].dropFirst()) } else if line.hasPrefix("w") {
                // Ways with fewer than two node references cannot be roads; the reader drops them too.
                let refs = line.split(separator: " ").first { $0.hasPrefix("N") }.map { $0.dropFirst().split(separator: ",").map { $0.dropFirst() } } ?? []
                if refs.count >= 2 { wayCount += 1; referenced.formUnion(refs) }
            }
        }
        let nodes = present.intersection(referenced).count
        let rels = try TestData.run(osmium, ["tags-filter", "-R", path, "r/type=restriction", "-f", "opl", "-o", "-"])
        var restrictions = 0
        for line in rels.split(separator: "\n") where line.hasPrefix("r") {
            let tags = line.split(separator: " ").first { $0.hasPrefix("T") } ?? ""
            let keys = tags.dropFirst().split(separator: ",").map { $0.split(separator: "=").first ?? "" }
            if keys.contains("restriction") || keys.contains("restriction:motorcar") { restrictions += 1 }
        }
        return (nodes, wayCount, restrictions)
    }

    @Test(arguments: TestData.osmExtracts)
    func extractCountsMatchOsmium(path: String) throws {
        let extract = try OSMExtract(path: path)
        let expected = try Self.osmiumCounts(path)
        #expect(extract.nodeCount == expected.nodes, "nodes of \(path)")
        #expect(extract.wayCount == expected.ways, "ways of \(path)")
        #expect(extract.restrictions.count == expected.restrictions, "restrictions of \(path)")
    }

    @Test(arguments: TestData.osmExtracts)
    func everyExtractLoadsIntoAConnectedNetwork(path: String) throws {
        let network = try RoadNetwork.load(osmPath: path)
        #expect(network.edges.count > 0)
        #expect(network.nodes.count > 1)
        for e in network.edges {
            #expect(e.shapeCount >= 2)
            #expect(e.length > 0 || e.shapeCount == 2)
            #expect(e.fromNode >= 0 && e.fromNode < network.nodes.count)
        }
        // Every edge endpoint coincides with its graph node.
        for e in network.edges.prefix(500) {
            #expect(network.shape[e.shapeStart] == network.nodes[e.fromNode])
            #expect(network.shape[e.shapeStart + e.shapeCount - 1] == network.nodes[e.toNode])
        }
        // Shape points all lie inside the bounding box.
        #expect(network.shape.allSatisfy { network.bounds.contains($0) })
        // Connected: the largest component (edges joined at shared nodes, direction ignored) holds nearly all road
        // length. An extract cut from a larger map keeps a few pieces whose link to the rest lay outside it.
        var parent = Array(0..<network.nodes.count)
        func root(_ v: Int) -> Int {
            var v = v
            while parent[v] != v { parent[v] = parent[parent[v]]; v = parent[v] }
            return v
        }
        for e in network.edges {
            #expect(e.toNode >= 0 && e.toNode < network.nodes.count)
            let a = root(e.fromNode), b = root(e.toNode)
            if a != b { parent[a] = b }
        }
        var lengthByRoot: [Int: Double] = [:]
        for e in network.edges { lengthByRoot[root(e.fromNode), default: 0] += e.length }
        let total = network.edges.reduce(0) { $0 + $1.length }
        let largest = lengthByRoot.values.max() ?? 0
        #expect(largest / total >= 0.95, "largest component holds \(largest / total) of the road length")
    }

    @Test func bellevueWaysAreSplitAtJunctionsAndKeepWayIDs() throws {
        let network = try TestData.bellevue()
        // A node where two edges of different ways meet is a junction; no edge passes through another's end node.
        var endpointKeys = Set<Int64>()
        for e in network.edges { endpointKeys.insert(network.nodeKeys[e.fromNode]); endpointKeys.insert(network.nodeKeys[e.toNode]) }
        #expect(endpointKeys.count == network.nodes.count)
        let wayIDs = Set(network.edges.compactMap { e -> Int64? in if case let .osmWay(id) = e.sourceID { return id }; return nil })
        #expect(wayIDs.count > 1000)
        // I-90 is a one-way motorway pair: every motorway edge is one-way.
        let motorways = network.edges.filter { $0.attributes.roadClass == .motorway }
        #expect(!motorways.isEmpty)
        #expect(motorways.allSatisfy { $0.direction != .both })
        #expect(network.turnRestrictions.count > 0)
    }

    @Test func tagInterpretation() {
        #expect(OSMTags.speedKmh("50") == 50)
        #expect(OSMTags.speedKmh("30 mph")! > 48.27 && OSMTags.speedKmh("30 mph")! < 48.29)
        #expect(OSMTags.speedKmh("DE:urban") == 50)
        #expect(OSMTags.speedKmh("DE:rural") == 100)
        #expect(OSMTags.speedKmh("none") == nil)
        #expect(OSMTags.speedKmh("fast") == nil)
        #expect(OSMTags.direction(["oneway": "-1"], roadClass: .primary) == .backward)
        #expect(OSMTags.direction([:], roadClass: .motorway) == .forward)
        #expect(OSMTags.direction(["junction": "roundabout"], roadClass: .tertiary) == .forward)
        #expect(OSMTags.direction(["oneway": "no"], roadClass: .motorway) == .both)
        #expect(OSMTags.attributes(["highway": "footway"]) == nil)
        #expect(OSMTags.attributes(["highway": "residential", "access": "no"]) == nil)
        #expect(OSMTags.attributes(["highway": "residential", "access": "no", "motor_vehicle": "yes"]) != nil)
        #expect(OSMTags.attributes(["route": "ferry", "duration": "01:30"])?.0.ferryDuration == 5400)
        #expect(OSMTags.attributes(["highway": "service", "access": "private"])?.0.access == .destination)
    }

    /// The error loading `path` raises, or nil when it loads.
    static func loadError(_ path: String) -> RoadSnapError? {
        switch Result(catching: { () throws(RoadSnapError) -> RoadNetwork in try RoadNetwork.load(osmPath: path) }) {
        case .success: return nil
        case let .failure(e): return e
        }
    }

    @Test func badMapFilesGiveClearErrors() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Missing file: the message names it.
        let missing = dir.appendingPathComponent("missing.osm.pbf").path
        let e1 = Self.loadError(missing)
        #expect(e1.map { "\($0)".contains(missing) } == true)
        if case .unreadableFile = e1 {} else { Issue.record("missing file gave \(String(describing: e1))") }
        // Truncated PBF.
        let pbf = try Data(contentsOf: URL(fileURLWithPath: TestData.fixture("osm/monaco.osm.pbf")))
        let truncated = dir.appendingPathComponent("truncated.osm.pbf")
        try pbf.prefix(pbf.count / 3).write(to: truncated)
        let e2 = Self.loadError(truncated.path)
        if case let .invalidMap(path, _) = e2 { #expect(path == truncated.path) } else {
            Issue.record("truncated PBF gave \(String(describing: e2))")
        }
        // Not an OSM file at all.
        let text = dir.appendingPathComponent("notes.osm")
        try Data("these are not map data\n".utf8).write(to: text)
        let e3 = Self.loadError(text.path)
        if case .invalidMap = e3 {} else { Issue.record("text file gave \(String(describing: e3))") }
        // A valid OSM file with no drivable roads (a footway only).
        let foot = dir.appendingPathComponent("footway.osm")
        try Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <osm version="0.6" generator="hand">
          <node id="1" lat="47.0" lon="8.0" version="1"/>
          <node id="2" lat="47.001" lon="8.0" version="1"/>
          <way id="10" version="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="footway"/></way>
        </osm>
        """.utf8).write(to: foot)
        #expect(Self.loadError(foot.path) == .noDrivableRoads(path: foot.path))
        // Unknown extension.
        let e5 = Self.loadError(dir.appendingPathComponent("x.shp").path)
        if case .invalidMap = e5 {} else { Issue.record("unknown format gave \(String(describing: e5))") }
    }
}

@Suite struct CarTrainTests {
    @Test func shuttleTrainTagsMakeATrainFerry() throws {
        let train = try #require(OSMTags.attributes(["route": "shuttle_train", "motorcar": "yes", "duration": "00:35"]))
        #expect(train.0.roadClass == .ferry && train.0.isTrain && train.0.ferryDuration == 2100)
        #expect(OSMTags.attributes(["route": "shuttle_train", "motorcar": "no"]) == nil)
        let boat = try #require(OSMTags.attributes(["route": "ferry"]))
        #expect(boat.0.isFerry && !boat.0.isTrain)
        #expect(OSMTags.attributes(["highway": "primary", "route": "shuttle_train"])?.0.isTrain == false)
    }

    /// A hand-drawn OSM file: a road, a car train and a road, read through libosmium.
    @Test func shuttleTrainWaysAreRead() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("shuttle.osm")
        try Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <osm version="0.6" generator="hand">
          <node id="1" lat="51.090" lon="1.150" version="1"/>
          <node id="2" lat="51.095" lon="1.160" version="1"/>
          <node id="3" lat="50.930" lon="1.810" version="1"/>
          <node id="4" lat="50.925" lon="1.820" version="1"/>
          <way id="10" version="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="primary"/></way>
          <way id="11" version="1"><nd ref="2"/><nd ref="3"/><tag k="route" v="shuttle_train"/>
            <tag k="motorcar" v="yes"/><tag k="duration" v="00:35"/><tag k="name" v="Le Shuttle"/></way>
          <way id="12" version="1"><nd ref="3"/><nd ref="4"/><tag k="highway" v="primary"/></way>
        </osm>
        """.utf8).write(to: file)
        let network = try RoadNetwork.load(osmPath: file.path)
        let trains = network.edges.filter { $0.attributes.isTrain }
        #expect(network.edges.count == 3)
        #expect(trains.count == 1 && trains.first?.sourceID == .osmWay(11))
        #expect(trains.first?.attributes.ferryDuration == 2100)
    }
}

@Suite struct OSMFormatTests {
    /// The same extract as `.osm.gz`, plain `.osm`, `.osm.bz2` and `.osm.pbf` (converted by osmium-tool) loads to
    /// the same network.
    @Test func everySupportedEncodingLoadsTheSameNetwork() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestData.fixture("osm/issue-70.osm.gz")
        let plain = dir.appendingPathComponent("novi-sad.osm").path
        let bz2 = dir.appendingPathComponent("novi-sad.osm.bz2").path
        let pbf = dir.appendingPathComponent("novi-sad.osm.pbf").path
        _ = try TestData.run("/usr/bin/osmium", ["cat", source, "-o", plain])
        _ = try TestData.run("/usr/bin/osmium", ["cat", source, "-o", bz2])
        _ = try TestData.run("/usr/bin/osmium", ["cat", source, "-o", pbf])
        let reference = try RoadNetwork.load(osmPath: source)
        for path in [plain, bz2, pbf] {
            let n = try RoadNetwork.load(osmPath: path)
            #expect(n.edges.count == reference.edges.count, "\(path)")
            #expect(n.nodes.count == reference.nodes.count, "\(path)")
            #expect(abs(n.edges.reduce(0) { $0 + $1.length } - reference.edges.reduce(0) { $0 + $1.length }) < 1e-6)
        }
    }
}

@Suite struct TurnRestrictionResolutionTests {
    /// A junction V (node 100): way 1 passes through it west to east, way 2 ends at it from the south, way 3 starts at
    /// it going north.
    static func junction(_ restrictions: [WayTurnRestriction]) throws -> RoadNetwork {
        func c(_ lat: Double, _ lon: Double) -> GeoCoordinate { GeoCoordinate(uncheckedLatitude: lat, longitude: lon) }
        let attrs = RoadAttributes(roadClass: .residential)
        let ways = [
            RoadWay(sourceID: .osmWay(1), coordinates: [c(47, 7.999), c(47, 8), c(47, 8.001)], nodeKeys: [1, 100, 2],
                    direction: .both, attributes: attrs),
            RoadWay(sourceID: .osmWay(2), coordinates: [c(46.999, 8), c(47, 8)], nodeKeys: [3, 100], direction: .both,
                    attributes: attrs),
            RoadWay(sourceID: .osmWay(3), coordinates: [c(47, 8), c(47.001, 8)], nodeKeys: [100, 4], direction: .both,
                    attributes: attrs),
        ]
        return try RoadNetwork(ways: ways, restrictions: restrictions, sourceName: "junction")
    }

    @Test func restrictionsBetweenWaysEndingAtTheViaNodeResolveToOneEdgePair() throws {
        let n = try Self.junction([WayTurnRestriction(fromWay: 2, viaNodeKey: 100, toWay: 3, restriction: "no_straight_on")])
        #expect(n.turnRestrictions.count == 1)
        let r = try #require(n.turnRestrictions.first)
        #expect(n.edges[r.fromEdge].sourceID == .osmWay(2) && n.edges[r.toEdge].sourceID == .osmWay(3))
        #expect(r.kind == .prohibitive && n.nodeKeys[r.viaNode] == 100)
        // The graph forbids exactly that turn: arriving on way 2 at V, way 3 is closed, way 1 both ways open.
        let inArc = n.edges[r.fromEdge].toNode == r.viaNode ? 2 * r.fromEdge : 2 * r.fromEdge + 1
        let outArcs = n.graph.outArcs[Int(n.graph.outStart[r.viaNode])..<Int(n.graph.outStart[r.viaNode + 1])].map { Int($0) }
        let allowed = outArcs.filter { n.graph.isTurnAllowed(from: inArc, to: $0) }.map { n.edges[$0 >> 1].sourceID }
        #expect(allowed.filter { $0 == .osmWay(1) }.count == 2)
        #expect(!allowed.contains(.osmWay(3)))
    }

    @Test func ambiguousWaysThroughTheViaNodeNeverForbidALegalTurn() throws {
        // From a way that passes through V: which half is meant is unknown, so nothing is forbidden.
        #expect(try Self.junction([WayTurnRestriction(fromWay: 1, viaNodeKey: 100, toWay: 3, restriction: "no_left_turn")])
            .turnRestrictions.isEmpty)
        // A no_* onto a way passing through V is dropped too.
        #expect(try Self.junction([WayTurnRestriction(fromWay: 2, viaNodeKey: 100, toWay: 1, restriction: "no_left_turn")])
            .turnRestrictions.isEmpty)
        // An only_* onto a way passing through V allows both of its halves.
        let only = try Self.junction([WayTurnRestriction(fromWay: 2, viaNodeKey: 100, toWay: 1, restriction: "only_left_turn")])
        #expect(only.turnRestrictions.count == 2)
        #expect(only.turnRestrictions.allSatisfy { $0.kind == .mandatory && only.edges[$0.toEdge].sourceID == .osmWay(1) })
    }
}
