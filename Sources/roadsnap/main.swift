import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// One `roadsnap` subcommand: its usage line and its entry point (arguments after the subcommand name).
struct Subcommand: Sendable {
    let name: String
    let usage: String
    let run: @Sendable ([String]) throws -> Int32
}

let subcommands: [Subcommand] = [
    Subcommand(name: "info", usage: "roadsnap info --map MAP", run: InfoCommand.run),
    Subcommand(name: "compile", usage: CompileCommand.usage, run: CompileCommand.run),
    Subcommand(name: "snap", usage: "roadsnap snap --map MAP [--radius M] [--format csv|geojson] [--out FILE] TRACK",
               run: SnapCommand.run),
    Subcommand(name: "match", usage: MatchCommand.usage, run: MatchCommand.run),
    Subcommand(name: "eval", usage: EvalCommand.usage, run: EvalCommand.run),
    Subcommand(name: "route", usage: RouteCommand.usage, run: RouteCommand.run),
    Subcommand(name: "navigate", usage: NavigateCommand.usage, run: NavigateCommand.run),
    Subcommand(name: "render", usage: RenderCommand.usage, run: RenderCommand.run),
    Subcommand(name: "icons", usage: IconsCommand.usage, run: IconsCommand.run),
]

func printUsage() {
    var s = "usage:\n"
    for c in subcommands { s += "  \(c.usage)\n" }
    writeStderr(s)
}

let args = Array(CommandLine.arguments.dropFirst())
guard let name = args.first, let command = subcommands.first(where: { $0.name == name }) else {
    printUsage()
    exit(args.first == "--help" || args.first == "-h" ? 0 : 2)
}
do {
    exit(try command.run(Array(args.dropFirst())))
} catch {
    writeStderr("roadsnap \(name): \(error)\n")
    exit(1)
}
