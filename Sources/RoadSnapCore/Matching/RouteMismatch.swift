/// Newson & Krumm's route mismatch: length of road in the truth but not the match plus length in the match but not
/// the truth, over the truth's length. Edges are compared as multisets of source ids.
public struct RouteMismatch: Hashable, Sendable {
    public var truthLength: Double
    public var missingLength: Double
    public var extraLength: Double

    /// (missing + extra) / truth; NaN for an empty truth.
    public var fraction: Double { truthLength > 0 ? (missingLength + extraLength) / truthLength : .nan }

    public init(truthLength: Double, missingLength: Double, extraLength: Double) {
        self.truthLength = truthLength; self.missingLength = missingLength; self.extraLength = extraLength
    }

    /// Scores `matched` against `truth` with `length(id)` metres per edge id (0 for unknown ids).
    public init<ID: Hashable>(truth: [ID], matched: [ID], length: (ID) -> Double) {
        var t: [ID: Int] = [:], m: [ID: Int] = [:]
        for id in truth { t[id, default: 0] += 1 }
        for id in matched { m[id, default: 0] += 1 }
        var truthLength = 0.0, missing = 0.0, extra = 0.0
        for id in truth { truthLength += length(id) }
        for (id, n) in t where n > (m[id] ?? 0) { missing += Double(n - (m[id] ?? 0)) * length(id) }
        for (id, n) in m where n > (t[id] ?? 0) { extra += Double(n - (t[id] ?? 0)) * length(id) }
        self.init(truthLength: truthLength, missingLength: missing, extraLength: extra)
    }

    /// Sums of several scores (length-weighted over tracks).
    public static func + (a: RouteMismatch, b: RouteMismatch) -> RouteMismatch {
        RouteMismatch(truthLength: a.truthLength + b.truthLength, missingLength: a.missingLength + b.missingLength,
                      extraLength: a.extraLength + b.extraLength)
    }
}

extension RoadNetwork {
    /// Total length in metres of the edges of each source id.
    public func lengthsBySourceID() -> [EdgeSourceID: Double] {
        var out: [EdgeSourceID: Double] = [:]
        for e in edges { out[e.sourceID, default: 0] += e.length }
        return out
    }
}

extension Track {
    /// The track keeping the first fix and then each fix at least `interval` seconds after the last one kept
    /// (fixes without a time are kept). For testing matching at sparser sampling.
    public func subsampled(every interval: Double) -> Track {
        var kept: [Fix] = [], lines: [UInt32] = [], keptRows: [UInt32] = []
        var last = -Double.infinity
        for (i, f) in fixes.enumerated() {
            if let t = f.time {
                if t < last + interval { continue }
                last = t
            }
            kept.append(f)
            lines.append(sourceLines.indices.contains(i) ? sourceLines[i] : UInt32(i + 1))
            keptRows.append(rows.indices.contains(i) ? rows[i] : UInt32(i))
        }
        return Track(name: name, fixes: kept, sourceLines: lines, skipped: skipped, rows: keptRows)
    }
}
