import CShims

/// The one mapping from a CShims failure (a negative `RSC_E*` status and the failure message its owner kept: GEOS's
/// or PROJ's own words, collected by the handlers on the owner's context) to the error the caller sees. Every Bridge
/// call that can fail in C goes through it, so a GEOS failure is always `.geometry`, a PROJ failure `.projection`,
/// and neither turns into "no road" or NaN on the way up.
func nativeFailure(_ status: Int32, _ message: String, doing what: String) -> RoadSnapError {
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
