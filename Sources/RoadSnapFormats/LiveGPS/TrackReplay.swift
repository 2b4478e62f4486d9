import RoadSnapCore

#if canImport(Glibc)
import Glibc
#endif

/// Replays a recorded track (GPX, NMEA, CSV, GeoJSON) as a live fix source: at its recorded pace divided by
/// `speedup` (1 = real time), or as fast as it is read when `speedup` is infinite.
public final class TrackReplay: RawFixSource {
    /// The clock a replay is paced by: a monotonic reading in seconds and a sleep.
    public struct Pacer: Sendable {
        public let now: @Sendable () -> Double
        public let sleep: @Sendable (Double) -> Void

        public init(now: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (Double) -> Void) {
            self.now = now
            self.sleep = sleep
        }

        /// The machine's monotonic clock and `nanosleep`.
        public static let wallClock = Pacer(now: TrackReplay.monotonic, sleep: TrackReplay.sleep(seconds:))
    }

    public let track: Track
    public let speedup: Double
    private let pacer: Pacer
    private var index = 0
    private var startWall: Double?
    private var startTrackTime: Double?

    public init(track: Track, speedup: Double = 1, pacer: Pacer = .wallClock) throws(RoadSnapError) {
        guard speedup > 0 else { throw .invalidArgument("replay speed-up must be > 0, got \(speedup)") }
        self.track = track
        self.speedup = speedup
        self.pacer = pacer
    }

    /// Reads the file with `TrackReader` (format from the extension or the content).
    public convenience init(path: String, speedup: Double = 1) throws(RoadSnapError) {
        try self.init(track: try TrackReader.read(path: path), speedup: speedup)
    }

    public func nextFix() throws(RoadSnapError) -> Fix? {
        guard index < track.fixes.count else { return nil }
        let fix = track.fixes[index]
        index += 1
        if speedup.isFinite, let t = fix.time {
            let wall = pacer.now()
            if let s = startWall, let t0 = startTrackTime {
                let due = s + (t - t0) / speedup
                if due > wall { pacer.sleep(due - wall) }
            } else {
                startWall = wall
                startTrackTime = t
            }
        }
        return fix
    }

    @Sendable static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    @Sendable static func sleep(seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}
