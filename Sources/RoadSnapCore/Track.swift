/// A recorded GPS track: fixes in time order, with what had to be left out while reading it.
public struct Track: Hashable, Sendable {
    /// A name for messages and outputs (usually the file name).
    public var name: String
    public var fixes: [Fix]
    /// Indices into `fixes` where a new recorded segment starts (GPX `trkseg`); always contains 0 when non-empty.
    public var segmentStarts: [Int]
    /// 1-based source line (or record number) of each fix, where the format has lines; same count as `fixes`.
    public var sourceLines: [Int]
    /// Rows or records that were skipped, each with the reason (file, line or fix).
    public var skipped: [RoadSnapError]
    /// 0-based input row of each fix: its index among the file's fix records (CSV data rows, GPX points, GeoJSON
    /// coordinates or samples, NMEA epochs) counting the records skipped as unusable, so results join back to the
    /// input. Same count as `fixes`; `fixes.indices` when nothing was skipped.
    public var rows: [Int]

    public init(name: String, fixes: [Fix], segmentStarts: [Int]? = nil, sourceLines: [Int]? = nil,
                skipped: [RoadSnapError] = [], rows: [Int]? = nil)
    {
        self.rows = rows ?? Array(fixes.indices)
        self.name = name
        self.fixes = fixes
        self.segmentStarts = segmentStarts ?? (fixes.isEmpty ? [] : [0])
        self.sourceLines = sourceLines ?? Array(1...max(1, fixes.count)).prefix(fixes.count).map { $0 }
        self.skipped = skipped
    }
}
