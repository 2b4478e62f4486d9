/// A recorded GPS track: fixes in time order, with what had to be left out while reading it.
public struct Track: Hashable, Sendable {
    /// A name for messages and outputs (usually the file name).
    public var name: String
    public var fixes: [Fix]
    /// Indices into `fixes` where a new recorded segment starts (GPX `trkseg`); always contains 0 when non-empty.
    public var segmentStarts: [Int]
    /// 1-based source line (or record number) of each fix, where the format has lines; same count as `fixes`.
    /// 32-bit (see `maxRows`).
    public var sourceLines: [UInt32]
    /// Rows or records that were skipped, each with the reason (file, line or fix).
    public var skipped: [RoadSnapError]
    /// 0-based input row of each fix: its index among the file's fix records (CSV data rows, GPX points, GeoJSON
    /// coordinates or samples, NMEA epochs) counting the records skipped as unusable, so results join back to the
    /// input. Same count as `fixes`; `fixes.indices` when nothing was skipped. 32-bit (see `maxRows`).
    public var rows: [UInt32]

    /// The most input rows, and the highest source line, a track can have: rows and lines are kept as 32-bit
    /// numbers (8 bytes per fix instead of 16 on a big track: issue 16, item 11). A reader refuses a longer input
    /// (`numbers(row:line:)`); a track built in memory from more fixes than this stops with that message.
    public static let maxRows = Int(UInt32.max)

    /// Input row `row` (0-based) and source line `line` as a track keeps them, or nil when the input has more than
    /// `maxRows` rows or lines (the row is the `maxRows + 1`-th or later, the line beyond `maxRows`) or a number is
    /// negative: the one check, so no number wraps.
    public static func numbers(row: Int, line: Int) -> (row: UInt32, line: UInt32)? {
        guard row >= 0, row < maxRows, line >= 0, line <= maxRows else { return nil }
        return (UInt32(row), UInt32(line))
    }

    /// `rows` and `sourceLines` default to the fixes' indices and 1-based positions.
    public init(name: String, fixes: [Fix], segmentStarts: [Int]? = nil, sourceLines: [UInt32]? = nil,
                skipped: [RoadSnapError] = [], rows: [UInt32]? = nil)
    {
        precondition(fixes.count <= Self.maxRows, "a track holds at most \(Self.maxRows) fixes (32-bit rows and lines)")
        self.rows = rows ?? fixes.indices.map { UInt32($0) }
        self.name = name
        self.fixes = fixes
        self.segmentStarts = segmentStarts ?? (fixes.isEmpty ? [] : [0])
        self.sourceLines = sourceLines ?? fixes.indices.map { UInt32($0 + 1) }
        self.skipped = skipped
    }
}
