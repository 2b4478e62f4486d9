import Foundation
import Testing

/// The `roadsnap` binary's argument handling: `--help` for every command, unknown flags and commands with a suggestion,
/// missing values, repeated flags and stray operands (issue 15, "A CLI that guides its user").
@Suite struct CommandLineTests {
    static let commands = ["info", "compile", "snap", "match", "eval", "route", "navigate"]

    static func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let r = try TestData.execute(MatchCommandTests.binary, args)
        return (r.status, String(decoding: r.out, as: UTF8.self), r.err)
    }

    /// Every flag named in a usage line (`--name`), in order of first appearance.
    static func flagsInUsage(_ line: Substring) -> [String] {
        var seen: [String] = []
        let words = line.split(whereSeparator: { " []()|.".contains($0) })
        for w in words where w.hasPrefix("--") && !seen.contains(String(w)) { seen.append(String(w)) }
        return seen
    }

    @Test(arguments: commands) func helpListsEveryFlagOfTheUsageLineWithItsMeaning(command: String) throws {
        for form in [[command, "--help"], [command, "-h"], ["help", command], [command, "--map", "x", "--help"]] {
            let r = try Self.run(form)
            #expect(r.status == 0, "\(form): \(r.err)")
            #expect(r.err.isEmpty, "\(form): \(r.err)")
            let lines = r.out.split(separator: "\n")
            let usage = try #require(lines.first { $0.hasPrefix("usage: roadsnap \(command) ") }, "\(form): \(r.out)")
            let flags = Self.flagsInUsage(usage)
            #expect(flags.contains("--map"))
            for flag in flags + ["--help"] {
                // A row "  --flag [VALUE]   meaning": the flag first, then at least one word of explanation.
                let row = lines.first { $0.hasPrefix("  \(flag) ") || $0 == "  \(flag)" }
                let meaning = row.map { $0.split(separator: " ").dropFirst().filter { !$0.isEmpty } } ?? []
                #expect(meaning.count >= 2, "\(command): no meaning for \(flag) in\n\(r.out)")
            }
        }
    }

    @Test func overviewNamesEveryCommand() throws {
        let r = try Self.run(["--help"])
        #expect(r.status == 0)
        for c in Self.commands { #expect(r.out.contains("\n  \(c) "), "\(c) missing from\n\(r.out)") }
        let bare = try Self.run([])
        #expect(bare.status == 2)
        #expect(bare.err.contains("usage: roadsnap COMMAND"))
    }

    @Test func unknownFlagIsAnErrorWithTheNearestFlag() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.csv").path
        // Before: `--fromat` was ignored and swallowed `csv`, which became the track path.
        let r = try Self.run(["snap", "--map", TestData.bellevueMap, "--fromat", "csv", "--out", out,
                              TestData.bellevueDrive])
        #expect(r.status == 2)
        #expect(r.err.contains("unknown flag --fromat for roadsnap snap; did you mean --format?"), "\(r.err)")
        #expect(r.err.contains("usage: roadsnap snap"))
        #expect(!FileManager.default.fileExists(atPath: out))
        let far = try Self.run(["route", "--map", TestData.bellevueMap, "--zzzzqq", "1"])
        #expect(far.status == 2)
        #expect(far.err.contains("unknown flag --zzzzqq"))
        #expect(!far.err.contains("did you mean"), "\(far.err)")
        let prefix = try Self.run(["navigate", "--map", TestData.bellevueMap, "--to", "47.6,-122.1", "--virtual", "x"])
        #expect(prefix.err.contains("did you mean --virtual-clock?"), "\(prefix.err)")
    }

    @Test func unknownCommandSuggestsTheNearestOne() throws {
        let r = try Self.run(["mtach", "--map", TestData.bellevueMap])
        #expect(r.status == 2)
        #expect(r.err.contains("unknown command 'mtach'; did you mean 'match'?"), "\(r.err)")
        let none = try Self.run(["frobnicate"])
        #expect(none.status == 2)
        #expect(none.err.contains("unknown command 'frobnicate'"))
        #expect(!none.err.contains("did you mean"))
    }

    @Test func flagWithoutItsValueDoesNotSwallowTheNextFlag() throws {
        let r = try Self.run(["match", "--map", TestData.bellevueMap, "--out", "--format", "csv", TestData.bellevueDrive])
        #expect(r.status == 2)
        #expect(r.err.contains("--out needs a value: --out DIR"), "\(r.err)")
        let end = try Self.run(["info", "--map"])
        #expect(end.err.contains("--map needs a value"), "\(end.err)")
        // A negative number is a value, not a flag.
        let heading = try Self.run(["route", "--map", TestData.bellevueMap, "--from", "47.58193,-122.11226",
                                    "--to", "47.57605,-122.16935", "--heading", "-30"])
        #expect(heading.status == 0, "\(heading.err)")
    }

    @Test func repeatedSingleFlagAndStrayOperandsAreErrors() throws {
        let twice = try Self.run(["snap", "--map", TestData.bellevueMap, "--radius", "10", "--radius", "20",
                                  TestData.bellevueDrive])
        #expect(twice.status == 2)
        #expect(twice.err.contains("--radius is given twice ('10' and '20')"), "\(twice.err)")
        let stray = try Self.run(["info", "--map", TestData.bellevueMap, "extra.osm"])
        #expect(stray.status == 2)
        #expect(stray.err.contains("unexpected argument 'extra.osm'"), "\(stray.err)")
        let switchValue = try Self.run(["compile", "--map", TestData.bellevueMap, "--out", "/nonexistent/x.rsmap",
                                        "--progress=yes"])
        #expect(switchValue.err.contains("--progress takes no value"), "\(switchValue.err)")
    }

    @Test func equalsFormAndRepeatableFlagsWork() throws {
        let info = try Self.run(["info", "--map=\(TestData.bellevueMap)"])
        #expect(info.status == 0, "\(info.err)")
        #expect(!info.out.isEmpty)
        let via = try Self.run(["route", "--map", TestData.bellevueMap, "--from", "47.58193,-122.11226",
                                "--via", "47.57083,-122.11578", "--via", "47.57141,-122.15755",
                                "--to", "47.57605,-122.16935", "--format", "json"])
        #expect(via.status == 0, "\(via.err)")
        let json = try JSONSerialization.jsonObject(with: Data(via.out.utf8)) as? [String: Any]
        let legs = json?["legs"] as? [Any]
        #expect(legs?.count == 3, "\(via.out.prefix(400))")
    }
}
