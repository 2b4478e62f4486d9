import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// One `roadsnap` subcommand: what it accepts and its entry point (arguments after the subcommand name).
struct Subcommand: Sendable {
    let spec: CommandSpec
    let run: @Sendable ([String]) throws -> Int32
}

let subcommands: [Subcommand] = [
    Subcommand(spec: CommandSpecs.info, run: InfoCommand.run),
    Subcommand(spec: CommandSpecs.compile, run: CompileCommand.run),
    Subcommand(spec: CommandSpecs.snap, run: SnapCommand.run),
    Subcommand(spec: CommandSpecs.match, run: MatchCommand.run),
    Subcommand(spec: CommandSpecs.eval, run: EvalCommand.run),
    Subcommand(spec: CommandSpecs.route, run: RouteCommand.run),
    Subcommand(spec: CommandSpecs.navigate, run: NavigateCommand.run),
]

/// The overview: every command's usage line and summary.
func overview() -> String {
    var s = "usage: roadsnap COMMAND [FLAGS]   (roadsnap COMMAND --help for its flags)\n\ncommands:\n"
    for c in subcommands { s += "  \(c.spec.name)\(String(repeating: " ", count: max(2, 10 - c.spec.name.count)))\(c.spec.summary)\n" }
    s += "\nusage lines:\n"
    for c in subcommands { s += "  \(c.spec.usage)\n" }
    return s
}

let args = Array(CommandLine.arguments.dropFirst())
let helpWords: Set<String> = ["--help", "-h", "help"]
guard let name = args.first, !helpWords.contains(name) else {
    // `roadsnap help COMMAND` is `roadsnap COMMAND --help`.
    if args.count > 1, let c = subcommands.first(where: { $0.spec.name == args[1] }) {
        writeStdout(c.spec.help)
        exit(0)
    }
    if args.isEmpty { writeStderr(overview()); exit(2) }
    writeStdout(overview())
    exit(0)
}
guard let command = subcommands.first(where: { $0.spec.name == name }) else {
    var message = "roadsnap: unknown command '\(name)'"
    if let near = suggestion(for: name, among: subcommands.map(\.spec.name)) { message += "; did you mean '\(near)'?" }
    writeStderr(message + " (roadsnap --help lists the commands)\n")
    exit(2)
}
let rest = Array(args.dropFirst())
if rest.contains(where: { helpWords.contains($0) && $0 != "help" }) {
    writeStdout(command.spec.help)
    exit(0)
}
do {
    exit(try command.run(rest))
} catch RoadSnapError.invalidArgument(let message) {
    writeStderr("roadsnap \(name): \(message)\nusage: \(command.spec.usage)\n")
    exit(2)
} catch {
    writeStderr("roadsnap \(name): \(error)\n")
    exit(1)
}
