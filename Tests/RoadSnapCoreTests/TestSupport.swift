import Foundation
import RoadSnapCore
import RoadSnapFormats

/// Paths of the repository's fixtures and samples.
enum TestData {
    static let testsDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let fixtures = testsDir.appendingPathComponent("Fixtures")
    static let repoRoot = testsDir.deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ relative: String) -> String { fixtures.appendingPathComponent(relative).path }
    static func sample(_ name: String) -> String { repoRoot.appendingPathComponent("Samples/\(name)").path }

    static let bellevueMap = sample("bellevue-issue147.osm.gz")
    static let bellevueDrive = sample("newson-krumm-bellevue.csv")
    /// Every real OSM extract the project ships.
    static let osmExtracts = [
        fixture("osm/andorra.osm.pbf"), fixture("osm/monaco.osm.pbf"), fixture("osm/map-issue13.osm.gz"),
        fixture("osm/issue-70.osm.gz"), bellevueMap,
    ]

    /// A Kubicka fixture folder (`kubicka/…`, `kubicka-cuts/…`) matched with the parameters `configure` sets,
    /// optionally subsampled (`Track.subsampled(every:)`), and its route mismatch against the folder's truth.
    static func matchKubicka(_ directory: String, every interval: Double = 0,
                             _ configure: (inout MatchParameters) -> Void = { _ in }) throws
        -> (MatchResult, RouteMismatch)
    {
        let k = try KubickaTrack.load(directory: fixture(directory))
        var p = MatchParameters()
        configure(&p)
        let track = interval > 0 ? k.track.subsampled(every: interval) : k.track
        let result = try MapMatcher(network: k.network, parameters: p).match(track)
        let ids = result.subMatches.flatMap { result.edgeSourceIDs(of: $0, in: k.network) }
        let lengths = k.network.lengthsBySourceID()
        return (result, RouteMismatch(truth: k.truth, matched: ids) { lengths[$0] ?? 0 })
    }

    /// A scratch directory removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("roadsnap-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs a program with `stdin` on its standard input; returns its exit status, standard output and error
    /// (standard error goes through a file, so a chatty program cannot block on a full pipe).
    static func execute(_ executable: String, _ arguments: [String], stdin: Data? = nil,
                        environment: [String: String] = [:]) throws
        -> (status: Int32, out: Data, err: String)
    {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("roadsnap-stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errFile) }
        let errHandle = try FileHandle(forWritingTo: errFile)
        let out = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = errHandle
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try errHandle.close()
        return (p.terminationStatus, data, try String(contentsOf: errFile, encoding: .utf8))
    }

    /// Runs a program and returns its standard output; throws when it fails to start or exits non-zero.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let r = try execute(executable, arguments)
        guard r.status == 0 else {
            throw RoadSnapError.internalError("\(executable) \(arguments.joined(separator: " ")) exited \(r.status)")
        }
        return String(decoding: r.out, as: UTF8.self)
    }

    /// The network of the Bellevue sample, loaded once.
    nonisolated(unsafe) static var cachedBellevue: RoadNetwork?
    static let lock = NSLock()
    static func bellevue() throws -> RoadNetwork {
        lock.lock(); defer { lock.unlock() }
        if let n = cachedBellevue { return n }
        let n = try RoadNetwork.load(osmPath: bellevueMap)
        cachedBellevue = n
        return n
    }
}

/// Deterministic random numbers so tests repeat exactly.
typealias SeededGenerator = SplitMix64

extension GeoBoundingBox {
    /// A uniformly random coordinate inside the box (latitude drawn first, then longitude).
    func randomCoordinate<G: RandomNumberGenerator>(using rng: inout G) -> GeoCoordinate {
        GeoCoordinate(uncheckedLatitude: Double.random(in: minLatitude...maxLatitude, using: &rng),
                      longitude: Double.random(in: minLongitude...maxLongitude, using: &rng))
    }
}
