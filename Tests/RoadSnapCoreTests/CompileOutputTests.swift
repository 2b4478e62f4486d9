import Foundation
import RoadSnapCore
import RoadSnapBridge
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `roadsnap compile --out` follows the one atomic writer's rules (issue 16 item 4, issue 18 "one of each"): a
/// symbolic link is followed and kept, a FIFO is refused (the header is written last), a full device or disk is an
/// error naming the path with the old file intact and no temporary left, and a killed run's temporaries go.
@Suite struct CompileOutputTests {
    static let network = ReliabilityCommandTests.network

    static func compile(_ out: String, shellPrefix: String? = nil) throws -> ReliabilityCommandTests.Run {
        try ReliabilityCommandTests.run(["compile", "--map", network, "--out", out], shellPrefix: shellPrefix)
    }

    static func entries(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    /// Two `roadsnap compile` processes (each with its own hash seed) write the same bytes: the Bellevue sample has
    /// motorway exit numbers, whose string-table places once followed a dictionary's iteration order.
    @Test func compilingTwiceWritesTheSameBytes() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var outputs: [Data] = []
        for name in ["a.rsmap", "b.rsmap"] {
            let out = dir.appendingPathComponent(name).path
            let r = try ReliabilityCommandTests.run(["compile", "--map", TestData.bellevueMap, "--out", out])
            #expect(r.status == 0, "\(r.err)")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(outputs[0].count > 1_000_000)
        #expect(outputs[0] == outputs[1])
    }

    @Test func compileOntoASymbolicLinkReplacesItsTargetAndKeepsTheLink() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("target.rsmap").path, link = dir.appendingPathComponent("link.rsmap").path
        try "old".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.rsmap")
        let r = try Self.compile(link)
        #expect(r.status == 0, "\(r.err)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.rsmap")
        #expect(CompiledMapFile.looksCompiled(path: target))
        _ = try CompiledMap.open(path: link)
        #expect(try Self.entries(dir) == ["link.rsmap", "target.rsmap"])
    }

    @Test func compileOntoAFIFOIsRefusedAndTheFIFOStays() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("pipe.rsmap").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let r = try Self.compile(fifo)
        #expect(r.status == 1)
        #expect(r.err.contains(fifo) && r.err.contains("FIFO"), "\(r.err)")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(try Self.entries(dir) == ["pipe.rsmap"])
    }

    @Test func compileOntoDevicesWritesThroughThemAndAFullOneIsAnError() throws {
        let full = try Self.compile("/dev/full")
        #expect(full.status == 1)
        #expect(full.err.contains("/dev/full") && full.err.contains("No space left on device"), "\(full.err)")
        var info = stat()
        #expect(stat("/dev/full", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        let null = try Self.compile("/dev/null")
        #expect(null.status == 0, "\(null.err)")
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
    }

    /// A disk that refuses more bytes (a file-size limit, SIGXFSZ ignored: `write` fails as on a full disk) after the
    /// previous compile: an error naming the output, the previous map byte for byte, no temporary left.
    @Test func aFullDiskKeepsThePreviousMapAndLeavesNoTemporary() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("map.rsmap").path
        let first = try Self.compile(out)
        #expect(first.status == 0, "\(first.err)")
        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        let r = try Self.compile(out, shellPrefix: "trap '' XFSZ; ulimit -f 16;")
        #expect(r.status == 1)
        #expect(r.err.contains(out) && r.err.contains("File too large"), "\(r.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)
        #expect(try Self.entries(dir) == ["map.rsmap"])
    }

    @Test func temporariesOfAKilledCompileAreRemovedByTheNextRun() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // PID 99999999 is above Linux's pid_max (4194304): no process has it.
        let stale = dir.appendingPathComponent(".map.rsmap.99999999.k2j4.tmp").path
        try "partial".write(toFile: stale, atomically: false, encoding: .utf8)
        let r = try Self.compile(dir.appendingPathComponent("map.rsmap").path)
        #expect(r.status == 0, "\(r.err)")
        #expect(try Self.entries(dir) == ["map.rsmap"])
    }
}
