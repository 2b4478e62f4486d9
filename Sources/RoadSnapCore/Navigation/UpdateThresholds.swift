/// Decides when a changing value (remaining time or distance) is reported: the first value always, then only once
/// it has moved by at least the threshold since the last report. An infinite or maximum threshold disables reports.
public struct ThresholdReporter: Hashable, Sendable {
    public private(set) var lastReported: Double?

    public init() {}

    /// Whether `value` should be reported under `threshold`; records it when so.
    public mutating func shouldReport(_ value: Double, threshold: Double) -> Bool {
        guard threshold < Double.greatestFiniteMagnitude else { return false }
        if let last = lastReported, abs(value - last) < threshold { return false }
        lastReported = value
        return true
    }

    /// Forgets the last report (a new route or leg reports its first value again).
    public mutating func reset() { lastReported = nil }
}

/// A threshold setting: a negative value means the default, the maximum value disables the callback.
@usableFromInline
func normalizedThreshold(_ value: Double, default d: Double) -> Double {
    value.isNaN || value < 0 ? d : value
}
