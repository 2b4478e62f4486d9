import Foundation
import Synchronization
import RoadSnapBridge
@testable import RoadSnapCore
import RoadSnapFormats
import Testing

/// Compiled maps (`.rsmap`): a compiled map gives the same network and the same snap, match and route results as its
/// source, and a damaged file gives a clear error (or, where the damage touches no checksummed byte, the same
/// results) - never a crash.
@Suite struct CompiledMapTests {
    /// Compiles `network` into `dir` and opens it again.
    static func roundTrip(_ network: RoadNetwork, source: String?, in dir: URL, name: String,
                          routing: Bool = true) throws -> (RoadNetwork, String)
    {
        let path = dir.appendingPathComponent(name + ".rsmap").path
        try CompiledMap.compile(network, to: path, sourcePath: source, routing: routing)
        return (try CompiledMap.open(path: path), path)
    }

    /// Every array and value of the two networks is the same.
    static func expectSameNetwork(_ a: RoadNetwork, _ b: RoadNetwork) {
        #expect(Array(a.nodes) == Array(b.nodes))
        #expect(Array(a.nodeKeys) == Array(b.nodeKeys))
        #expect(Array(a.shape) == Array(b.shape))
        #expect(Array(a.localShape) == Array(b.localShape))
        #expect(Array(a.edges) == Array(b.edges))
        #expect(a.edges.map(\.attributes) == b.edges.map(\.attributes))
        #expect(a.edges.map(\.sourceID) == b.edges.map(\.sourceID))
        #expect(Array(a.turnRestrictions) == Array(b.turnRestrictions))
        #expect(a.nodes.indices.map { a.exitNumbers[$0] } == b.nodes.indices.map { b.exitNumbers[$0] })
        #expect(a.bounds == b.bounds && a.frameCenter == b.frameCenter)
        let g = a.graph, h = b.graph
        #expect(Array(g.outStart) == Array(h.outStart) && Array(g.outArcs) == Array(h.outArcs))
        #expect(Array(g.inStart) == Array(h.inStart) && Array(g.inArcs) == Array(h.inArcs))
        #expect(Array(g.arcTail) == Array(h.arcTail) && Array(g.arcHead) == Array(h.arcHead))
        #expect(Array(g.arcLength) == Array(h.arcLength) && Array(g.reverseArc) == Array(h.reverseArc))
        #expect(Array(g.restrictionStart) == Array(h.restrictionStart) && Array(g.restrictionTo) == Array(h.restrictionTo))
        #expect(a.index.segmentCount == b.index.segmentCount && a.index.cachedCellCount == b.index.cachedCellCount)
    }

