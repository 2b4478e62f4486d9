import RoadSnapCore
import Synchronization
import RoadSnapCHeader

/// What a C handle refers to; part of the handle's bits so that a handle of one kind is refused by the others.
enum HandleKind: UInt64, Sendable {
    case map = 1, snapper = 2, matcher = 3, matchResult = 4, router = 5, route = 6, navigator = 7, track = 8, streamMatcher = 9

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
        case .streamMatcher: return "stream matcher"
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

/// How a handle's bits are laid out in a pointer-sized value: kind in the low 4 bits, then the slot, then the
/// slot's generation in the remaining high bits. On 64-bit targets: 24 slot bits (16.7 million open handles) and
/// 36 generation bits; on 32-bit targets: 12 slot bits (4,096 open handles) and 16 generation bits, so no bit
/// lies above bit 31 of a 32-bit pointer.
struct HandleLayout: Sendable {
    static let kindBits = 4
    let slotBits: Int
    let generationBits: Int

    /// The layout for pointers of `pointerBits` bits (the target's: `UInt.bitWidth`).
    init(pointerBits: Int = UInt.bitWidth) {
        slotBits = pointerBits >= 64 ? 24 : 12
        generationBits = pointerBits - Self.kindBits - slotBits
    }

    var maxSlots: Int { 1 << slotBits }
    /// Generations run 1...maxGeneration per slot, then wrap to 1 (never 0, so a handle is never NULL).
    var maxGeneration: UInt64 { (1 << UInt64(generationBits)) - 1 }

    func bits(generation: UInt64, slot: Int, kind: HandleKind) -> UInt64 {
        generation << UInt64(Self.kindBits + slotBits) | UInt64(slot) << UInt64(Self.kindBits) | kind.rawValue
    }

    func decode(_ bits: UInt64) -> (generation: UInt64, slot: Int, tag: UInt64) {
        (bits >> UInt64(Self.kindBits + slotBits), Int((bits >> UInt64(Self.kindBits)) & UInt64(maxSlots - 1)),
         bits & ((1 << UInt64(Self.kindBits)) - 1))
    }
}

/// The table behind every C handle. A handle is not a pointer but the bits of a `HandleLayout`: each slot counts
/// its own generations, bumped when its handle is closed, so a closed handle, a handle of another kind, or garbage
/// is recognised and refused. (A stale handle could pass again only once its slot has been reused a whole cycle of
/// generations: 65,535 times on 32-bit targets, 6.9e10 times on 64-bit ones.)
final class HandleTable: Sendable {
    private struct Entry {
        var kind: HandleKind
        var object: any HandleObject
    }

    private struct Slot {
        var generation: UInt64
        var entry: Entry?
    }

    private struct State {
        var slots: [Slot] = []
        var freeSlots: [Int] = []
        var liveCount = 0
    }

    let layout: HandleLayout
    private let state = Locked(State())

    static let shared = HandleTable()

    /// A table whose handles fit pointers of `pointerBits` bits (tests use 32 on 64-bit targets).
    init(pointerBits: Int = UInt.bitWidth) { layout = HandleLayout(pointerBits: pointerBits) }

    /// Registers `object` and returns its handle's bits (what `insert` puts into a pointer).
    func insertBits(_ object: any HandleObject, kind: HandleKind) throws(APIFailure) -> UInt64 {
        let bits: UInt64? = state.withLock { s in
            let slot: Int
            if let free = s.freeSlots.popLast() {
                slot = free
            } else {
                guard s.slots.count < layout.maxSlots else { return nil }
                slot = s.slots.count
                s.slots.append(Slot(generation: 1, entry: nil))
            }
            s.slots[slot].entry = Entry(kind: kind, object: object)
            s.liveCount += 1
            return layout.bits(generation: s.slots[slot].generation, slot: slot, kind: kind)
        }
        guard let bits else { throw APIFailure(RS_E_INTERNAL, "handle table full (\(layout.maxSlots) open handles)") }
        return bits
    }

    /// Registers `object` and returns its new handle.
    func insert(_ object: any HandleObject, kind: HandleKind) throws(APIFailure) -> OpaquePointer {
        let bits = try insertBits(object, kind: kind)
        guard let handle = OpaquePointer(bitPattern: UInt(truncatingIfNeeded: bits)) else {
            throw APIFailure(RS_E_INTERNAL, "handle bits \(bits) do not make a pointer")
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
    var liveCount: Int { state.withLock { $0.liveCount } }

    private func find(_ handle: OpaquePointer?, _ kind: HandleKind, remove: Bool) throws(APIFailure) -> any HandleObject {
        guard let handle else { throw APIFailure(RS_E_INVALID_HANDLE, "\(kind.noun) handle is NULL") }
        return try find(bits: UInt64(UInt(bitPattern: handle)), kind, remove: remove, shown: "\(handle)")
    }

    /// `find` on a handle's bits (tests of the 32-bit layout call it directly).
    func find(bits: UInt64, _ kind: HandleKind, remove: Bool, shown: String? = nil) throws(APIFailure)
        -> any HandleObject
    {
        let shown = shown ?? "0x" + String(bits, radix: 16)
        let (generation, slot, tag) = layout.decode(bits)
        enum Found { case object(any HandleObject), otherKind, stale, unknown }
        let found: Found = state.withLock { s in
            guard bits >> UInt64(layout.generationBits + layout.slotBits + HandleLayout.kindBits) == 0,
                  slot < s.slots.count, generation >= 1, HandleKind(rawValue: tag) != nil else { return .unknown }
            let current = s.slots[slot].generation
            guard generation == current, let e = s.slots[slot].entry, e.kind.rawValue == tag else {
                // Generations of a slot only grow (until they wrap), so a smaller one was issued and closed.
                return generation < current ? .stale : .unknown
            }
            guard e.kind == kind else { return .otherKind }
            if remove {
                s.slots[slot].entry = nil
                s.slots[slot].generation = current >= layout.maxGeneration ? 1 : current + 1
                s.freeSlots.append(slot)
                s.liveCount -= 1
            }
            return .object(e.object)
        }
        switch found {
        case .unknown:
            throw APIFailure(RS_E_INVALID_HANDLE, "\(kind.noun) handle \(shown) was not made by this library")
        case .stale:
            throw APIFailure(RS_E_INVALID_HANDLE, "\(kind.noun) handle \(shown) is stale (already closed or destroyed)")
        case .otherKind:
            let actual = HandleKind(rawValue: tag)?.noun ?? "unknown"
            throw APIFailure(RS_E_INVALID_HANDLE, "handle \(shown) is a \(actual) handle, not a \(kind.noun) handle")
        case let .object(object):
            return object
        }
    }
}
