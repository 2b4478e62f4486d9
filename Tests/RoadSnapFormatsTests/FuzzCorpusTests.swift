import Foundation
import RoadSnapBridge
import RoadSnapCore
@testable import RoadSnapFormats
import Testing

/// Every input kept in `Fuzz/corpus/` (the fuzz targets' seeds and any crasher the fuzzers found, issue 16) is read
/// again here, without instrumentation, through the same parser the target drives: each must be read or refused
/// with a `RoadSnapError`, never crash. `make fuzz` explores from these; this keeps them checked on every `make test`.
@Suite struct FuzzCorpusTests {
    static let corpus = FixturePaths.testsDirectory + "/../../Fuzz/corpus"

    static func inputs(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
        let dir = corpus + "/" + target
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        return try names.map { ($0, try FileIO.read(path: dir + "/" + $0)) }
    }

    @Test(arguments: [("gpx", TrackFormat.gpx), ("nmea", .nmea), ("csv", .csv), ("geojson-track", .geojson)])
    func tracksAreReadOrRefused(target: String, format: TrackFormat) throws {
        let files = try Self.inputs(target)
        #expect(!files.isEmpty)
        var read = 0
        for (name, bytes) in files {
            do {
                let track = try TrackReader.read(bytes: bytes, name: name, format: format)
                // Every time a reader keeps can be written (issue 16: a time of 1e19 s trapped in the CSV output).
                for fix in track.fixes { if let t = fix.time { #expect(!TrackTime.iso8601(t).isEmpty, "\(name)") } }
                read += 1
            } catch {
                #expect("\(error)".contains(name), "\(name): \(error)")
            }
        }
        #expect(read > 0, "no seed of \(target) is a readable track")
    }

    @Test func networksAreReadOrRefused() throws {
        for (name, bytes) in try Self.inputs("geojson-network") {
            do { _ = try GeoJSONNetworkReader.read(bytes: bytes, name: name) } catch {
                #expect("\(error)".contains(name), "\(name): \(error)")
            }
        }
    }

    @Test(arguments: ["osm-xml", "osm-pbf"])
    func osmFilesAreReadOrRefused(target: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("roadsnap-fuzz-corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, bytes) in try Self.inputs(target) {
            let path = dir.appendingPathComponent(name + (target == "osm-xml" ? ".osm" : ".osm.pbf")).path
            try AtomicFile.write(bytes, to: path)
            do { _ = try RoadNetwork.load(osmPath: path) } catch {
                #expect("\(error)".contains(path), "\(name): \(error)")
            }
        }
    }

    @Test func trafficFeedsAreReadOrRefused() throws {
        for (name, bytes) in try Self.inputs("traffic") {
            do { _ = try TrafficFeedReader.parse(String(decoding: bytes, as: UTF8.self), name: name) } catch {
                #expect("\(error)".contains(name), "\(name): \(error)")
            }
        }
    }

    @Test(arguments: ["rsmap", "rsmap-repaired"])
    func compiledMapsAreOpenedOrRefused(target: String) throws {
        for (name, bytes) in try Self.inputs(target) where !bytes.isEmpty {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 64)
            defer { raw.deallocate() }
            bytes.withUnsafeBytes { raw.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            do { _ = try CompiledMap.open(bytes: raw, size: bytes.count, name: name) } catch {
                #expect("\(error)".contains(name), "\(name): \(error)")
            }
        }
    }
}

/// OSM bytes written as a map file in a fresh folder and loaded, for the shim's refusal tests.
enum OSMScratchFile {
    /// Writes `bytes` as `map` + `suffix` (gzipped first when `suffix` is ".osm.gz"), loads it, removes the folder.
    static func load(_ bytes: [UInt8], suffix: String) throws -> (path: String, result: Result<RoadNetwork, Error>) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("roadsnap-osm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("map" + suffix).path
        if suffix == ".osm.gz" {
            try AtomicFile.write(bytes, to: path + ".plain")
            let gzip = Process()
            gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
            gzip.arguments = ["-c", "gzip -c '\(path).plain' > '\(path)'"]
            try gzip.run()
            gzip.waitUntilExit()
        } else {
            try AtomicFile.write(bytes, to: path)
        }
        return (path, Result { try RoadNetwork.load(osmPath: path) })
    }

    /// The error text of a map that must be refused (recorded as an issue when it loads); it must name the file.
    static func refusal(_ bytes: [UInt8], suffix: String, of what: String) throws -> String {
        let (path, result) = try load(bytes, suffix: suffix)
        guard case .failure(let error) = result else {
            Issue.record("loaded \(what)")
            return ""
        }
        #expect("\(error)".contains(path), "\(error)")
        return "\(error)"
    }
}

/// The `osm-pbf` target's crasher (issue 16, session 6): a BlobHeader whose type string sits in field 9 instead of 1.
/// libosmium took the missing type as an empty one and compared it through a null pointer (UBSan trap; in a plain
/// build it read the blob as the header). The shim now checks the PBF framing first and refuses such files by name.
@Suite struct PBFFramingTests {
    static let seed = FuzzCorpusTests.corpus + "/osm-pbf/issue-70-three-ways.osm.pbf"

    func load(_ bytes: [UInt8]) throws -> (path: String, result: Result<RoadNetwork, Error>) {
        try OSMScratchFile.load(bytes, suffix: ".osm.pbf")
    }

    func refusal(_ bytes: [UInt8]) throws -> String {
        try OSMScratchFile.refusal(bytes, suffix: ".osm.pbf", of: "a malformed PBF file")
    }

    @Test func theSeedLoads() throws {
        let network = try load(try FileIO.read(path: Self.seed)).result.get()
        #expect(network.edges.count > 0)
    }

    @Test func aBlobHeaderWithoutItsTypeIsRefused() throws {
        let crasher = try FileIO.read(path: FuzzCorpusTests.corpus + "/osm-pbf/crash-blob-type-field-9-150f3376")
        #expect(try refusal(crasher).contains("PBF blob 0 at byte 0: blob type is not OSMHeader"))
    }

    @Test func framingFaultsAreNamed() throws {
        let seed = try FileIO.read(path: Self.seed)
        // The seed's first blob: 4-byte length, BlobHeader, data. Cut inside the second blob's data.
        let headerLength = Int(seed[0]) << 24 | Int(seed[1]) << 16 | Int(seed[2]) << 8 | Int(seed[3])
        #expect(headerLength > 0 && headerLength < 64)
        #expect(try refusal(Array(seed.dropLast(10))).contains("past the end of the file"))
        #expect(try refusal(Array(seed.prefix(2))).contains("truncated blob header length"))
        #expect(try refusal(Array(seed.prefix(4 + headerLength / 2))).contains("truncated blob header"))
        var huge = seed
        huge[0] = 0x01  // a header length of 16 MiB and more
        #expect(try refusal(huge).contains("is not within 1..65536"))
        #expect(try refusal([]).contains("truncated blob header length"))
    }
}

/// The `osm-pbf` target's descriptor check (issue 16, session 7): a well-framed header blob whose one byte of data is
/// not a valid blob. libosmium's PBF parser owns the descriptor its reader opened and closed it only after a
/// successful parse, so every malformed PBF file left one open (a million fuzz inputs ran the process out of them).
/// The shim's parser closes it when libosmium's throws, for the road reader and the area reader alike.
@Suite struct PBFDescriptorTests {
    static let crasher = FuzzCorpusTests.corpus + "/osm-pbf/leak-fd-header-blob-data-39dc42eb"

    /// Descriptors of this process open on `path` (a deleted file's link reads "path (deleted)").
    func descriptors(on path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { fd in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? "").hasPrefix(path)
        }
    }

    func malformedFile() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("roadsnap-pbf-fd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("map.osm.pbf").path
        try AtomicFile.write(try FileIO.read(path: Self.crasher), to: path)
        return (dir, path)
    }

    @Test func aMalformedFileIsRefusedAndClosedByTheRoadReader() throws {
        let (dir, path) = try malformedFile()
        defer { try? FileManager.default.removeItem(at: dir) }
        for _ in 0..<3 {
            #expect {
                _ = try RoadNetwork.load(osmPath: path)
            } throws: { error in
                "\(error)".contains(path) && "\(error)".contains("not a readable OSM file")
            }
        }
        #expect(try descriptors(on: path) == [])
    }

