import CShims

/// Where the messages of the C libraries under RoadSnap (PROJ, GEOS, libosmium) go: one hook in CShims, set here.
/// Without a handler they are dropped (the failures they describe still surface as `RoadSnapError`s).
public enum NativeLog {
    /// Message levels, most severe first (the values of `rs_log_level`).
    public enum Level: Int32, Sendable {
        case error = 1, warning = 2, info = 3, debug = 4
    }

    /// Receives `(userData, level, source, message)`: `source` is "PROJ", "GEOS", "libosmium" or "RoadSnap"; both strings
    /// are valid during the call only. Called on the thread that logged.
    public typealias Handler = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?,
                                               UnsafePointer<CChar>?) -> Void

    /// Sends messages at `maxLevel` or more severe to `handler` (nil drops them). PROJ contexts made from now on
    /// (maps opened, snappers and matchers created) log at that level. Thread-safe.
    public static func setHandler(_ handler: Handler?, userData: UnsafeMutableRawPointer?, maxLevel: Level) {
        rsc_set_log_hook(handler, userData, maxLevel.rawValue)
    }

    /// Delivers one of RoadSnap's own messages (source "RoadSnap") to the handler, when one is set and `level` is
    /// delivered. Thread-safe.
    public static func log(_ level: Level, _ message: String) {
        rsc_log(level.rawValue, "RoadSnap", message)
    }
}
