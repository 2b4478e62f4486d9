import Synchronization
import RoadSnapCHeader

/// What a C handle refers to; part of the handle's bits so that a handle of one kind is refused by the others.
enum HandleKind: UInt64, Sendable {
    case map = 1, snapper = 2, matcher = 3, matchResult = 4, router = 5, route = 6, navigator = 7, track = 8

    var noun: String {
        switch self {
        case .map: return "map"
        case .snapper: return "snapper"
        case .matcher: return "matcher"
        case .matchResult: return "match result"
        case .router: return "router"
        case .route: return "route"
        case .navigator: return "navigator"
        case .track: return "track"
        }
    }
}

/// An object a C handle stands for.
protocol HandleObject: AnyObject, Sendable {}

/// Objects that must not be used by two threads at once: calls go through `exclusive`, which refuses a second
/// thread with `RS_E_BUSY` instead of letting it race.
class ExclusiveObject: @unchecked Sendable {
    private let busy = Atomic<Bool>(false)

    func exclusive<R>(_ body: () throws(APIFailure) -> R) throws(APIFailure) -> R {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw APIFailure(RS_E_BUSY, "the \(Self.self) handle is in use on another thread (make one per thread)")
        }
        defer { busy.store(false, ordering: .releasing) }
        return try body()
    }
}

/// The table behind every C handle. A handle is not a pointer but the bits (generation << 28 | slot << 4 | kind):
/// generations are never reused, so a closed handle, a handle of another kind, or garbage is recognised and refused.
final class HandleTable: Sendable {
    private struct Entry {
        var generation: UInt64
        var kind: HandleKind
        var object: any HandleObject
    }

    private struct State {
        var entries: [Entry?] = []
        var freeSlots: [Int] = []
        var nextGeneration: UInt64 = 1
    }

    private static let kindBits: UInt64 = 4, slotBits: UInt64 = 24
    private static let maxSlots = 1 << Int(slotBits)
    private static let maxGeneration: UInt64 = 1 << (64 - kindBits - slotBits)

    private let state = Mutex(State())

    static let shared = HandleTable()

    /// Registers `object` and returns its new handle.
    func insert(_ object: any HandleObject, kind: HandleKind) throws(APIFailure) -> OpaquePointer {
        let bits: UInt64? = state.withLock { s in
            guard s.nextGeneration < Self.maxGeneration else { return nil }
            let slot: Int
            if let free = s.freeSlots.popLast() {
                slot = free
            } else {
                guard s.entries.count < Self.maxSlots else { return nil }
                slot = s.entries.count
                s.entries.append(nil)
            }
            let generation = s.nextGeneration
            s.nextGeneration += 1
            s.entries[slot] = Entry(generation: generation, kind: kind, object: object)
            return generation << (Self.kindBits + Self.slotBits) | UInt64(slot) << Self.kindBits | kind.rawValue
        }
        guard let bits, let handle = OpaquePointer(bitPattern: UInt(bits)) else {
            throw APIFailure(RS_E_INTERNAL, "handle table full (\(Self.maxSlots) open handles)")
        }
        return handle
    }

    /// The object behind a live handle of `kind`.
    func lookup<T: HandleObject>(_ handle: OpaquePointer?, _ kind: HandleKind, as _: T.Type = T.self) throws(APIFailure)
        -> T
    {
        let object = try find(handle, kind, remove: false)
        guard let typed = object as? T else { throw APIFailure(RS_E_INTERNAL, "\(kind.noun) handle holds \(type(of: object))") }
        return typed
    }

    /// Closes a live handle of `kind`; the object lives on while a call on another thread still holds it.
    func remove(_ handle: OpaquePointer?, _ kind: HandleKind) throws(APIFailure) {
        _ = try find(handle, kind, remove: true)
    }

    /// Number of open handles (`rs_open_handle_count`).
    var liveCount: Int { state.withLock { s in s.entries.count - s.freeSlots.count } }

    private func find(_ handle: OpaquePointer?, _ kind: HandleKind, remove: Bool) throws(APIFailure) -> any HandleObject {
        guard let handle else { throw APIFailure(RS_E_INVALID_HANDLE, "\(kind.noun) handle is NULL") }
        let bits = UInt64(UInt(bitPattern: handle))
        let generation = bits >> (Self.kindBits + Self.slotBits)
        let slot = Int((bits >> Self.kindBits) & ((1 << Self.slotBits) - 1))
        let tag = bits & ((1 << Self.kindBits) - 1)
        let found: (any HandleObject)?? = state.withLock { s in
            guard slot < s.entries.count, let e = s.entries[slot], e.generation == generation,
                  e.kind.rawValue == tag else { return nil }
            guard e.kind == kind else { return .some(nil) }
            if remove {
                s.entries[slot] = nil
                s.freeSlots.append(slot)
            }
            return e.object
        }
        switch found {
        case .none:
            let issued = state.withLock { s in generation > 0 && generation < s.nextGeneration }
            if HandleKind(rawValue: tag) == nil || !issued {
                throw APIFailure(RS_E_INVALID_HANDLE, "\(kind.noun) handle \(handle) was not made by this library")
            }
            throw APIFailure(RS_E_INVALID_HANDLE, "\(kind.noun) handle \(handle) is stale (already closed or destroyed)")
        case .some(.none):
            let actual = HandleKind(rawValue: tag)?.noun ?? "unknown"
            throw APIFailure(RS_E_INVALID_HANDLE, "handle \(handle) is a \(actual) handle, not a \(kind.noun) handle")
        case let .some(.some(object)):
            return object
        }
    }
}
