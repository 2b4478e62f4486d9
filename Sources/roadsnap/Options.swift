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

/// `--flag value` parser checked against a command's flags: repeated flags keep every value; bare words are operands.
struct Options {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    let spec: CommandSpec

    /// Parses `args` (after the subcommand name); an unknown flag, a missing value or an unexpected operand throws.
    init(_ args: [String], spec: CommandSpec) throws(RoadSnapError) {
        self.spec = spec
        let command = "roadsnap \(spec.name)"
        var i = 0
        while i < args.count {
            let a = args[i]
            if a.hasPrefix("--"), a.count > 2 {
                var key = String(a.dropFirst(2))
                var inline: String? = nil
                if let eq = key.firstIndex(of: "=") {
                    inline = String(key[key.index(after: eq)...])
                    key = String(key[..<eq])
                }
                guard let flag = spec.flag(named: key) else {
                    var message = "unknown flag --\(key) for \(command)"
                    if let near = suggestion(for: key, among: spec.flags.map(\.name)) {
                        message += "; did you mean --\(near)?"
                    }
                    throw .invalidArgument(message + " (\(command) --help lists its flags)")
                }
                if flag.value == nil {
                    guard inline == nil else { throw .invalidArgument("--\(key) takes no value (got '\(inline ?? "")')") }
                    flags.insert(key)
                } else {
                    let value: String
                    if let inline {
                        value = inline
                    } else {
                        guard i + 1 < args.count, !(args[i + 1].hasPrefix("--") && args[i + 1].count > 2) else {
                            throw .invalidArgument("--\(key) needs a value: --\(key) \(flag.value ?? "")")
                        }
                        value = args[i + 1]
                        i += 1
                    }
                    if !flag.repeats, let earlier = values[key]?.first {
                        throw .invalidArgument("--\(key) is given twice ('\(earlier)' and '\(value)'); give it once")
                    }
                    values[key, default: []].append(value)
                }
            } else {
                guard spec.operands != nil else {
                    throw .invalidArgument("unexpected argument '\(a)': \(command) takes only flags "
                                           + "(\(command) --help lists them)")
                }
                positionals.append(a)
            }
            i += 1
        }
    }

    /// The value of `--key`, if given. `key` must be one of the command's flags.
    func string(_ key: String) -> String? {
        assert(spec.flag(named: key)?.value != nil, "--\(key) is not a valued flag of roadsnap \(spec.name)")
        return values[key]?.last
    }

    /// Every value given for a repeatable `--key`.
    func all(_ key: String) -> [String] {
        assert(spec.flag(named: key)?.repeats == true, "--\(key) is not a repeatable flag of roadsnap \(spec.name)")
        return values[key] ?? []
    }

    /// True when the switch `--key` was given.
    func isSet(_ key: String) -> Bool {
        assert(spec.flag(named: key).map { $0.value == nil } == true, "--\(key) is not a switch of roadsnap \(spec.name)")
        return flags.contains(key)
    }

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

    /// Parses `LAT,LON`.
    static func coordinate(_ s: String, flag: String) throws(RoadSnapError) -> GeoCoordinate {
        let parts = s.split(separator: ",")
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
