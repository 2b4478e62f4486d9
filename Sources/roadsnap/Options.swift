import RoadSnapCore

#if canImport(Glibc)
import Glibc
#endif

/// Writes text to standard error.
func writeStderr(_ s: String) { writeAll(2, s) }

/// Writes text to standard output, unbuffered (one `write` loop, so lines from several threads do not mix).
func writeStdout(_ s: String) { writeAll(1, s) }

/// Writes all of `s` to `fd`, retrying partial writes and EINTR; gives up silently on other errors (a closed pipe).
func writeAll(_ fd: Int32, _ s: String) {
    var s = s
    s.withUTF8 { b in
        var done = 0
        while done < b.count {
            let n = write(fd, b.baseAddress! + done, b.count - done)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return }
            done += n
        }
    }
}

/// Minimal `--flag value` parser: repeated flags keep every value; bare words are positionals.
struct Options {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    /// `booleans` are flags that take no value.
    init(_ args: [String], booleans: Set<String> = []) throws(RoadSnapError) {
        var i = 0
        while i < args.count {
            let a = args[i]
            if a.hasPrefix("--") {
                let key = String(a.dropFirst(2))
                if let eq = key.firstIndex(of: "=") {
                    values[String(key[..<eq]), default: []].append(String(key[key.index(after: eq)...]))
                } else if booleans.contains(key) {
                    flags.insert(key)
                } else {
                    guard i + 1 < args.count else { throw .invalidArgument("--\(key) needs a value") }
                    values[key, default: []].append(args[i + 1])
                    i += 1
                }
            } else {
                positionals.append(a)
            }
            i += 1
        }
    }

    func string(_ key: String) -> String? { values[key]?.last }
    func all(_ key: String) -> [String] { values[key] ?? [] }

    func require(_ key: String) throws(RoadSnapError) -> String {
        guard let v = string(key) else { throw .invalidArgument("--\(key) is required") }
        return v
    }

    func double(_ key: String, default d: Double) throws(RoadSnapError) -> Double {
        guard let s = string(key) else { return d }
        guard let v = Double(s), v.isFinite else { throw .invalidArgument("--\(key) expects a number, got '\(s)'") }
        return v
    }

    func int(_ key: String, default d: Int) throws(RoadSnapError) -> Int {
        guard let s = string(key) else { return d }
        guard let v = Int(s) else { throw .invalidArgument("--\(key) expects an integer, got '\(s)'") }
        return v
    }

    /// Parses `LAT,LON` (spaces around either number allowed: "47.58, -122.11").
    static func coordinate(_ s: String, flag: String) throws(RoadSnapError) -> GeoCoordinate {
        let parts = s.split(separator: ",", omittingEmptySubsequences: false).map { String($0.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed()) }
        guard parts.count == 2, let la = Double(parts[0]), let lo = Double(parts[1]) else {
            throw .invalidArgument("--\(flag) expects LAT,LON, got '\(s)'")
        }
        return try GeoCoordinate(latitude: la, longitude: lo)
    }
}

/// Seconds on a monotonic clock.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
