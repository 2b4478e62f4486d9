import Foundation
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
