import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// `roadsnap compile --map MAP --out FILE.rsmap [--progress] [--no-routing]`: reads a map and writes the compiled
/// map (network, segment index, matching graph and the default routing hierarchy) that opens in milliseconds.
enum CompileCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let opts = try Options(args, spec: CommandSpecs.compile)
        let path = try opts.require("map")
        let out = try opts.require("out")
        // A write beyond a file-size limit must fail the write (and be reported), not kill the process.
        signal(SIGXFSZ, SIG_IGN)
        let showProgress = opts.isSet("progress")
        let t0 = monotonicSeconds()
        if showProgress { writeStderr("reading \(path)\n") }
        let network = try MapLoader.load(path: path)
        if network.sourceName != path || CompiledMap.source(of: network) != nil {
            throw RoadSnapError.invalidArgument("\(path) is already a compiled map; compile from the source map")
        }
        let t1 = monotonicSeconds()
        let bar = PhaseProgress()
        let control = BuildControl(progress: showProgress ? { @Sendable p in
            bar.report(phase: p.phase, fraction: p.fraction)
        } : nil)
        defer { bar.finish() }
        try CompiledMap.compile(network, to: out, sourcePath: path, routing: !opts.isSet("no-routing"),
                                control: control)
        let t2 = monotonicSeconds()
        var size = stat()
        let bytes = stat(out, &size) == 0 ? Int(size.st_size) : 0
        print("compiled \(path) -> \(out): \(network.edges.count) edges, \(bytes) bytes "
            + "(\(format(Double(bytes) / Double(max(1, network.edges.count)), 0)) bytes/edge); "
            + "read \(format(t1 - t0, 2)) s, compile \(format(t2 - t1, 2)) s")
        return 0
    }
}
