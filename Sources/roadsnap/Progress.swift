import RoadSnapCore
#if canImport(Glibc)
import Glibc
#endif

/// The text of a progress bar `[####------]` of `width` cells, `fraction` (clamped to 0...1) of them filled.
func progressBar(_ fraction: Double, width: Int = 30) -> String {
    let f = fraction.isFinite ? min(max(fraction, 0), 1) : 0
    let filled = Int((f * Double(width)).rounded(.down))
    return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
}

/// Shows a long build's phases on standard error: on a terminal one line redrawn in place (at most every 0.1 s,
/// and at the end of every phase); otherwise a plain line at every tenth of a phase, so logs stay short.
final class PhaseProgress: Sendable {
    private struct State {
        var phase = ""
        var lastDraw = -Double.infinity
        var lastTenth = -1
        var midLine = false
    }

    private let terminal: Bool
    private let state = Locked(State())

    /// A reporter for standard error; `terminal` defaults to whether standard error is a terminal.
    init(terminal: Bool = isatty(2) != 0) {
        self.terminal = terminal
    }

    /// Reports that `phase` is `fraction` (0...1) done; safe to call from any thread.
    func report(phase: String, fraction: Double) {
        let f = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let text: String? = state.withLock { s in
            let newPhase = s.phase != phase
            if newPhase { s.phase = phase; s.lastTenth = -1 }
            if terminal {
                let now = monotonicSeconds()
                guard newPhase || (f >= 1 && s.midLine) || now - s.lastDraw >= 0.1 else { return nil }
                if !newPhase && !s.midLine { return nil }  // this phase's bar is already complete
                s.lastDraw = now
                s.midLine = f < 1
                let pct = Int((f * 100).rounded(.down))
                let line = "\r\u{1B}[K\(progressBar(f)) \(phase) \(pct)%"
                return s.midLine ? line : line + "\n"
            }
            let tenth = Int((f * 10).rounded(.down))
            guard tenth > s.lastTenth else { return nil }
            s.lastTenth = tenth
            return "\(phase): \(tenth * 10)%\n"
        }
        if let text { writeStderr(text) }
    }

    /// Ends a bar left mid-line (after a failure or cancellation), so the next message starts on a fresh line.
    func finish() {
        let pending = state.withLock { s in
            defer { s.midLine = false }
            return s.midLine
        }
        if pending { writeStderr("\r\u{1B}[K") }
    }
}
