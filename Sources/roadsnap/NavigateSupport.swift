import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// What `roadsnap navigate` checks and sets up around the session: coordinates against the map, the navigator's
/// options from flags, spoken prompts as WAV files, and a progress line for replays.
enum NavigateSupport {
    /// Degrees a coordinate may lie outside the map's bounding box (a destination just past the extract's edge).
    static let boundsMargin = 0.02

    /// Checks a `--flag LAT,LON` coordinate lies on the map: one that is outside but would be inside with latitude
    /// and longitude swapped says so, one that is simply outside names the map's extent.
    static func check(_ c: GeoCoordinate, flag: String, bounds b: GeoBoundingBox) throws(RoadSnapError) {
        func inside(_ lat: Double, _ lon: Double) -> Bool {
            lat >= b.minLatitude - boundsMargin && lat <= b.maxLatitude + boundsMargin
                && lon >= b.minLongitude - boundsMargin && lon <= b.maxLongitude + boundsMargin
        }
        if inside(c.latitude, c.longitude) { return }
        let extent = "latitude \(b.minLatitude)...\(b.maxLatitude), longitude \(b.minLongitude)...\(b.maxLongitude)"
        if inside(c.longitude, c.latitude) {
            throw .invalidArgument("--\(flag) \(c.latitude),\(c.longitude) looks swapped (LON,LAT): the map covers "
                + "\(extent); did you mean --\(flag) \(c.longitude),\(c.latitude)?")
        }
        throw .invalidArgument("--\(flag) \(c.latitude),\(c.longitude) lies outside the map (\(extent))")
    }

    /// `"A,B,C"` as numbers (`count` of them) for `--flag`.
    static func numbers(_ s: String, count: Int, flag: String, form: String) throws(RoadSnapError) -> [Double] {
        let parts = s.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
        guard parts.count == count, parts.allSatisfy({ $0?.isFinite == true }) else {
            throw .invalidArgument("--\(flag) expects \(form), got '\(s)'")
        }
        return parts.map { $0 ?? 0 }
    }

    /// Applies the navigator flags: thresholds, arrival radius, speed alerts, prompt units.
    static func configure(_ navigator: Navigator, _ opts: Options) throws(RoadSnapError) {
        if opts.string("time-threshold") != nil {
            navigator.timeUpdateThreshold = try positive(opts, "time-threshold")
        }
        if opts.string("distance-threshold") != nil {
            navigator.distanceUpdateThreshold = try positive(opts, "distance-threshold")
        }
        if opts.string("arrival-radius") != nil {
            navigator.guidanceOptions.arrivalRadius = try positive(opts, "arrival-radius")
        }
        if let s = opts.string("speed-alert") {
            let v = try numbers(s, count: 3, flag: "speed-alert", form: "MINOR%,MAJOR%,SECONDS (e.g. 10,25,5)")
            navigator.speedAlertOptions = try SpeedAlertOptions(minorSpeedingThresholdPercentage: v[0],
                                                                majorSpeedingThresholdPercentage: v[1],
                                                                severityUpgradeDurationSeconds: v[2])
        }
        if let u = opts.string("units") {
            switch u {
            case "metric": navigator.announcementOptions.units = .metric
            case "imperial": navigator.announcementOptions.units = .imperial
            case "uk", "imperial-yards": navigator.announcementOptions.units = .imperialYards
            default: throw .invalidArgument("--units expects metric, imperial or uk, got '\(u)'")
            }
        }
    }

    private static func positive(_ opts: Options, _ key: String) throws(RoadSnapError) -> Double {
        let v = try opts.double(key, default: 0)
        guard v > 0 else { throw .invalidArgument("--\(key) must be > 0, got \(v)") }
        return v
    }

    /// Checks `espeak-ng` can be started and `dir` is a writable directory (before the drive starts).
    static func checkSpeaker(dir: String) throws(RoadSnapError) {
        var st = stat()
        guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, access(dir, W_OK) == 0 else {
            throw .invalidArgument("--speak \(dir): not a writable directory")
        }
        guard run(["espeak-ng", "--version"], quiet: true) == 0 else {
            throw .invalidArgument("--speak needs espeak-ng (Debian: apt-get install espeak-ng)")
        }
    }

    /// Speaks `a` into `dir/announcement-<milliseconds since 1970>-<kind>.wav` through espeak-ng (written to a
    /// temporary name, then renamed). Returns the file's path, nil when espeak-ng failed.
    @discardableResult
    static func speak(_ a: Announcement, dir: String) -> String? {
        let name = "announcement-\(Int64((a.time * 1000).rounded()))-\(a.kind.rawValue).wav"
        let path = dir + "/" + name, temporary = dir + "/." + name + ".tmp"
        guard run(["espeak-ng", "-w", temporary, a.text], quiet: true) == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            writeStderr("roadsnap navigate: espeak-ng could not write \(path)\n")
            return nil
        }
        return path
    }

    /// Runs a program found on PATH and waits; its exit status, -1 when it could not be started.
    static func run(_ argv: [String], quiet: Bool) -> Int32 {
        var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for p in cargs { free(p) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if quiet {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var pid = pid_t()
        guard posix_spawnp(&pid, argv[0], &actions, nil, &cargs, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 { if errno != EINTR { return -1 } }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}

/// One line on a terminal's standard error during a replay, redrawn at most every half second: time replayed,
/// fixes fed, reroutes. Off when standard error is not a terminal.
final class ReplayProgress {
    private let enabled: Bool
    private var lastDraw = -Double.infinity
    private var firstTime: Double?

    init(enabled: Bool = isatty(2) != 0) { self.enabled = enabled }

    func report(fixTime: Double?, fixes: Int, reroutes: Int, force: Bool = false) {
        guard enabled else { return }
        if firstTime == nil { firstTime = fixTime }
        let now = monotonicSeconds()
        guard force || now - lastDraw >= 0.5 else { return }
        lastDraw = now
        writeStderr("\r\u{1B}[K" + Self.line(seconds: (fixTime ?? 0) - (firstTime ?? fixTime ?? 0), fixes: fixes,
                                            reroutes: reroutes) + (force ? "\n" : ""))
    }

    /// "replayed 0:12:34, 456 fixes, 2 reroutes".
    static func line(seconds: Double, fixes: Int, reroutes: Int) -> String {
        let s = max(0, Int(seconds.isFinite ? seconds : 0))
        let mm = (s / 60) % 60, ss = s % 60
        return "replayed \(s / 3600):\(mm < 10 ? "0" : "")\(mm):\(ss < 10 ? "0" : "")\(ss), \(fixes) fixes, "
            + "\(reroutes) reroute\(reroutes == 1 ? "" : "s")"
    }
}
