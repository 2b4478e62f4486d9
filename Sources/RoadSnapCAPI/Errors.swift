import Glibc
import RoadSnapCHeader
import RoadSnapCore

/// A failed C call: the status it returns and the message `rs_last_error_message()` then gives.
struct APIFailure: Error {
    var status: rs_status
    var message: String

    init(_ status: rs_status, _ message: String) {
        self.status = status
        self.message = message
    }

    init(_ error: RoadSnapError) {
        let status: rs_status
        switch error {
        case .unreadableFile, .unwritableFile: status = RS_E_IO
        case .invalidMap: status = RS_E_INVALID_MAP
        case .noDrivableRoads: status = RS_E_NO_DRIVABLE_ROADS
        case .invalidTrack: status = RS_E_INVALID_TRACK
        case .invalidFix: status = RS_E_INVALID_FIX
        case .invalidArgument: status = RS_E_INVALID_ARGUMENT
        case .projection: status = RS_E_PROJECTION
        case .geometry: status = RS_E_GEOMETRY
        case .internalError: status = RS_E_INTERNAL
        case .canceled: status = RS_E_CANCELED
        // No rs_ call talks to gpsd today; should one, an unreachable daemon is an I/O failure, a bad message a
        // malformed fix stream.
        case let .gpsd(_, line, _): status = line == nil ? RS_E_IO : RS_E_INVALID_TRACK
        }
        self.init(status, error.description)
    }

    static func null(_ name: String) -> APIFailure { APIFailure(RS_E_NULL_ARGUMENT, "\(name) is NULL") }
}

/// Runs the body of a C entry point: its status, with the calling thread's error message set or cleared.
@inline(__always)
func apiCall(_ body: () throws(APIFailure) -> Void) -> rs_status {
    do {
        try body()
        LastError.clear()
        return RS_OK
    } catch {
        LastError.set(error.message)
        return error.status
    }
}

/// Body of a C call that makes a handle: `*out` is NULL unless `make` succeeds, and then the new handle.
func creatingHandle(_ out: UnsafeMutablePointer<OpaquePointer?>?, named name: String, kind: HandleKind,
                    _ make: () throws(APIFailure) -> any HandleObject) -> rs_status
{
    apiCall { () throws(APIFailure) in
        guard let out else { throw .null(name) }
        out.pointee = nil
        out.pointee = try HandleTable.shared.insert(make(), kind: kind)
    }
}

/// Body of a C call that fills `*out` from the object behind a handle (the handle is checked first).
func reading<O: HandleObject, T>(_ handle: OpaquePointer?, _ kind: HandleKind, as _: O.Type,
                                 into out: UnsafeMutablePointer<T>?, named name: String,
                                 _ value: (O) throws(APIFailure) -> T) -> rs_status
{
    apiCall { () throws(APIFailure) in
        let object = try HandleTable.shared.lookup(handle, kind, as: O.self)
        guard let out else { throw .null(name) }
        out.pointee = try value(object)
    }
}

/// Calls `body`, turning a `RoadSnapError` into the matching failure.
@inline(__always)
func bridging<R>(_ body: () throws(RoadSnapError) -> R) throws(APIFailure) -> R {
    do { return try body() } catch { throw APIFailure(error) }
}

/// Each thread's last error message, in a malloc'ed C buffer owned by a pthread key (freed when the thread ends).
enum LastError {
    private final class Slot {
        var buffer: UnsafeMutablePointer<CChar>
        var capacity: Int

        init() {
            capacity = 256
            buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
            buffer[0] = 0
        }

        deinit { buffer.deallocate() }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        precondition(rc == 0, "pthread_key_create failed: \(rc)")
        return key
    }()

    private static func slot(create: Bool) -> Slot? {
        if let p = pthread_getspecific(key) { return Unmanaged<Slot>.fromOpaque(p).takeUnretainedValue() }
        guard create else { return nil }
        let slot = Slot()
        pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque())
        return slot
    }

    static func set(_ message: String) {
        guard let slot = slot(create: true) else { return }
        var utf8 = Array(message.utf8)
        utf8.removeAll { $0 == 0 }
        if utf8.count + 1 > slot.capacity {
            slot.buffer.deallocate()
            slot.capacity = utf8.count + 1
            slot.buffer = UnsafeMutablePointer<CChar>.allocate(capacity: slot.capacity)
        }
        for (i, b) in utf8.enumerated() { slot.buffer[i] = CChar(bitPattern: b) }
        slot.buffer[utf8.count] = 0
    }

    static func clear() { slot(create: false)?.buffer[0] = 0 }

    static var message: UnsafePointer<CChar> {
        if let slot = slot(create: false) { return UnsafePointer(slot.buffer) }
        return cString("")
    }
}

/// A static C string (string literals are stored NUL-terminated and live for the whole run).
func cString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Writes `text` NUL-terminated into `buf[capacity]` with snprintf-like truncation; the full length goes to
/// `length`. Throws `RS_E_BUFFER_TOO_SMALL` (after writing what fits) when it does not fit; `name` is the buffer
/// argument's name in the header.
func write(_ text: String, into buf: UnsafeMutablePointer<CChar>?, capacity: Int, length: UnsafeMutablePointer<Int>?,
           named name: String = "buf") throws(APIFailure)
{
    var text = text
    let count = text.utf8.count
    let capacity = capacity < 0 ? Int.max : capacity  // a size_t beyond Int.max: room enough
    length?.pointee = count
    if capacity > 0 {
        guard let buf else { throw APIFailure.null("\(name) (with capacity > 0)") }
        let n = min(count, capacity - 1)
        text.withUTF8 { bytes in
            if n > 0, let base = bytes.baseAddress { UnsafeMutableRawPointer(buf).copyMemory(from: base, byteCount: n) }
        }
        buf[n] = 0
    }
    if count >= capacity {
        throw APIFailure(RS_E_BUFFER_TOO_SMALL, "text of \(count) bytes needs a buffer of \(count + 1)")
    }
}
