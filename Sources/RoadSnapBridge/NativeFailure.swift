import CShims

/// How the Bridge (or the C under it) failed: the Bridge's own failure type, package-internal. RoadSnapCore maps it
/// once (`RoadSnapError.init(_: NativeFailure)`) to the one public error type; the Bridge knows no domain type.
/// Each kind matches the `RoadSnapError` case it becomes; the constructors are spelled like those cases.
package struct NativeFailure: Error, Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// `RSC_EINVAL` or a check in the Bridge: an argument out of range.
        case invalidArgument
        /// `RSC_EGEOS`: GEOS failed.
        case geometry
        /// `RSC_EPROJ`: PROJ failed.
        case projection
        /// `RSC_ECANCELED`: a build stopped through its cancellation flag.
        case canceled
        /// `RSC_EIO`: the file at `path` could not be opened or read.
        case unreadableFile
        /// The file at `path` could not be written.
        case unwritableFile
        /// `RSC_EFORMAT`: the file at `path` is not a readable map.
        case invalidMap
        /// `RSC_ENOMEM` or anything else that should not happen.
        case internalError
    }

    package var kind: Kind
    /// What failed, in words (with GEOS's, PROJ's or the system's reason where one was given).
    package var message: String
    /// The file concerned, for the file kinds.
    package var path: String?

    package init(_ kind: Kind, _ message: String, path: String? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
    }

    package static func invalidArgument(_ m: String) -> NativeFailure { NativeFailure(.invalidArgument, m) }
    package static func geometry(_ m: String) -> NativeFailure { NativeFailure(.geometry, m) }
    package static func projection(_ m: String) -> NativeFailure { NativeFailure(.projection, m) }
    package static func canceled(_ what: String) -> NativeFailure { NativeFailure(.canceled, what) }
    package static func internalError(_ m: String) -> NativeFailure { NativeFailure(.internalError, m) }
    package static func unreadableFile(path: String, reason: String) -> NativeFailure {
        NativeFailure(.unreadableFile, reason, path: path)
    }
    package static func unwritableFile(path: String, reason: String) -> NativeFailure {
        NativeFailure(.unwritableFile, reason, path: path)
    }
    package static func invalidMap(path: String, reason: String) -> NativeFailure {
        NativeFailure(.invalidMap, reason, path: path)
    }
}

/// The one mapping from a CShims failure (a negative `RSC_E*` status and the failure message its owner kept: GEOS's
/// or PROJ's own words, collected by the handlers on the owner's context) to a `NativeFailure`. Every Bridge call
/// that can fail in C goes through it, so a GEOS failure is always `.geometry`, a PROJ failure `.projection`, and
/// neither turns into "no road" or NaN on the way up.
func nativeFailure(_ status: Int32, _ message: String, doing what: String) -> NativeFailure {
    let detail = message.isEmpty ? "" : ": \(message)"
    switch status {
    case RSC_EGEOS: return .geometry("\(what) failed\(detail)")
    case RSC_EPROJ: return .projection("\(what) failed\(detail)")
    case RSC_ENOMEM: return .internalError("\(what): out of memory")
    case RSC_EINVAL: return .invalidArgument("\(what)\(message.isEmpty ? ": an argument is out of range" : detail)")
    default: return .internalError("\(what) failed with code \(status)\(detail)")
    }
}

/// A C string owned by a CShims handle, copied.
func nativeMessage(_ text: UnsafePointer<CChar>?) -> String {
    guard let text else { return "" }
    return String(cString: text)
}
