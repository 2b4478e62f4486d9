import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Time for the simulator and the navigator: real time in demos and live use, a virtual clock in tests.
public protocol NavigationClock: AnyObject, Sendable {
    /// Seconds since 1970-01-01 UTC.
    var now: Double { get }
    /// Calls `action` every `interval` seconds of this clock until the returned timer is cancelled.
    func schedule(every interval: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer
}

/// A repeating timer of a `NavigationClock`; cancelling stops further calls.
public final class ClockTimer: Sendable {
    private let cancelAction: @Sendable () -> Void
    private let cancelled = Atomic<Bool>(false)

    public init(cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }

    public func cancel() {
        if !cancelled.exchange(true, ordering: .acquiringAndReleasing) { cancelAction() }
    }

    deinit { if !cancelled.load(ordering: .acquiring) { cancelAction() } }
}

/// A clock that only moves when told to: `advance(by:)` runs every timer due in between, in time order, on the
/// calling thread. Deterministic, for tests and faster-than-real-time replays.
public final class VirtualClock: NavigationClock {
    private struct Entry {
        var id: Int
        var next: Double
        var interval: Double
        var action: @Sendable () -> Void
    }
    private struct State {
        var now: Double
        var entries: [Entry] = []
        var nextID = 0
    }
    private let state: Locked<State>

    /// Starts at `start` seconds since the epoch.
    public init(start: Double) { state = Locked(State(now: start)) }

    public var now: Double { state.withLock { $0.now } }

    public func schedule(every interval: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let step = max(interval, 1e-3)
        let id = state.withLock { s -> Int in
            s.nextID += 1
            s.entries.append(Entry(id: s.nextID, next: s.now + step, interval: step, action: action))
            return s.nextID
        }
        return ClockTimer { [weak self] in self?.state.withLock { $0.entries.removeAll { $0.id == id } } }
    }

    /// Moves time forward by `seconds`, firing due timers (earliest first; ties in scheduling order).
    public func advance(by seconds: Double) {
        let target = state.withLock { $0.now } + max(0, seconds)
        while true {
            let due = state.withLock { s -> (@Sendable () -> Void)? in
                guard let k = s.entries.indices.min(by: { s.entries[$0].next < s.entries[$1].next }),
                      s.entries[k].next <= target
                else { return nil }
                s.now = s.entries[k].next
                s.entries[k].next += s.entries[k].interval
                return s.entries[k].action
            }
            guard let due else { break }
            due()
        }
        state.withLock { $0.now = target }
    }
}

/// Wall-clock time; timers fire one at a time on a thread of the clock's own, which starts with the first timer
/// and ends when the clock is released.
public final class SystemClock: NavigationClock {
    private let timers = TimerThread()

    public init() {}

    public var now: Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    public func schedule(every interval: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let id = timers.add(every: max(interval, 1e-3), action)
        return ClockTimer(cancel: timers.canceller(id))
    }
}

/// Carries a value the compiler cannot prove Sendable across a queue hop whose use is confined by design.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