    @Test func aMalformedFileIsRefusedAndClosedByTheAreaReader() throws {
        let (dir, path) = try malformedFile()
        defer { try? FileManager.default.removeItem(at: dir) }
        for _ in 0..<3 {
            #expect {
                _ = try OSMAreaArrays(osmPath: path)
            } throws: { error in
                "\(error)".contains(path) && "\(error)".contains("reading areas")
            }
        }
        #expect(try descriptors(on: path) == [])
    }

    @Test func aWellFormedFileIsClosedToo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("roadsnap-pbf-fd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("map.osm.pbf").path
        try AtomicFile.write(try FileIO.read(path: PBFFramingTests.seed), to: path)
        #expect(try RoadNetwork.load(osmPath: path).edges.count > 0)
        #expect(try descriptors(on: path) == [])
    }
}

/// The `osm-xml` target's crasher (issue 16, session 7): a node with `lat="45.24E38032"`. libosmium scales a
/// coordinate's digits by its exponent in a 64-bit integer before checking its range, so a large exponent overflowed
/// (a UBSan trap; in a plain build, a wrong coordinate kept). The shim checks the coordinates of an XML file first
/// and refuses one of 1e9 or more by attribute, value and line, whatever the file's compression.
@Suite struct XMLCoordinateTests {
    static let crasher = FuzzCorpusTests.corpus + "/osm-xml/crash-coordinate-exponent-545ed221.osm"
    static let seed = FuzzCorpusTests.corpus + "/osm-xml/issue-70-three-ways.osm"

