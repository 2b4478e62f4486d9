import Synchronization

/// Progress of a long build (a routing hierarchy, a compiled map): the phase under way and how much of it is done.
/// Phases run one after another; `fraction` restarts at 0 in each.
public struct BuildProgress: Hashable, Sendable {
    /// What is being done, in a few words ("contracting", "search graph", ...).
    public var phase: String
    /// Fraction of the phase done, 0...1.
    public var fraction: Double

    public init(phase: String, fraction: Double) {
        self.phase = phase
        self.fraction = min(1, max(0, fraction.isNaN ? 0 : fraction))
    }
}

/// A flag that stops a long build: `cancel()` from any thread, and the build stops soon after (within a fraction
/// of a second) by throwing `RoadSnapError.canceled`, leaving nothing half-built behind.
public final class BuildCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    private let poll: (@Sendable () -> Bool)?

    /// A flag set by `cancel()`.
    public init() { poll = nil }

    /// A flag that is also set whenever `poll` returns true (polled from any thread, so it must be thread-safe and
    /// cheap), e.g. to follow a flag owned by C code.
    public init(polling poll: @escaping @Sendable () -> Bool) { self.poll = poll }

    /// Requests the build to stop. Thread-safe; calling it again does nothing.
    public func cancel() { flag.store(true, ordering: .relaxed) }

    /// Whether the build should stop.
    public var isCanceled: Bool {
        if flag.load(ordering: .relaxed) { return true }
        if let poll, poll() { flag.store(true, ordering: .relaxed); return true }
        return false
    }
}

/// How a long build reports and is stopped: a progress callback (called on the thread running the build, a few
/// times per second at most per phase step), a cancellation flag, and the worker threads it may use.
public struct BuildControl: Sendable {
    public var progress: (@Sendable (BuildProgress) -> Void)?
    public var cancellation: BuildCancellation?
    /// Worker threads; 0 means every core available to the process.
    public var threads: Int

    public init(progress: (@Sendable (BuildProgress) -> Void)? = nil, cancellation: BuildCancellation? = nil,
                threads: Int = 0)
    {
        self.progress = progress
        self.cancellation = cancellation
        self.threads = threads
    }

    /// Throws `RoadSnapError.canceled` when the build was canceled (for builds checking between their own steps).
    public func checkCanceled(_ what: String) throws(RoadSnapError) {
        if cancellation?.isCanceled == true { throw .canceled(what) }
    }
}
