import RoadSnapBridge

/// The one error type of RoadSnap: each case says what went wrong and what to fix.
public enum RoadSnapError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A file could not be opened or read.
    case unreadableFile(path: String, reason: String)
    /// A file or directory could not be created or written (disk full, no permission, a path through a file).
    case unwritableFile(path: String, reason: String)
    /// A map file is not a readable OSM or GeoJSON road network.
    case invalidMap(path: String, reason: String)
    /// A map was read but holds no road a car may drive on.
    case noDrivableRoads(path: String)
    /// A track file is malformed; `line` is 1-based where known.
    case invalidTrack(path: String, line: Int?, reason: String)
    /// One fix of a track is unusable (for example NaN or out-of-range coordinates); `index` is 0-based.
    case invalidFix(index: Int, reason: String)
    /// An argument or option is out of its valid range.
    case invalidArgument(String)
    /// PROJ failed to set up or apply a projection.
    case projection(String)
    /// GEOS failed to build or query an index.
    case geometry(String)
    /// Something that should not happen did; the message says where.
    case internalError(String)
    /// A long build (named in the message) was stopped through its `BuildCancellation`; nothing was built.
    case canceled(String)
    /// The gpsd daemon at `endpoint` (`host:port`) could not be reached, stopped answering, or sent what is not
    /// gpsd's JSON protocol; `line` is the 1-based line of what it sent on this connection, where one is at fault.
    case gpsd(endpoint: String, line: Int?, reason: String)

    public var description: String {
        switch self {
        case let .unreadableFile(path, reason): return "\(path): cannot read file: \(reason)"
        case let .unwritableFile(path, reason): return "\(path): cannot write file: \(reason)"
        case let .invalidMap(path, reason): return "\(path): not a usable road map: \(reason)"
        case let .noDrivableRoads(path): return "\(path): the map has no roads a car may drive on (check the extract covers roads)"
        case let .invalidTrack(path, line, reason):
            if let line { return "\(path):\(line): \(reason)" }
            return "\(path): \(reason)"
        case let .invalidFix(index, reason): return "fix \(index): \(reason)"
        case let .invalidArgument(message): return "invalid argument: \(message)"
        case let .projection(message): return "projection error (PROJ): \(message)"
        case let .geometry(message): return "geometry error (GEOS): \(message)"
        case let .internalError(message): return "internal error: \(message)"
        case let .canceled(what): return "\(what) canceled"
        case let .gpsd(endpoint, line, reason):
            if let line { return "gpsd at \(endpoint), line \(line): \(reason)" }
            return "gpsd at \(endpoint): \(reason)"
        }
    }
}

extension RoadSnapError {
    /// The one mapping from the Bridge's failure (`NativeFailure`: a C status turned into a kind, with GEOS's, PROJ's
    /// or the system's words) to the error the caller sees.
    package init(_ failure: NativeFailure) {
        let m = failure.message, path = failure.path ?? "?"
        switch failure.kind {
        case .invalidArgument: self = .invalidArgument(m)
        case .geometry: self = .geometry(m)
        case .projection: self = .projection(m)
        case .canceled: self = .canceled(m)
        case .unreadableFile: self = .unreadableFile(path: path, reason: m)
        case .unwritableFile: self = .unwritableFile(path: path, reason: m)
        case .invalidMap: self = .invalidMap(path: path, reason: m)
        case .internalError: self = .internalError(m)
        }
    }
}

/// Runs a Bridge call, turning its `NativeFailure` into the `RoadSnapError` it stands for (`init(_: NativeFailure)`).
@inline(__always)
package func native<T>(_ body: () throws(NativeFailure) -> T) throws(RoadSnapError) -> T {
    do { return try body() } catch { throw RoadSnapError(error) }
}
