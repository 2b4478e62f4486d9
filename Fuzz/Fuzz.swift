// libFuzzer entry points for every input parser of RoadSnap and the C API (issue 16). One binary, the target chosen
// by ROADSNAP_FUZZ_TARGET (see scripts/fuzz.sh and docs/reliability.md). Built with `-sanitize=fuzzer,address` over
// the package's objects compiled with coverage and AddressSanitizer. A target may reject any input (errors are the
// point); it must never crash, hang or leak (memory: LeakSanitizer; file descriptors: checked after every input).
#if canImport(Glibc)
import Glibc
#endif
import CShims
import RoadSnapBridge
import RoadSnapCAPI
import RoadSnapCHeader
import RoadSnapCore
import RoadSnapFormats

enum Target: String, CaseIterable {
    case gpx, nmea, csv, geojsonTrack = "geojson-track", geojsonNetwork = "geojson-network", osmXML = "osm-xml"
    case osmPBF = "osm-pbf", traffic, rsmap, rsmapRepaired = "rsmap-repaired", capi
}

nonisolated(unsafe) var target = Target.gpx

/// A few real roads (three arcs of Kubicka track 00000046's network) to snap fuzzed tracks to and drive the C API.
let roadsGeoJSON = """
    {"type": "FeatureCollection", "features": [
    {"type": "Feature", "id": 0, "properties": {"oneway": true, "highway": "residential", "name": "a,\\"b"},
     "geometry": {"type": "LineString", "coordinates": [[2.963533, 48.514949], [2.964058, 48.514997]]}},
    {"type": "Feature", "id": 1, "properties": {"oneway": true},
     "geometry": {"type": "LineString", "coordinates": [[2.963533, 48.514949], [2.957215, 48.514505]]}},
    {"type": "Feature", "id": "x", "properties": {"highway": "primary", "maxspeed": "50"},
     "geometry": {"type": "LineString", "coordinates": [[2.964058, 48.514997], [2.970154, 48.5113]]}}]}
    """
nonisolated(unsafe) var roads: RoadNetwork! = nil
nonisolated(unsafe) var snapper: Snapper! = nil
nonisolated(unsafe) var scratchPath = ""

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    guard let name = getenv("ROADSNAP_FUZZ_TARGET").map({ String(cString: $0) }), let t = Target(rawValue: name) else {
        let names = Target.allCases.map(\.rawValue).joined(separator: ", ")
        fputs("set ROADSNAP_FUZZ_TARGET to one of: \(names)\n", stderr)
        exit(2)
    }
    target = t
    do {
        roads = try GeoJSONNetworkReader.read(bytes: Array(roadsGeoJSON.utf8), name: "roads.geojson")
        snapper = try Snapper(network: roads)
    } catch {
        fputs("fuzz: cannot build the test network: \(error)\n", stderr)
        exit(2)
    }
    let dir = getenv("TMPDIR").map { String(cString: $0) } ?? (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp")
    scratchPath = "\(dir)/roadsnap-fuzz-\(getpid())"
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let freeDescriptor = lowestFreeDescriptor()
    defer {
        // A descriptor left open by the input takes the lowest free number (POSIX), so it moves.
        if lowestFreeDescriptor() != freeDescriptor {
            fputs("fuzz: the input left a file descriptor open (lowest free one was \(freeDescriptor))\n", stderr)
            abort()
        }
    }
    switch target {
    case .gpx: track(bytes, .gpx)
    case .nmea: track(bytes, .nmea)
    case .csv: track(bytes, .csv)
    case .geojsonTrack: track(bytes, .geojson)
    case .geojsonNetwork:
        if let n = try? GeoJSONNetworkReader.read(bytes: bytes, name: "fuzz.geojson", warn: { _ in }) { use(n) }
    case .osmXML: osm(bytes, suffix: ".osm")
    case .osmPBF: osm(bytes, suffix: ".osm.pbf")
    case .traffic: _ = try? TrafficFeedReader.parse(String(decoding: bytes, as: UTF8.self), name: "fuzz.traffic")
    case .rsmap: compiled(bytes, repair: false)
    case .rsmapRepaired: compiled(bytes, repair: true)
    case .capi: capiSequence(bytes)
    }
    return 0
}

/// The number the next `open` would get.
func lowestFreeDescriptor() -> CInt {
    let fd = dup(2)
    if fd >= 0 { close(fd) }
    return fd
}

