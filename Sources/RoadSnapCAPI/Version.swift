import RoadSnapCHeader
import RoadSnapCore

@implementation @c
public func rs_version() -> UnsafePointer<CChar>? { cString("0.1.0") }  // = ROADSNAP_VERSION_* (checked by Tests/c)

@implementation @c
public func rs_abi_version() -> Int32 { ROADSNAP_ABI_VERSION }

@implementation @c
public func rs_last_error_message() -> UnsafePointer<CChar>? { LastError.message }

@implementation @c
public func rs_status_name(_ status: rs_status) -> UnsafePointer<CChar>? {
    switch status {
    case RS_OK: return cString("RS_OK")
    case RS_E_NULL_ARGUMENT: return cString("RS_E_NULL_ARGUMENT")
    case RS_E_INVALID_HANDLE: return cString("RS_E_INVALID_HANDLE")
    case RS_E_INVALID_ARGUMENT: return cString("RS_E_INVALID_ARGUMENT")
    case RS_E_INVALID_FIX: return cString("RS_E_INVALID_FIX")
    case RS_E_IO: return cString("RS_E_IO")
    case RS_E_INVALID_MAP: return cString("RS_E_INVALID_MAP")
    case RS_E_NO_DRIVABLE_ROADS: return cString("RS_E_NO_DRIVABLE_ROADS")
    case RS_E_INVALID_TRACK: return cString("RS_E_INVALID_TRACK")
    case RS_E_BUFFER_TOO_SMALL: return cString("RS_E_BUFFER_TOO_SMALL")
    case RS_E_BUSY: return cString("RS_E_BUSY")
    case RS_E_PROJECTION: return cString("RS_E_PROJECTION")
    case RS_E_GEOMETRY: return cString("RS_E_GEOMETRY")
    case RS_E_INTERNAL: return cString("RS_E_INTERNAL")
    case RS_E_NO_ROUTE: return cString("RS_E_NO_ROUTE")
    case RS_E_CANCELED: return cString("RS_E_CANCELED")
    default: return cString("RS_E_UNKNOWN")
    }
}

@implementation @c
public func rs_open_handle_count() -> Int64 { Int64(HandleTable.shared.liveCount) }

/// The host's log handler and level (`rs_set_log_handler`, `rs_set_log_level`), kept together so that setting one
/// keeps the other.
private struct LogSettings: @unchecked Sendable {
    var handler: rs_log_fn?
    var userData: UnsafeMutableRawPointer?
    var level = NativeLog.Level.warning
}

private let logSettings = Locked(LogSettings())

private func applyLogSettings(_ change: (inout LogSettings) -> Void) {
    logSettings.withLock { s in
        change(&s)
        NativeLog.setHandler(s.handler, userData: s.userData, maxLevel: s.level)
    }
}

@implementation @c
public func rs_set_log_handler(_ fn: rs_log_fn?, _ userData: UnsafeMutableRawPointer?) -> rs_status {
    apiCall { () throws(APIFailure) in
        applyLogSettings { s in
            s.handler = fn
            s.userData = userData
        }
    }
}

@implementation @c
public func rs_set_log_level(_ maxLevel: Int32) -> rs_status {
    apiCall { () throws(APIFailure) in
        guard let level = NativeLog.Level(rawValue: maxLevel) else {
            throw APIFailure(RS_E_INVALID_ARGUMENT, "log level \(maxLevel) is not one of RS_LOG_ERROR (1) ... RS_LOG_DEBUG (4)")
        }
        applyLogSettings { $0.level = level }
    }
}
