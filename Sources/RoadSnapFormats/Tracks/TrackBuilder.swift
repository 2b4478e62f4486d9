import RoadSnapCore

/// Collects fixes, their source lines, segment starts and skipped records while a reader walks a file.
struct TrackBuilder {
    let name: String
    private(set) var fixes: [Fix] = []
    private(set) var sourceLines: [UInt32] = []
    private(set) var segmentStarts: [Int] = []
    private(set) var skipped: [RoadSnapError] = []
    /// 0-based input row of each fix (see `Track.rows`).
    private(set) var rows: [UInt32] = []
    private var nextRow = 0
    private var segmentPending = true
    /// The first fix whose row or line does not fit the track's 32-bit numbers (`Track.numbers`): `finish` refuses
    /// the track, naming it; fixes after it are not kept.
    private var tooLong: (row: Int, line: Int)? = nil

    init(name: String) { self.name = name }

    /// The next fix added opens a new segment.
    mutating func startSegment() { segmentPending = true }

    /// Adds a fix read from input row `row` (0-based; default: the row after the last one added or skipped); one
    /// whose time is beyond `Fix.maxTime` is skipped instead, using up its row (every reader's one check, so no
    /// output has to write a time it cannot represent).
    mutating func add(_ fix: Fix, line: Int, row: Int? = nil) {
        if let t = fix.time, !Fix.isUsableTime(t) {
            skip(line: line, "time \(t) s is beyond ±1e11 s from 1970-01-01 (years -1200...5100)")
            nextRow = max(nextRow, (row ?? nextRow) + 1)
            return
        }
        let r = row ?? nextRow
        nextRow = max(nextRow, r + 1)
        guard tooLong == nil else { return }
        guard let numbers = Track.numbers(row: r, line: line) else {
            tooLong = (r, line)
            return
        }
        if segmentPending || fixes.isEmpty {
            segmentStarts.append(fixes.count)
            segmentPending = false
        }
        fixes.append(fix)
        sourceLines.append(numbers.line)
        rows.append(numbers.row)
    }

    /// Records a problem that left something out, naming the line (or record) when known; no input row is used up.
    mutating func skip(line: Int?, _ reason: String) {
        skipped.append(.invalidTrack(path: name, line: line, reason: reason))
    }

    /// Records a fix record (an input row) that was left out: the next fix's row counts it.
    mutating func skipRecord(line: Int?, _ reason: String) {
        skip(line: line, reason)
        nextRow += 1
    }

    /// The track, or an error naming the file (and the first skipped line) when no fix was usable, or the first fix
    /// beyond `Track.maxRows` rows or lines.
    func finish(emptyReason: String) throws(RoadSnapError) -> Track {
        if let (row, line) = tooLong {
            throw .invalidTrack(path: name, line: line, reason: "the track is too long: row \(row) (0-based) or line "
                + "\(line) is beyond the \(Track.maxRows) rows and lines a track can have (they are kept as 32-bit numbers)")
        }
        guard !fixes.isEmpty else {
            if case let .invalidTrack(_, line, reason)? = skipped.first {
                let more = skipped.count > 1 ? " (and \(skipped.count - 1) more unusable rows)" : ""
                throw .invalidTrack(path: name, line: line, reason: "\(emptyReason); \(reason)\(more)")
            }
            throw .invalidTrack(path: name, line: nil, reason: emptyReason)
        }
        return Track(name: name, fixes: fixes, segmentStarts: segmentStarts, sourceLines: sourceLines,
                     skipped: skipped, rows: rows)
    }

    /// A checked coordinate, or the reason it is unusable.
    static func coordinate(latitude: Double, longitude: Double) -> Result<GeoCoordinate, TrackValueError> {
        guard latitude.isFinite, longitude.isFinite else {
            return .failure(TrackValueError("coordinate (\(latitude), \(longitude)) is not a number"))
        }
        guard abs(latitude) <= 90 else {
            return .failure(TrackValueError("latitude \(latitude) out of range [-90, 90]"))
        }
        guard abs(longitude) <= 180 else {
            return .failure(TrackValueError("longitude \(longitude) out of range [-180, 180]"))
        }
        return .success(GeoCoordinate(uncheckedLatitude: latitude, longitude: longitude))
    }

    /// Fix fields beside the position are optional, but when present they must be finite and in range.
    static func checkOptional(course: Double?, speed: Double?, altitude: Double?, accuracy: Double?)
        -> TrackValueError?
    {
        if let course, !course.isFinite {
            return TrackValueError("course \(course) is not a bearing in degrees")
        }
        if let speed, !(speed.isFinite && speed >= 0) { return TrackValueError("speed \(speed) is not a speed") }
        if let altitude, !altitude.isFinite { return TrackValueError("altitude \(altitude) is not a number") }
        if let accuracy, !(accuracy.isFinite && accuracy >= 0) {
            return TrackValueError("accuracy \(accuracy) is not a distance")
        }
        return nil
    }
}

/// Why one value of a row could not be used (becomes the reason of a skipped row).
struct TrackValueError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Normalises a course to [0, 360).
@inline(__always)
func normalisedCourse(_ c: Double) -> Double {
    var d = c.truncatingRemainder(dividingBy: 360)
    if d < 0 { d += 360 }
    return d
}

/// Metres of horizontal error (1 sigma) per unit of HDOP. Newson & Krumm measured sigma = 4.07 m on a consumer
/// receiver at typical HDOP of about 1, so HDOP x 4 m is used where a format gives only HDOP.
let metresPerHDOP = 4.0
