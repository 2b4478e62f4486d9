import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Threads the navigation session owns, instead of Dispatch's process-wide pool and timer thread (which outlive
// every session): each starts when first needed and ends when its owner is released, so a host embedding the
// library (the C API) sees no thread of ours once its last handle is closed.

/// A mutex with one condition variable on CLOCK_MONOTONIC (heap-allocated: pthread objects must not move).
final class ThreadSignal: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Waits (the mutex held) until signalled, or until `deadline` (monotonic seconds) when given.
    func wait(until deadline: Double? = nil) {
        guard let deadline else {
            pthread_cond_wait(cond, mutex)
            return
        }
        let whole = deadline.rounded(.down)
        var ts = timespec(tv_sec: Int(whole), tv_nsec: Int((deadline - whole) * 1e9))
        _ = pthread_cond_timedwait(cond, mutex, &ts)
    }

    /// Inside `locked`: runs `body` with the mutex released, then takes it again.
    func unlocked(_ body: () -> Void) {
        pthread_mutex_unlock(mutex)
        defer { pthread_mutex_lock(mutex) }
        body()
    }

    func signal() { pthread_cond_broadcast(cond) }

    /// Monotonic seconds (for deadlines of `wait`).
    static var now: Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}

/// What a new thread runs (passed through pthread_create's argument).
private final class ThreadBody {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// A started thread running `body`; nil when the system refuses a thread.
private func startThread(_ body: @escaping () -> Void) -> pthread_t? {
    var thread = pthread_t()
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    let rc = pthread_create(&thread, nil, { raw in
        guard let raw else { return nil }
        Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().body()
        return nil
    }, box)
    if rc != 0 {
        Unmanaged<ThreadBody>.fromOpaque(box).release()
        return nil
    }
    return thread
}

/// Ends `thread`: waits for it, unless this is that thread (its owner was released from one of its own jobs),
/// which then ends on its own as soon as the job returns.
private func endThread(_ thread: pthread_t) {
    if pthread_equal(thread, pthread_self()) != 0 { pthread_detach(thread) } else { pthread_join(thread, nil) }
}

/// Runs jobs one at a time, in order, on a thread of its own. The thread starts with the first job and ends when
/// the worker is released, after the jobs queued by then.
final class SerialWorker: Sendable {
    private final class Core: @unchecked Sendable {
        let signal = ThreadSignal()
        var jobs: [@Sendable () -> Void] = []  // guarded by signal
        var finishing = false
        var thread: pthread_t?

        func run() {
            signal.locked {
                while true {
                    if jobs.isEmpty {
                        if finishing { return }
                        signal.wait()
                        continue
                    }
                    let job = jobs.removeFirst()
                    signal.unlocked { job() }
                }
            }
        }
    }

    private let core = Core()

    init() {}

    /// Queues `job`; if no thread can be started, runs it on the calling thread.
    func async(_ job: @escaping @Sendable () -> Void) {
        let core = self.core
        let queued: Bool = core.signal.locked {
            if core.thread == nil { core.thread = startThread { core.run() } }
            guard core.thread != nil else { return false }
            core.jobs.append(job)
            core.signal.signal()
            return true
        }
        if !queued { job() }
    }

    /// Runs `body` on the worker's thread after the jobs queued before it, and waits for it (tests hold the
    /// worker busy this way). Must not be called from the worker's own thread.
    func sync(_ body: () -> Void) {
        // The job holds `body` only until it has run (the closure must not outlive this call).
        final class Done: @unchecked Sendable {
            let signal = ThreadSignal()
            var done = false
            var body: (() -> Void)?
        }
        let finished = Done()
        withoutActuallyEscaping(body) { body in
            finished.body = body
            async {
                finished.body?()
                finished.body = nil
                finished.signal.locked {
                    finished.done = true
                    finished.signal.signal()
                }
            }
            finished.signal.locked { while !finished.done { finished.signal.wait() } }
        }
    }

    deinit {
        let thread: pthread_t? = core.signal.locked {
            core.finishing = true
            core.signal.signal()
            return core.thread
        }
        if let thread { endThread(thread) }
    }
}

/// Repeating timers on one thread of their own (`SystemClock`'s): actions run one at a time on that thread. The
/// thread starts with the first timer and ends when the owner is released.
final class TimerThread: Sendable {
    private final class Core: @unchecked Sendable {
        struct Entry {
            var id: Int
            var next: Double
            var interval: Double
            var action: @Sendable () -> Void
        }
        let signal = ThreadSignal()
        var entries: [Entry] = []  // guarded by signal
        var nextID = 0
        var finishing = false
        var thread: pthread_t?

        func run() {
            signal.locked {
                while !finishing {
                    guard let k = entries.indices.min(by: { entries[$0].next < entries[$1].next }) else {
                        signal.wait()
                        continue
                    }
                    let now = ThreadSignal.now
                    guard entries[k].next <= now else {
                        signal.wait(until: entries[k].next)
                        continue
                    }
                    // Missed periods fire once, as a repeating Dispatch timer does.
                    entries[k].next += entries[k].interval
                    if entries[k].next <= now { entries[k].next = now + entries[k].interval }
                    let action = entries[k].action
                    signal.unlocked { action() }
                }
            }
        }
    }

    private let core = Core()

    init() {}

    /// Calls `action` every `interval` seconds (first after one interval) until `cancel(id)`; returns the id.
    func add(every interval: Double, _ action: @escaping @Sendable () -> Void) -> Int {
        let core = self.core
        return core.signal.locked {
            core.nextID += 1
            core.entries.append(Core.Entry(id: core.nextID, next: ThreadSignal.now + interval, interval: interval,
                                           action: action))
            if core.thread == nil { core.thread = startThread { core.run() } }
            core.signal.signal()
            return core.nextID
        }
    }

    /// A function cancelling timer `id` (an action already running finishes).
    func canceller(_ id: Int) -> @Sendable () -> Void {
        let core = self.core
        return { core.signal.locked { core.entries.removeAll { $0.id == id }; core.signal.signal() } }
    }

    deinit {
        let thread: pthread_t? = core.signal.locked {
            core.finishing = true
            core.entries.removeAll()
            core.signal.signal()
            return core.thread
        }
        if let thread { endThread(thread) }
    }
}