    /// Random points near the network's roads (deterministic).
    static func probes(_ n: RoadNetwork, count: Int, seed: UInt64) -> [GeoCoordinate] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let c = n.shape[Int(rng.next() % UInt64(n.shape.count))]
            return GeoCoordinate(uncheckedLatitude: c.latitude + (rng.unit() - 0.5) * 0.002,
                                 longitude: c.longitude + (rng.unit() - 0.5) * 0.002)
        }
    }

    /// Snapping (cell cache, STRtree above the cache radius, brute force), matching and routing give identical
    /// results on both networks. `routes` pairs are routed with the hierarchy (and `dijkstraRoutes` with Dijkstra).
    static func expectSameResults(_ a: RoadNetwork, _ b: RoadNetwork, routes: Int = 12, dijkstraRoutes: Int = 0) throws {
        let points = probes(a, count: 300, seed: 7)
        let sa = try Snapper(network: a), sb = try Snapper(network: b)
        for p in points {
            #expect(try sa.candidates(near: p, radius: 40) == sb.candidates(near: p, radius: 40))
            #expect(try sa.candidates(near: p, radius: 120) == sb.candidates(near: p, radius: 120))
            #expect(try sa.snap(Fix(coordinate: p, course: 90)) == sb.snap(Fix(coordinate: p, course: 90)))
        }
        // Tracks: fixes every ~25 m along the route between probe pairs, jittered.
        let ra = Router(network: a), rb = Router(network: b)
        var rng = SplitMix64(seed: 3)
        var matched = 0
        for k in 0..<routes {
            let from = Waypoint(coordinate: points[2 * k]), to = Waypoint(coordinate: points[2 * k + 1])
            let x = ra.route(RouteRequest(waypoints: [from, to])), y = rb.route(RouteRequest(waypoints: [from, to]))
            #expect(x == y)
            #expect(ra.cost(from: from, to: to) == rb.cost(from: from, to: to))
            guard let geometry = x.route?.geometry, geometry.count >= 2, matched < 4 else { continue }
            var fixes: [Fix] = []
            for (i, c) in geometry.enumerated() {
                fixes.append(Fix(coordinate: GeoCoordinate(uncheckedLatitude: c.latitude + (rng.unit() - 0.5) * 6e-5,
                                                           longitude: c.longitude + (rng.unit() - 0.5) * 6e-5),
                                 time: 1_700_000_000 + Double(i) * 3))
            }
            let track = Track(name: "t\(k)", fixes: fixes)
            #expect(try MapMatcher(network: a).match(track) == MapMatcher(network: b).match(track))
            matched += 1
        }
        let da = Router(network: a, algorithm: .dijkstra), db = Router(network: b, algorithm: .dijkstra)
        for k in 0..<dijkstraRoutes {
            let req = RouteRequest(waypoints: [Waypoint(coordinate: points[100 + 2 * k]),
                                               Waypoint(coordinate: points[101 + 2 * k])])
            #expect(da.route(req) == db.route(req))
        }
    }

    @Test(arguments: TestData.osmExtracts)
    func compiledOSMExtractGivesIdenticalResults(_ path: String) throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try MapLoader.load(path: path)
        let (compiled, file) = try Self.roundTrip(source, source: path, in: dir, name: "map")
        Self.expectSameNetwork(source, compiled)
        try Self.expectSameResults(source, compiled, routes: 12, dijkstraRoutes: 4)
        // The loader recognises it, and it remembers its source, unchanged.
        let loaded = try MapLoader.load(path: file)
        #expect(loaded.edges.count == source.edges.count)
        #expect(CompiledMap.source(of: loaded)?.path == path)
        #expect(CompiledMap.isStale(loaded) == false)
        #expect(CompiledMap.hasStoredHierarchy(loaded))
    }

    @Test func navigatingOnTheCompiledMapGivesTheSameEvents() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestData.fixture("osm/monaco.osm.pbf"), compiled = dir.appendingPathComponent("monaco.rsmap").path
        let binary = NavigationCommandTests.binary
        _ = try TestData.run(binary, ["compile", "--map", source, "--out", compiled])
        // A simulated drive on the virtual clock: identical event streams apart from the clock's start time.
        func events(_ map: String) throws -> [String] {
            let out = try TestData.run(binary, ["navigate", "--map", map, "--simulate", "--virtual-clock", "--from",
                                                "43.7315,7.4197", "--to", "43.7365,7.4215", "--to", "43.7445,7.4295"])
            return out.split(separator: "\n").map {
                $0.replacingOccurrences(of: #""time":[0-9.e+-]+"#, with: "", options: .regularExpression)
            }
        }
        let a = try events(source), b = try events(compiled)
        #expect(a.count > 100)
        #expect(a == b)
        #expect(a.contains { $0.contains("didArriveAtWaypoint") })
    }

    /// `compile --progress`: a bar redrawn in place on a terminal (a pseudo-terminal here), plain lines at every
    /// tenth of a phase otherwise.
    @Test func compileProgressIsABarOnATerminalAndLinesOtherwise() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestData.fixture("osm/monaco.osm.pbf")
        let args = ["compile", "--map", source, "--out", dir.appendingPathComponent("a.rsmap").path, "--progress"]
        let binary = NavigationCommandTests.binary

        let piped = try TestData.execute(binary, args)
        #expect(piped.status == 0)
        let lines = piped.err.split(separator: "\n").map(String.init)
        #expect(!piped.err.contains("\r"))
        #expect(lines.contains("contracting: 100%"))
        #expect(lines.filter { $0.hasPrefix("contracting: ") }.count <= 11)

        // The same run with standard error on a pseudo-terminal.
        var master: Int32 = -1, slave: Int32 = -1
        #expect(openpty(&master, &slave, nil, nil, nil) == 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["compile", "--map", source, "--out", dir.appendingPathComponent("b.rsmap").path, "--progress"]
        p.standardOutput = Pipe()
        p.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        try p.run()
        close(slave)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {  // until the child's end of the terminal is closed (EIO)
            let n = read(master, &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        p.waitUntilExit()
        close(master)
        #expect(p.terminationStatus == 0)
        let screen = String(decoding: bytes, as: UTF8.self)
        #expect(screen.contains("\r\u{1B}[K[" + String(repeating: "#", count: 30) + "] contracting 100%"))
        #expect(screen.contains("[------------------------------] "))
        #expect(!screen.contains("contracting: "))
    }

    @Test func kubickaNetworkAsGeoJSONWithStringIDs() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let k = try KubickaTrack.load(directory: TestData.fixture("kubicka/00000005"))
        // The same roads as a GeoJSON network with string feature ids and names.
        var features: [[String: Any]] = []
        for e in k.network.edges {
            let coords = k.network.geometry(ofEdge: e.index).map { [$0.longitude, $0.latitude] }
            features.append(["type": "Feature", "id": "arc-\(e.sourceID)",
                             "properties": ["oneway": "yes", "name": "Road \(e.index % 7)", "highway": "residential"],
                             "geometry": ["type": "LineString", "coordinates": coords]])
        }
        let geojson = dir.appendingPathComponent("kubicka.geojson")
        try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": features]).write(to: geojson)
        let source = try MapLoader.load(path: geojson.path)
        let (compiled, _) = try Self.roundTrip(source, source: geojson.path, in: dir, name: "kubicka")
        Self.expectSameNetwork(source, compiled)
        #expect(compiled.edges.contains { if case .string = $0.sourceID { return true } else { return false } })
        try Self.expectSameResults(source, compiled, routes: 6)
        // The dataset's own track and network (compiled from memory: no source file).
        let (ck, _) = try Self.roundTrip(k.network, source: nil, in: dir, name: "kubicka-arcs")
        Self.expectSameNetwork(k.network, ck)
        #expect(try MapMatcher(network: k.network).match(k.track) == MapMatcher(network: ck).match(k.track))
        #expect(CompiledMap.isStale(ck) == nil)
    }

    @Test func smallTilingCompiledFromMemory() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let base = try MapLoader.load(path: TestData.fixture("osm/issue-70.osm.gz"))
        let tiling = try base.tiled(rows: 3, columns: 3, joins: 6)
        let (compiled, _) = try Self.roundTrip(tiling, source: nil, in: dir, name: "tiling")
        Self.expectSameNetwork(tiling, compiled)
        try Self.expectSameResults(tiling, compiled, routes: 10, dijkstraRoutes: 3)
    }

    @Test func sourceChangedSinceCompileIsStale() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("map.osm.gz")
        try FileManager.default.copyItem(atPath: TestData.fixture("osm/map-issue13.osm.gz"), toPath: copy.path)
        let (_, file) = try Self.roundTrip(try MapLoader.load(path: copy.path), source: copy.path, in: dir, name: "m")
        #expect(CompiledMap.isStale(try CompiledMap.open(path: file)) == false)
        // Same size, one byte different.
        var bytes = try Data(contentsOf: copy)
        bytes[bytes.count / 2] ^= 0x55
        try bytes.write(to: copy)
        #expect(CompiledMap.isStale(try CompiledMap.open(path: file)) == true)
        try FileManager.default.removeItem(at: copy)
        #expect(CompiledMap.isStale(try CompiledMap.open(path: file)) == nil)
    }

    // MARK: damaged files

    /// Opens bytes held in memory (64-byte aligned), as firmware would.
    static func open(_ bytes: [UInt8], verification: CompiledMap.Verification = .all) -> Result<RoadNetwork, RoadSnapError> {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 64)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        // The bytes must outlive the network: test buffers are small and left allocated until the process ends.
        return Result { () throws(RoadSnapError) in
            try CompiledMap.open(bytes: UnsafeRawPointer(buffer), size: bytes.count, name: "damaged.rsmap",
                                 verification: verification)
        }
    }

    /// A fixture map and the bytes of its compiled file (compiled into a temporary folder, removed again).
    static func compiledBytes(fixture: String) throws -> (source: RoadNetwork, bytes: [UInt8]) {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try MapLoader.load(path: TestData.fixture(fixture))
        let path = dir.appendingPathComponent("map.rsmap").path
        try CompiledMap.compile(source, to: path, sourcePath: nil)
        return (source, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    static func reason(_ r: Result<RoadNetwork, RoadSnapError>) -> String? {
        if case let .failure(.invalidMap(path, reason)) = r, path == "damaged.rsmap" { return reason }
        return nil
    }

    @Test func flippedBytesGiveAnErrorOrIdenticalResults() throws {
        let (source, good) = try Self.compiledBytes(fixture: "osm/map-issue13.osm.gz")
        var positions = Array(0..<min(good.count, 256))  // header and the start of the first sections
        var rng = SplitMix64(seed: 11)
        for _ in 0..<600 { positions.append(Int(rng.next() % UInt64(good.count))) }
        positions += Array(max(0, good.count - 256)..<good.count)  // the section table at the end
        var rejected = 0, identical = 0
        let probes = Self.probes(source, count: 40, seed: 5)
        let reference = try Snapper(network: source)
        for p in positions {
            var bad = good
            bad[p] ^= UInt8(1 << (p % 8))
            let r = Self.open(bad)
            if let reason = Self.reason(r) {
                #expect(!reason.isEmpty)
                rejected += 1
                continue
            }
            // Not rejected: the byte is padding no checksum covers; results must be identical.
            let n = try #require(try? r.get(), "flip at \(p) gave \(r)")
            let s = try Snapper(network: n)
            for q in probes { #expect(try s.candidates(near: q, radius: 60) == reference.candidates(near: q, radius: 60)) }
            identical += 1
        }
        #expect(rejected + identical == positions.count)
        #expect(rejected > positions.count / 2)
    }

    @Test func truncatedOtherVersionOtherEndiannessAndNotACompiledMap() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try MapLoader.load(path: TestData.fixture("osm/map-issue13.osm.gz"))
        let path = dir.appendingPathComponent("small.rsmap").path
        try CompiledMap.compile(source, to: path, sourcePath: nil)
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Self.reason(Self.open(good)) == nil)
        for length in [0, 7, 8, 100, 127, 128, 129, 4096, good.count / 2, good.count - 1] {
            let reason = Self.reason(Self.open(Array(good.prefix(length))))
            #expect(reason != nil, "truncated to \(length)")
            if length >= 128 { #expect(reason?.contains("truncated") == true, "\(length): \(reason ?? "")") }
        }
        // Another format version, with a consistent header (its hash recomputed).
        func withHeader(_ edit: (inout [UInt8]) -> Void) -> [UInt8] {
            var b = good
            edit(&b)
            for i in 120..<128 { b[i] = 0 }
            let h = b.withUnsafeBytes { Checksum.hash(UnsafeRawBufferPointer(rebasing: $0[0..<128])) }
            withUnsafeBytes(of: h.littleEndian) { for i in 0..<8 { b[120 + i] = $0[i] } }
            return b
        }
        // A file of format version 1 (before the hierarchy's search graph was numbered by rank) and one from a
        // later version are both refused by name.
        let current = Int(CompiledMapWriter.currentFormatVersion)
        for other in [current - 1, current + 1] {
            let file = withHeader { $0[12] = UInt8(other) }
            #expect(Self.reason(Self.open(file))?.contains("format version \(other)") == true)
        }
        let swapped = withHeader { b in b.swapAt(8, 11); b.swapAt(9, 10) }
        #expect(Self.reason(Self.open(swapped))?.contains("byte order") == true)
        // Not a compiled map at all, even when named like one (through the loader, by file).
        let osmAsRsmap = dir.appendingPathComponent("osm.rsmap")
        try FileManager.default.copyItem(atPath: TestData.fixture("osm/map-issue13.osm.gz"), toPath: osmAsRsmap.path)
        switch Result(catching: { () throws(RoadSnapError) in try MapLoader.load(path: osmAsRsmap.path) }) {
        case let .failure(.invalidMap(p, reason)): #expect(p == osmAsRsmap.path && reason.contains("not a compiled"))
        case let other: Issue.record("expected invalidMap, got \(other)")
        }
        // A truncated file on disk.
        let cut = dir.appendingPathComponent("cut.rsmap")
        try Data(good.prefix(good.count - 10)).write(to: cut)
        switch Result(catching: { () throws(RoadSnapError) in try MapLoader.load(path: cut.path) }) {
        case let .failure(.invalidMap(p, reason)): #expect(p == cut.path && reason.contains("truncated"))
        case let other: Issue.record("expected invalidMap, got \(other)")
        }
    }

    /// The file offset of section `id`'s first byte (from the section table).
    static func sectionOffset(_ bytes: [UInt8], id: UInt32) -> Int? {
        let tableOffset = bytes.withUnsafeBytes { Int($0.load(fromByteOffset: 32, as: UInt64.self)) }
        let sections = bytes.withUnsafeBytes { Int($0.load(fromByteOffset: 20, as: UInt32.self)) }
        for i in 0..<sections {
            let entry = tableOffset + i * 32
            let (sid, offset) = bytes.withUnsafeBytes {
                ($0.loadUnaligned(fromByteOffset: entry, as: UInt32.self),
                 Int($0.loadUnaligned(fromByteOffset: entry + 8, as: UInt64.self)))
            }
            if sid == id { return offset }
        }
        return nil
    }

    @Test func lazyVerificationChecksEachPartWhenFirstUsed() throws {
        let (source, good) = try Self.compiledBytes(fixture: "osm/issue-70.osm.gz")
        // A damaged hierarchy array (section 101, the last link array): full verification refuses the file; lazy
        // verification opens it and the router rebuilds the hierarchy from the network, with identical routes.
        var bytes = good
        bytes[try #require(Self.sectionOffset(bytes, id: 101))] ^= 0xff
        #expect(Self.reason(Self.open(bytes)) != nil)
        let lazy = try Self.open(bytes, verification: .lazy).get()
        let a = Router(network: source), b = Router(network: lazy)
        var found = 0
        for (p, q) in zip(Self.probes(source, count: 10, seed: 1), Self.probes(source, count: 10, seed: 2)) {
            let req = RouteRequest(waypoints: [Waypoint(coordinate: p), Waypoint(coordinate: q)])
            let x = a.route(req)
            #expect(x == b.route(req))
            if x.status == .ok { found += 1 }
        }
        #expect(found > 0)
        // A damaged cell cache (section 58): lazy opening succeeds; the first query context reports it.
        var damagedIndex = good
        damagedIndex[try #require(Self.sectionOffset(good, id: 58)) + 4] ^= 0x01
        let opened = try Self.open(damagedIndex, verification: .lazy).get()
        switch Result(catching: { () throws(RoadSnapError) in try Snapper(network: opened) }) {
        case let .failure(.invalidMap(p, reason)): #expect(p == "damaged.rsmap" && reason.contains("corrupt"))
        case let other: Issue.record("expected invalidMap, got \(other)")
        }
        // A damaged edge record (section 12): every session object refuses the network; nothing reads it.
        var damagedEdges = good
        damagedEdges[try #require(Self.sectionOffset(good, id: 12)) + 40 * 3 + 5] ^= 0x20
        let edgesOpened = try Self.open(damagedEdges, verification: .lazy).get()
        #expect(throws: RoadSnapError.self) { try MatchGraph(network: edgesOpened) }
        #expect(throws: RoadSnapError.self) { try MapMatcher(network: edgesOpened) }
        #expect(throws: RoadSnapError.self) { try edgesOpened.verifyStorage() }
        let refused = Router(network: edgesOpened).route(RouteRequest(waypoints: [
            Waypoint(coordinate: source.nodes[0]), Waypoint(coordinate: source.nodes[source.nodes.count - 1])]))
        #expect(refused.status == .internalError && refused.message.contains("corrupt"))
        // An intact file opened lazily gives the same snaps.
        let intact = try Self.open(good, verification: .lazy).get()
        let s = try Snapper(network: intact), t = try Snapper(network: source)
        for p in Self.probes(source, count: 30, seed: 9) { #expect(try s.candidates(near: p) == t.candidates(near: p)) }
    }

    @Test func compileReportsProgressAndCancels() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try MapLoader.load(path: TestData.fixture("osm/issue-70.osm.gz"))
        let phases = Mutex<[String]>([])
        let path = dir.appendingPathComponent("p.rsmap").path
        try CompiledMap.compile(source, to: path, sourcePath: TestData.fixture("osm/issue-70.osm.gz"),
                                control: BuildControl(progress: { p in phases.withLock { $0.append(p.phase) } }))
        let seen = phases.withLock { $0 }
        #expect(seen.first == "hashing the source map" && seen.last == "writing" && seen.contains("contracting"))
        // Canceled before it starts: an error, and no file (nor temporary) left behind.
        let canceled = BuildCancellation()
        canceled.cancel()
        let other = dir.appendingPathComponent("c.rsmap").path
        switch Result(catching: { () throws(RoadSnapError) in
            try CompiledMap.compile(source, to: other, sourcePath: nil, control: BuildControl(cancellation: canceled))
        }) {
        case .failure(.canceled): break
        case let r: Issue.record("expected canceled, got \(r)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["p.rsmap"])
    }

    @Test func compilingOverAnExistingFileReplacesItOnlyWhenComplete() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try MapLoader.load(path: TestData.fixture("osm/map-issue13.osm.gz"))
        // Into a directory that does not exist: created, as for every output (the one atomic writer's rule).
        let missing = dir.appendingPathComponent("no/such/dir/x.rsmap").path
        try CompiledMap.compile(source, to: missing, sourcePath: nil)
        #expect(CompiledMapFile.looksCompiled(path: missing))
        // Under a path through a regular file: an error naming the file, nothing written.
        let through = dir.appendingPathComponent("no/such/dir/x.rsmap/y.rsmap").path
        switch Result(catching: { () throws(RoadSnapError) in try CompiledMap.compile(source, to: through, sourcePath: nil) }) {
        case let .failure(.unwritableFile(p, _)): #expect(p.hasPrefix(dir.path))
        case let other: Issue.record("expected unwritableFile, got \(other)")
        }
        // The CLI under a file-size limit (as on a full disk): it fails and leaves the old file as it was.
        let out = dir.appendingPathComponent("out.rsmap").path
        try Data("old contents".utf8).write(to: URL(fileURLWithPath: out))
        let binary = NavigationCommandTests.binary
        let r = try TestData.execute("/bin/bash", ["-c", "ulimit -f 64; exec \"$0\" compile --map \"$1\" --out \"$2\"",
                                                   binary, TestData.fixture("osm/andorra.osm.pbf"), out])
        #expect(r.status != 0)
        #expect(r.err.contains("write failed") && r.err.contains(out), "\(r.err)")
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self) == "old contents")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }
}
