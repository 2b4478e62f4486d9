/// Steps a driver would hear as noise: a name change just before a maneuver onto the same road ("Continue onto
/// Tunnel X" then "Take the ramp onto Tunnel X"), and a minor step a few metres from another one.
extension StepBuilder {
    /// Steps closer than this (metres) to their neighbour are merged when one of them is minor.
    static let mergeGap = 25.0

    /// Whether a maneuver only confirms the road (no turn to make): these give way to a neighbouring step.
    static func isMinor(_ m: Maneuver) -> Bool { m == .nameChange || m == .straight || m == .unknown }

    /// Where a pending step is announced, metres from the leg start (a roundabout at its entry).
    func position(_ p: Pending) -> Double { segments[p.entry ?? p.segment].distanceFromLegStart }

    /// `pending` without the noise steps, in order.
    func collapse(_ pending: [Pending], arcs: [Int]) -> [Pending] {
        // A name change whose road the next step leads onto again says nothing the next step does not.
        var out: [Pending] = []
        for (k, p) in pending.enumerated() {
            if p.maneuver == .nameChange, k + 1 < pending.count, pending[k + 1].maneuver != .nameChange {
                let name = leg.simpleName(arcs[p.segment])
                if !name.isEmpty, leg.simpleName(arcs[pending[k + 1].segment]) == name { continue }
            }
            out.append(p)
        }
        // Two steps a few metres apart: the minor one goes (the first when both are minor).
        var merged: [Pending] = []
        for p in out {
            if let last = merged.last, position(p) - position(last) < Self.mergeGap {
                if Self.isMinor(last.maneuver) {
                    merged[merged.count - 1] = p
                    continue
                }
                if Self.isMinor(p.maneuver) { continue }
            }
            merged.append(p)
        }
        return merged
    }
}
