#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`, with the `withLock` of Synchronization's `Mutex`.
///
/// Why not `Mutex`: on Linux it hands a contended lock over through priority-inheritance futexes
/// (`FUTEX_LOCK_PI`/`FUTEX_UNLOCK_PI`, the kernel writes the new owner into the lock word) inside the uninstrumented
/// `libswiftSynchronization`, so ThreadSanitizer sees no happens-before between two critical sections and reports
/// correctly locked accesses as "Swift access race" (issue 16; `docs/reliability.md` has the two-thread program
/// that shows it). TSan intercepts `pthread_mutex_lock`/`unlock`, so state shared between threads that the TSan
/// run exercises is guarded with this type.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock.
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
