import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import RoadSnapCore
import RoadSnapFormats

/// `roadsnap match`: map-matches many tracks in parallel, one output per track, a summary on stderr.
enum MatchCommand {
    /// What became of one track.
    struct Outcome: Sendable {
        var fixes = 0, matched = 0, subMatches = 0
        /// Seconds spent in the match call alone.
        var matchSeconds = 0.0
        var text: String? = nil
        var error: String? = nil
        /// Input rows left out while reading the track ("FILE:LINE: reason"), as `snap` reports them.
        var skipped: [String] = []
    }

    /// Shared progress of a batch; every field is guarded by `lock`.
    final class Batch: @unchecked Sendable {
        let lock = Locked(())  // a pthread mutex ThreadSanitizer sees (it cannot see Swift's Mutex on Linux)
        var next = 0
        var done = 0
        var fixes = 0
        var outcomes: [Outcome]
        var finished: [Bool]
        /// Outcomes before this index have been written to standard output (in input order) and dropped.
        var printed = 0
        var lastDraw = 0.0
        init(count: Int) {
            outcomes = [Outcome](repeating: Outcome(), count: count)
            finished = [Bool](repeating: false, count: count)
        }

        /// Writes the texts of the finished tracks at the head of the input order and frees them (lock held).
        func flushInOrder() {
            while printed < outcomes.count, finished[printed] {
                if let text = outcomes[printed].text {
                    writeStdout(text)
                    outcomes[printed].text = nil
                }
                printed += 1
            }
        }
    }

    static func run(_ args: [String]) throws -> Int32 {
        let opts = try Options(args, spec: CommandSpecs.match)
        returnBigAllocationsToTheSystem()
        let mapPath = try opts.require("map")
        var params = MatchParameters()
        let sigmaText = opts.string("sigma")
        let autoSigma = sigmaText == "auto"
        params.chooseSigma(given: autoSigma || sigmaText == nil ? nil : try opts.double("sigma", default: params.sigma),
                           fromTrack: autoSigma)
        params.beta = try opts.double("beta", default: params.beta)
        params.radius = try opts.double("radius", default: params.radius)
        params.maxCandidates = try opts.int("candidates", default: params.maxCandidates)
        params.maxGap = try opts.double("max-gap", default: params.maxGap)
        if opts.string("min-fix-distance") != nil { params.minFixDistance = try opts.double("min-fix-distance", default: 0) }
        params.maxOutliers = try opts.int("max-outliers", default: params.maxOutliers)
        params.outlierWindow = try opts.double("outlier-window", default: params.outlierWindow)
        params.offRoadSigmas = try opts.double("off-road", default: params.offRoadSigmas)
        try params.validate()
        if opts.string("input") != nil || opts.string("format") == "ndjson" {
            return try MatchStreamCommand.run(opts: opts, mapPath: mapPath, params: params, autoSigma: autoSigma)
        }
        let formatName = opts.string("format") ?? "geojson"
        guard let outputFormat = MatchOutput.Format(rawValue: formatName) else {
            throw RoadSnapError.invalidArgument("--format must be geojson, csv, gpx, osrm or html, got '\(formatName)'")
        }
        let paths = try trackPaths(opts.positionals, list: opts.string("list"))
        guard !paths.isEmpty else {
            throw RoadSnapError.invalidArgument("give at least one TRACK file or directory of tracks (or - for stdin)")
        }
        guard paths.filter({ $0 == "-" }).count <= 1 else {
            throw RoadSnapError.invalidArgument("standard input (-) can be read only once")
        }
        let outDir = opts.string("out")
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let jobs = min(try opts.int("jobs", default: cores, atLeast: 1), paths.count)
        let outputs = outputNames(paths, dir: outDir, ext: outputFormat.fileExtension)
        let defaults = params

        let network = try loadMap(mapPath, command: "match")
        let graph = try MatchGraph(network: network)
        // the HTML report's picture draws water and buildings where the map file has them (OSM files)
        let areas = outputFormat == .html ? try MapAreas.load(path: mapPath) : nil
        let batch = Batch(count: paths.count)
        let terminal = isatty(2) != 0
        CrashNote.install(prefix: "roadsnap match: crashed while matching ")
        let t0 = monotonicSeconds()
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            let matcher: MapMatcher
            do { matcher = try MapMatcher(network: network, graph: graph, parameters: defaults) } catch {
                batch.lock.withLock { _ in
                    while batch.next < paths.count {
                        batch.outcomes[batch.next].error = "\(paths[batch.next]): \(error)"
                        batch.next += 1
                        batch.done += 1
                    }
                }
                return
            }
            while true {
                let i = batch.lock.withLock { _ in
                    let i = batch.next
                    batch.next += 1
                    return i
                }
                if i >= paths.count { break }
                let outcome = matchOne(path: paths[i], output: outputs[i], matcher: matcher,
                                       defaults: defaults, format: outputFormat, areas: areas)
                batch.lock.withLock { _ in
                    batch.outcomes[i] = outcome
                    batch.finished[i] = true
                    if outDir == nil { batch.flushInOrder() }
                    batch.done += 1
                    batch.fixes += outcome.fixes
                    if terminal { drawProgress(batch, total: paths.count, start: t0) }
                }
            }
        }
        let seconds = monotonicSeconds() - t0
        if terminal { writeStderr("\r\u{1B}[K") }

