import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import RoadSnapCore
import RoadSnapFormats

/// `roadsnap match --input ndjson --format ndjson`: tracks from standard input, one JSON object per line, results to
/// standard output, one line per track in input order. Memory stays flat: at most `window` lines (read ahead by the
/// workers, or finished and waiting for an earlier one) are held at once. A bad line gives an error line; the stream
/// goes on.
enum MatchStreamCommand {
    /// Shared state of the stream; every field is guarded by `lock`.
    final class Stream: @unchecked Sendable {
        let lock = Locked(())
        var reader: LineReader
        var readError: RoadSnapError?
        /// Finished results not yet written, by sequence number.
        var pending: [Int: [UInt8]] = [:]
        var nextOut = 0
        var buffer: [UInt8] = []
        var writeFailed: Int32 = 0
        var tracks = 0, failed = 0, fixes = 0, matched = 0, skipped = 0, matchSeconds = 0.0

        init(reader: consuming LineReader) { self.reader = reader }

        /// Writes the results at the head of the input order (lock held); flushes the buffer past 256 KB.
        func flushInOrder(window: DispatchSemaphore) {
            while let line = pending.removeValue(forKey: nextOut) {
                buffer.append(contentsOf: line)
                nextOut += 1
                window.signal()
            }
            if buffer.count >= 1 << 18 { flush() }
        }

        func flush() {
            guard writeFailed == 0 else { buffer.removeAll(); return }
            var done = 0
            buffer.withUnsafeBytes { b in
                while done < b.count {
                    let n = write(1, b.baseAddress! + done, b.count - done)
                    if n < 0, errno == EINTR { continue }
                    if n <= 0 { writeFailed = n < 0 ? errno : EIO; return }
                    done += n
                }
            }
            buffer.removeAll(keepingCapacity: true)
        }
    }