    func load(_ text: String, suffix: String = ".osm") throws -> (path: String, result: Result<RoadNetwork, Error>) {
        try OSMScratchFile.load(Array(text.utf8), suffix: suffix)
    }

    func refusal(_ text: String, suffix: String = ".osm") throws -> String {
        try OSMScratchFile.refusal(Array(text.utf8), suffix: suffix, of: "a map with an out-of-range coordinate")
    }

    @Test func theCrasherIsRefusedByItsCoordinate() throws {
        let text = String(decoding: try FileIO.read(path: Self.crasher), as: UTF8.self)
        #expect(try refusal(text).contains("coordinate lat=\"45.24E38032\" of <node> at line"))
    }

    @Test func hugeExponentsAreRefusedInEveryCoordinateAttribute() throws {
        let seed = String(decoding: try FileIO.read(path: Self.seed), as: UTF8.self)
        #expect(try load(seed).result.get().edges.count > 0)
        #expect(try load(seed, suffix: ".osm.gz").result.get().edges.count > 0)
        guard let lat = seed.range(of: #" lat=""#) else {
            Issue.record("the seed has no lat attribute")
            return
        }
        // The first node's latitude, then the same with a character reference for the E (expat decodes it).
        let end = seed[lat.upperBound...].firstIndex(of: "\"") ?? lat.upperBound
        for value in ["4.5E19", "-4.5e99999", "4.5&#69;30"] {
            let text = seed.replacingCharacters(in: lat.upperBound..<end, with: value)
            #expect(try refusal(text).contains("is out of range"), "\(value)")
            #expect(try refusal(text, suffix: ".osm.gz").contains("is out of range"), "\(value) gzipped")
        }
        // Values libosmium refuses or reads without overflow are left to it: a small exponent still loads.
        let small = seed.replacingCharacters(in: lat.upperBound..<end, with: String(seed[lat.upperBound..<end]) + "E0")
        #expect(try load(small).result.get().edges.count > 0)
        let bounds = #"<bounds minlat="1e12" minlon="0" maxlat="1" maxlon="1"/>"#
        let withBounds = seed.replacingOccurrences(of: "<node ", with: bounds + "<node ", options: [], range: seed.range(of: "<node "))
        #expect(try refusal(withBounds).contains("coordinate minlat=\"1e12\" of <bounds>"))
    }
}

/// The `geojson-network` target timed out (issue 16) on roads 150 km and 2,700 km long: the index's cell cache ran
/// one STRtree query per cell of the whole grid (2.8 M cells here, nearly all empty; 2.25 s in a debug build, far
/// more under ASan). Cells are now filled along each segment (cost: the cells near roads): the cache still answers
/// every query exactly as the brute-force search does, on and beside the long roads.
@Suite struct LongRoadIndexTests {
    @Test func aLongDiagonalRoadFillsOnlyTheCellsAlongIt() throws {
        let path = FuzzCorpusTests.corpus + "/geojson-network/timeout-150km-and-2700km-roads-e57576f3.geojson"
        let network = try GeoJSONNetworkReader.read(bytes: try FileIO.read(path: path), name: path)
        let index = network.index, query = try SegmentQuery(index: index)
        // 2,850 km of road, cells of a few hundred metres grown by the 50 m cache radius on each side: each road
        // crosses at most ~3 cells per cell length it covers; the grid has millions of cells.
        let roadKm = network.edges.reduce(0) { $0 + $1.length } / 1000
        #expect(roadKm > 2800)
        #expect(index.cachedCellCount > 0 && index.cachedCellCount < 60_000, "\(index.cachedCellCount) cells")
        var checked = 0
        for e in network.edges.indices {
            let g = Array(network.localGeometry(ofEdge: e))
            for (a, b) in zip(g, g.dropFirst()) {
                for (t, dx) in zip(stride(from: 0.0, through: 1, by: 0.01), [-30.0, 0, 45, 20, -48].cycled(101)) {
                    let q = LocalPoint(x: a.x + (b.x - a.x) * t + dx, y: a.y + (b.y - a.y) * t - dx)
                    #expect(try query.candidates(near: q, radius: 50) == query.candidates(near: q, radius: 50, method: .bruteForce))
                    checked += 1
                }
            }
        }
        #expect(checked > 1000)
    }
}

private extension Array {
    /// The elements repeated until `count` long.
    func cycled(_ count: Int) -> [Element] { (0..<count).map { self[$0 % self.count] } }
}
