import CShims

/// Names, on standard error, the input a thread was working on when the process crashes (a runtime trap, a
/// segfault): a batch that dies says which file killed it. The process still dies with the same signal, after the
/// handler that was installed before (the Swift runtime's backtracer) has run.
public enum CrashNote {
    /// Installs the handlers; `prefix` starts every note line (for example "roadsnap match: crashed on "). Call once,
    /// early, from one thread; later calls do nothing.
    public static func install(prefix: String) { rsc_crash_note_install(prefix) }

    /// Sets (nil: clears) the calling thread's note.
    public static func set(_ note: String?) {
        if let note { rsc_crash_note_set(note) } else { rsc_crash_note_set(nil) }
    }
}