    static func run(opts: Options, mapPath: String, params: MatchParameters, autoSigma: Bool) throws -> Int32 {
        let input = opts.string("input") ?? "ndjson"
        guard input == "ndjson" else {
            throw RoadSnapError.invalidArgument("--input must be ndjson (tracks on standard input), got '\(input)'")
        }
        let formatName = opts.string("format") ?? "ndjson"
        guard formatName == "ndjson" else {
            throw RoadSnapError.invalidArgument("--input ndjson writes --format ndjson, got '\(formatName)'")
        }
        guard opts.positionals.isEmpty || opts.positionals == ["-"], opts.string("out") == nil,
              opts.string("list") == nil
        else {
            throw RoadSnapError.invalidArgument(
                "--input ndjson reads the tracks from standard input and writes to standard output: no TRACK, --out or --list")
        }
        let geometryName = opts.string("geometry") ?? "polyline6"
        guard let geometry = NDJSONMatchOutput.Geometry(rawValue: geometryName) else {
            throw RoadSnapError.invalidArgument("--geometry must be polyline, polyline6 or coordinates, got '\(geometryName)'")
        }
        let perFixText = opts.string("per-fix") ?? "yes"
        guard perFixText == "yes" || perFixText == "no" else {
            throw RoadSnapError.invalidArgument("--per-fix must be yes or no, got '\(perFixText)'")
        }
        let perFix = perFixText == "yes"
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let jobs = try opts.int("jobs", default: cores, atLeast: 1)
        guard jobs >= 1 else { throw RoadSnapError.invalidArgument("--jobs must be at least 1, got \(jobs)") }
        let network = try MapLoader.load(path: mapPath)
        let graph = try MatchGraph(network: network)

        // Lines in flight (read and not yet written): bounded, so memory does not grow with the input.
        let windowSize = 2 * jobs
        let window = DispatchSemaphore(value: windowSize)
        let stream = Stream(reader: LineReader(descriptor: 0, name: "stdin"))
        let t0 = monotonicSeconds()
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            let matcher: MapMatcher?
            var setupError: RoadSnapError?
            do { matcher = try MapMatcher(network: network, graph: graph, parameters: params) } catch {
                matcher = nil
                setupError = (error as? RoadSnapError) ?? .invalidArgument("\(error)")
            }
            while true {
                window.wait()
                typealias Taken = (seq: Int, number: Int, bytes: [UInt8])
                let next = stream.lock.withLock { _ -> Taken? in
                    guard stream.readError == nil else { return nil }
                    do throws(RoadSnapError) {
                        guard let bytes = try stream.reader.next() else { return nil }
                        let number = stream.reader.lineNumber
                        return Taken(seq: number - 1, number: number, bytes: bytes)
                    } catch {
                        stream.readError = error
                        return nil
                    }
                }
                guard let (seq, number, bytes) = next else {
                    window.signal()
                    break
                }
                var o = Outcome()
                if bytes.allSatisfy({ $0 == 32 || $0 == 9 }) {
                    o.text = []  // a blank line: no result
                } else if let matcher {
                    o = matchLine(bytes, number: number, matcher: matcher, autoSigma: autoSigma, defaults: params,
                                  geometry: geometry, perFix: perFix)
                } else if let setupError {
                    o.text = NDJSONMatchOutput.errorLine(id: NDJSONTrackReader.scanID(bytes), line: number,
                                                         error: setupError)
                    o.failed = true
                }
                stream.lock.withLock { _ in
                    stream.pending[seq] = o.text
                    if !o.text.isEmpty { stream.tracks += 1 }
                    if o.failed { stream.failed += 1 }
                    stream.fixes += o.fixes
                    stream.matched += o.matched
                    stream.skipped += o.skipped
                    stream.matchSeconds += o.matchSeconds
                    stream.flushInOrder(window: window)
                }
            }
        }
        stream.lock.withLock { _ in stream.flush() }
        let seconds = monotonicSeconds() - t0
        if let error = stream.readError { throw error }
        if stream.writeFailed != 0 {
            throw RoadSnapError.unreadableFile(path: "standard output",
                                               reason: "write failed: \(String(cString: strerror(stream.writeFailed)))")
        }
        var summary = "tracks: \(stream.tracks - stream.failed) done, \(stream.failed) failed (error lines in the output)\n"
        summary += "fixes: \(stream.fixes), matched \(stream.matched), skipped rows: \(stream.skipped)\n"
        summary += "speed: \(format(stream.matchSeconds > 0 ? Double(stream.fixes) / stream.matchSeconds : 0, 0)) fixes/s"
            + " per thread matching; \(format(seconds > 0 ? Double(stream.fixes) / seconds : 0, 0)) fixes/s overall on"
            + " \(jobs) thread(s) (\(format(seconds, 2)) s incl. reading and writing)\n"
        writeStderr(summary)
        return stream.failed > 0 ? 1 : 0
    }

    /// What became of one line.
    struct Outcome {
        var text: [UInt8] = []
        var failed = false
        var fixes = 0, matched = 0, skipped = 0
        var matchSeconds = 0.0
    }

    /// Reads, matches and renders one input line; never throws (a problem is an error line).
    static func matchLine(_ bytes: [UInt8], number: Int, matcher: MapMatcher, autoSigma: Bool,
                          defaults: MatchParameters, geometry: NDJSONMatchOutput.Geometry, perFix: Bool) -> Outcome
    {
        var o = Outcome()
        switch NDJSONTrackReader.read(line: bytes, number: number, source: "stdin") {
        case let .failure(idJSON, error):
            o.failed = true
            o.text = NDJSONMatchOutput.errorLine(id: idJSON, line: number, error: error)
        case let .track(line):
            let track = line.track
            o.skipped = track.skipped.count
            do {
                matcher.parameters = defaults
                if autoSigma, let s = try matcher.estimateSigma(track) { matcher.parameters.sigma = s }
                let t0 = monotonicSeconds()
                let result = try matcher.match(track)
                o.matchSeconds = monotonicSeconds() - t0
                o.fixes = track.fixes.count
                o.matched = result.matchedCount
                o.text = NDJSONMatchOutput.line(id: line.idJSON ?? "null", line: number, result: result, track: track,
                                                network: matcher.network, geometry: geometry, perFix: perFix)
            } catch {
                o.failed = true
                o.text = NDJSONMatchOutput.errorLine(id: line.idJSON, line: number, error: error, skippedFrom: track)
            }
        }
        return o
    }
}
