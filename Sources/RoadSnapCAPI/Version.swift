import RoadSnapCHeader

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
