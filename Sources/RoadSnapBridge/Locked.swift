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
///
/// The value lives behind a pointer, not in a `var` stored property: with the property, TSan reported a "Swift
/// access race" on the object of a `Locked<()>` (a zero-sized value) between two of its critical sections in
/// `match --jobs 2` (the access recorded by the property's exclusivity check, at the object's address, outside the
/// lock); behind a pointer, loads and stores of the value are ordinary memory accesses, checked against the mutex,
/// and the report is gone (issue 16, docs/reliability.md).
public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let value: UnsafeMutablePointer<Value>

    public init(_ value: Value) {
        self.value = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        self.value.initialize(to: value)
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value while holding the lock. Inlinable: specialized in the caller's module (a
    /// navigation fix took three locks through the generic entry point).
    @inlinable
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