/// Reads a track and writes what the CLI would (times, coordinates) as snap CSV and GeoJSON; the first 8 fixes are
/// snapped to the test roads (snapping every fix of a long fuzzed track would dominate the time).
func track(_ bytes: [UInt8], _ format: TrackFormat) {
    guard let t = try? TrackReader.read(bytes: bytes, name: "fuzz", format: format) else { return }
    var results = [SnappedFix?](repeating: nil, count: t.fixes.count)
    for i in 0..<min(8, t.fixes.count) { results[i] = (try? snapper.snap(t.fixes[i], radius: 50)) ?? nil }
    _ = SnapOutput.render(track: t, results: results, network: roads, format: .csv)
    _ = SnapOutput.render(track: t, results: results, network: roads, format: .geojson)
}

/// Whatever a loaded map offers cheaply: edges, ids, names, an index query.
func use(_ n: RoadNetwork) {
    for e in n.edges.prefix(64) { _ = e.sourceID.description; _ = e.attributes.name }
    if let s = try? Snapper(network: n), !n.edges.isEmpty, let c = n.geometry(ofEdge: 0).first {
        _ = try? s.snap([Fix(coordinate: c)], radius: 100)
    }
}

/// libosmium reads files only: the input goes to a scratch file with plain `write` (`AtomicFile`'s fsync and rename
/// per input cost more than the parse; the scratch folder is /dev/shm when there is one, see `fuzzInitialize`).
func osm(_ bytes: [UInt8], suffix: String) {
    let path = scratchPath + suffix
    guard writeScratch(bytes, to: path) else { return }
    defer { unlink(path) }
    if let n = try? RoadNetwork.load(osmPath: path, warn: { _ in }) { use(n) }
}

func writeScratch(_ bytes: [UInt8], to path: String) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
        if n <= 0 { return false }
        done += n
    }
    return true
}

/// A compiled map from memory (64-byte aligned copy), verified at open and lazily. With `repair`, the file size,
/// the checksums of the sections lying inside the file, of the section table and of the header are recomputed
/// first, so mutations reach the structural checks behind the checksums (a map crafted to pass them).
func compiled(_ bytes: [UInt8], repair: Bool) {
    guard !bytes.isEmpty else { return }
    var raw: UnsafeMutableRawPointer? = nil
    guard posix_memalign(&raw, 64, bytes.count) == 0, let raw else { return }
    defer { free(raw) }
    bytes.withUnsafeBytes { raw.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
    let headerSize = MemoryLayout<rsc_rsmap_header>.size, entrySize = MemoryLayout<rsc_rsmap_section>.size
    if repair, bytes.count >= headerSize {
        var header = raw.loadUnaligned(as: rsc_rsmap_header.self)
        header.file_size = UInt64(bytes.count)
        // Seeds of an older format version would all stop at the version check: read them as the current one.
        header.format_version = CompiledMapWriter.currentFormatVersion
        let count = Int(min(header.section_count, 4096))
        let tableOffset = header.section_table_offset
        if tableOffset >= UInt64(headerSize), tableOffset <= UInt64(bytes.count),
           UInt64(count * entrySize) <= UInt64(bytes.count) - tableOffset
        {
            for i in 0..<count {
                let at = raw + Int(tableOffset) + i * entrySize
                var entry = at.loadUnaligned(as: rsc_rsmap_section.self)
                let (length, overflow) = entry.count.multipliedReportingOverflow(by: UInt64(entry.element_size))
                if !overflow, entry.offset <= UInt64(bytes.count), length <= UInt64(bytes.count) - entry.offset {
                    entry.hash = rsc_hash64(raw + Int(entry.offset), Int(length), 0)
                    at.storeBytes(of: entry, as: rsc_rsmap_section.self)
                }
            }
            header.section_table_hash = rsc_hash64(raw + Int(tableOffset), count * entrySize, 0)
        }
        header.header_hash = 0
        header.header_hash = withUnsafeBytes(of: &header) { rsc_hash64($0.baseAddress, $0.count, 0) }
        raw.storeBytes(of: header, as: rsc_rsmap_header.self)
    }
    for verification in [CompiledMap.Verification.all, .lazy] {
        if let n = try? CompiledMap.open(bytes: raw, size: bytes.count, name: "fuzz.rsmap", verification: verification) {
            use(n)
        }
    }
}