        var failed = 0, fixes = 0, matched = 0, subs = 0, matchSeconds = 0.0, skipped = 0
        for o in batch.outcomes {
            for problem in o.skipped { writeStderr("roadsnap match: skipped \(problem)\n") }
            skipped += o.skipped.count
            if let e = o.error {
                failed += 1
                writeStderr("roadsnap match: \(e)\n")
                continue
            }
            fixes += o.fixes; matched += o.matched; subs += o.subMatches; matchSeconds += o.matchSeconds
        }
        var summary = "tracks: \(paths.count - failed) done, \(failed) failed\n"
        summary += "fixes: \(fixes), matched \(matched) (\(format1(fixes == 0 ? 0 : 100 * Double(matched) / Double(fixes)))%)\n"
        summary += "sub-matches: \(subs)\n"
        if skipped > 0 { summary += "skipped rows: \(skipped) (listed above; fix_index keeps the input row)\n" }
        summary += "speed: \(format(matchSeconds > 0 ? Double(fixes) / matchSeconds : 0, 0)) fixes/s per thread matching;"
            + " \(format(seconds > 0 ? Double(fixes) / seconds : 0, 0)) fixes/s overall on \(jobs) thread(s)"
            + " (\(format(seconds, 2)) s incl. reading and writing)\n"
        if let outDir { summary += "wrote \(paths.count - failed) file(s) to \(outDir)\n" }
        writeStderr(summary)
        return failed > 0 ? 1 : 0
    }

    static func format1(_ v: Double) -> String { format(v, 1) }

    /// Whether a file found in a directory argument is a track: an extension naming a track format, or a `.txt` /
    /// `.log` file whose content tells.
    static func isTrackFile(_ name: String) -> Bool {
        if TrackFormat.fromExtension(name) != nil { return true }
        return name.lowercased().hasSuffix(".txt") || name.lowercased().hasSuffix(".log")
    }

    /// The tracks to match: each argument as given (`-` is standard input), a directory as every track file under
    /// it in sorted order, then the paths listed one per line in `list` (blank lines and `#` comments skipped).
    static func trackPaths(_ arguments: [String], list: String?) throws -> [String] {
        var paths: [String] = []
        for a in arguments {
            guard a != "-", FileIO.isDirectory(a) else {
                paths.append(a)
                continue
            }
            let found = try FileIO.regularFiles(under: a).filter { relative in
                isTrackFile(relative.split(separator: "/").last.map(String.init) ?? relative)
            }
            if found.isEmpty {
                throw RoadSnapError.invalidArgument("\(a): no track files (.gpx, .nmea, .csv, .geojson, .json, .txt) in it")
            }
            paths += found.map { a.hasSuffix("/") ? a + $0 : a + "/" + $0 }.sorted()
        }
        if let list {
            let bytes: [UInt8]
            do { bytes = try FileIO.read(path: list) } catch {
                throw RoadSnapError.unreadableFile(path: list, reason: "the track list cannot be read")
            }
            for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
                let path = line.trimmingPrefix(while: { $0 == " " || $0 == "\t" })
                let trimmed = String(path.reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
                if !trimmed.isEmpty, !trimmed.hasPrefix("#") { paths.append(trimmed) }
            }
        }
        return paths
    }

    /// Reads, matches and writes one track; never throws (errors become the outcome's message).
    static func matchOne(path: String, output: String?, matcher: MapMatcher, defaults: MatchParameters,
                         format: MatchOutput.Format, areas: MapAreas? = nil) -> Outcome
    {
        var o = Outcome()
        CrashNote.set(path)
        defer { CrashNote.set(nil) }
        do {
            let track = try TrackReader.read(path: path)
            o.skipped = track.skipped.map { "\($0)" }
            matcher.parameters = defaults
            let t0 = monotonicSeconds()
            let result = try matcher.match(track)
            o.matchSeconds = monotonicSeconds() - t0
            o.fixes = track.fixes.count
            o.matched = result.matchedCount
            o.subMatches = result.subMatches.count
            if let output {
                // Streamed in chunks: a big track's output is never held whole (issue 16, item 11).
                try MatchOutput.write(result, track: track, network: matcher.network, format: format, areas: areas,
                                      to: output)
            } else {
                o.text = MatchOutput.render(result, track: track, network: matcher.network, format: format,
                                            areas: areas)
            }
        } catch {
            o.error = "\(error)".hasPrefix(path) ? "\(error)" : "\(path): \(error)"
        }
        return o
    }

    /// One output file per track in `dir` (nil: standard output): the track's file name with the format's extension,
    /// numbered when two tracks share a name.
    static func outputNames(_ paths: [String], dir: String?, ext: String) -> [String?] {
        guard let dir else { return paths.map { _ in nil } }
        var used: [String: Int] = [:]
        return paths.map { p in
            var base = p == "-" ? "stdin" : String(p.split(separator: "/").last ?? "track")
            if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = String(base[..<dot]) }
            let n = (used[base] ?? 0) + 1
            used[base] = n
            let name = n == 1 ? base : "\(base)-\(n)"
            return dir + "/" + name + ".matched." + ext
        }
    }

    /// Progress bar on stderr (called with the batch lock held): tracks, fixes/s, ETA.
    static func drawProgress(_ b: Batch, total: Int, start: Double) {
        let now = monotonicSeconds()
        guard b.done == total || now - b.lastDraw > 0.1 else { return }
        b.lastDraw = now
        let elapsed = max(now - start, 1e-9)
        let bar = progressBar(total == 0 ? 1 : Double(b.done) / Double(total))
        let eta = b.done == 0 ? 0 : elapsed / Double(b.done) * Double(total - b.done)
        writeStderr("\r\(bar) \(b.done)/\(total) tracks, \(format(Double(b.fixes) / elapsed, 0)) fixes/s, ETA \(format(eta, 0)) s")
    }
}
