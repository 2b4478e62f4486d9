import RoadSnapCore
import RoadSnapFormats

/// `roadsnap snap --map MAP [--radius M] [--format csv|geojson] [--out FILE] TRACK`: one result per fix.
enum SnapCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let opts = try Options(args, spec: CommandSpecs.snap)
        returnBigAllocationsToTheSystem()
        let mapPath = try opts.require("map")
        let radius = try opts.double("radius", default: Snapper.defaultRadius)
        guard radius > 0 else { throw RoadSnapError.invalidArgument("--radius must be positive") }
        let formatName = opts.string("format") ?? "csv"
        guard let outputFormat = SnapOutput.Format(rawValue: formatName) else {
            throw RoadSnapError.invalidArgument("--format must be csv or geojson, got '\(formatName)'")
        }
        guard opts.positionals.count == 1, let trackPath = opts.positionals.first else {
            throw RoadSnapError.invalidArgument("give exactly one TRACK file (GPX or CSV)")
        }
        let network = try loadMap(mapPath, command: "snap")
        let track = try TrackReader.read(path: trackPath)
        for problem in track.skipped { writeStderr("roadsnap snap: skipped \(problem)\n") }
        let snapper = try Snapper(network: network)
        let t0 = monotonicSeconds()
        let results = try snapper.snap(track.fixes, radius: radius)
        let seconds = monotonicSeconds() - t0
        // Streamed in chunks: a big track's output is never held whole (issue 16, item 11).
        let render = { (out: ChunkedOutput) in
            SnapOutput.write(track: track, results: results, network: network, format: outputFormat, into: out)
        }
        if let out = opts.string("out") {
            try AtomicFile.stream(to: out, render)
        } else {
            // through the CLI's one standard-output writer (a failed write makes the command exit 1)
            let out = ChunkedOutput { bytes in writeStdout(String(decoding: bytes, as: UTF8.self)) }
            render(out)
            try out.finish()
        }
        let distances = results.compactMap { $0?.distance }.sorted()
        let n = track.fixes.count
        let mean = distances.isEmpty ? 0 : distances.reduce(0, +) / Double(distances.count)
        let p95 = distances.isEmpty ? 0 : distances[min(distances.count - 1, Int(Double(distances.count) * 0.95))]
        var summary = "fixes: \(n) (skipped rows: \(track.skipped.count))\n"
        summary += "snapped: \(distances.count) (\(format(n == 0 ? 0 : 100 * Double(distances.count) / Double(n), 1))%)\n"
        summary += "distance to road: mean \(format(mean, 2)) m, p95 \(format(p95, 2)) m\n"
        summary += "speed: \(format(seconds > 0 ? Double(n) / seconds : 0, 0)) fixes/s (one thread, incl. projection)\n"
        if let out = opts.string("out") { summary += "wrote \(out)\n" }
        writeStderr(summary)
        return 0
    }
}
