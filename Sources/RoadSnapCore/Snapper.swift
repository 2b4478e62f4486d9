import RoadSnapBridge

/// A fix snapped to the road: which edge, where on it, and how far the fix was.
public struct SnappedFix: Hashable, Sendable {
    public var edge: Int
    public var coordinate: GeoCoordinate
    public var distance: Double
    public var offset: Double
    /// Road bearing at the snapped point in the direction the fix is taken to travel, degrees.
    public var bearing: Double
}

/// Per-thread road snapping on a network: owns a PROJ frame clone and a GEOS query context. Not thread-safe;
/// make one per thread (they share the network's index).
public final class Snapper {
    public let network: RoadNetwork
    public let frame: LocalFrame
    public let query: SegmentQuery
    private var xs: [Double] = [], ys: [Double] = [], courses: [Double] = []
    private var batch: [SnapCandidate?] = []

    /// Default search radius in metres.
    public static let defaultRadius = 50.0

    public init(network: RoadNetwork, maxCandidates: Int = 64) throws(RoadSnapError) {
        self.network = network
        frame = try network.makeFrame()
        query = try network.makeQuery(capacity: maxCandidates)
    }

    /// The fix's position in the network's local frame.
    /// Throws `.projection` (which point, PROJ's reason) when PROJ refuses the coordinate.
    public func project(_ c: GeoCoordinate) throws(RoadSnapError) -> LocalPoint {
        try native { () throws(NativeFailure) in try frame.project(latitude: c.latitude, longitude: c.longitude) }
    }

    /// All candidate edges within `radius` of the coordinate, nearest first. Throws `.projection` when PROJ refuses
    /// the coordinate and `.geometry` when the GEOS search fails.
    public func candidates(near c: GeoCoordinate, radius: Double = Snapper.defaultRadius,
                           method: SegmentQuery.Method = .cached) throws(RoadSnapError) -> [SnapCandidate]
    {
        try native { () throws(NativeFailure) in
            try query.candidates(near: frame.project(latitude: c.latitude, longitude: c.longitude), radius: radius,
                                 method: method)
        }
    }

    /// Snaps one fix: the nearest edge, with course and one-way direction taken into account. Nil when none is near;
    /// throws when PROJ or GEOS fails (see `candidates`).
    public func snap(_ fix: Fix, radius: Double = Snapper.defaultRadius) throws(RoadSnapError) -> SnappedFix? {
        let cands = try candidates(near: fix.coordinate, radius: radius)
        guard let k = query.choose(among: cands, course: fix.course ?? .nan) else { return nil }
        return snapped(cands[k], course: fix.course)
    }

    /// Snaps many fixes in one C call (projection batched through PROJ, candidate choice in C).
    public func snap(_ fixes: [Fix], radius: Double = Snapper.defaultRadius) throws(RoadSnapError) -> [SnappedFix?] {
        // In blocks of 65,536 fixes, so the projected positions, courses and candidates (72 bytes per fix) are held
        // for one block only, not for a whole big track (issue 16, item 11); each fix is snapped on its own.
        var results: [SnappedFix?] = []
        results.reserveCapacity(fixes.count)
        var start = 0
        while start < fixes.count {
            let block = fixes[start..<min(fixes.count, start + Self.blockSize)]
            try native { () throws(NativeFailure) in
                try frame.forward(latitudes: block.map(\.coordinate.latitude),
                                  longitudes: block.map(\.coordinate.longitude), x: &xs, y: &ys)
            }
            courses = block.map { $0.course ?? .nan }
            try native { () throws(NativeFailure) in
                try query.snapBatch(x: xs, y: ys, course: courses, radius: radius, into: &batch)
            }
            for (k, c) in batch.enumerated() {
                results.append(c.map { snapped($0, course: block[start + k].course) })
            }
            start = block.endIndex
        }
        return results
    }

    /// Fixes snapped per C call by `snap`.
    static let blockSize = 1 << 16

    /// Snaps pre-projected points (metres) in one C call, without building result values: the benchmark path.
    public func snapProjected(x: [Double], y: [Double], course: [Double]?, radius: Double,
                              into out: inout [SnapCandidate?]) throws(RoadSnapError)
    {
        try native { () throws(NativeFailure) in
            try query.snapBatch(x: x, y: y, course: course, radius: radius, into: &out)
        }
    }

    func snapped(_ c: SnapCandidate, course: Double?) -> SnappedFix {
        let g = frame.inverse(c.point)
        var bearing = c.bearing
        let dir = network.edges[c.edge].direction
        if dir == .backward || (dir == .both && course.map({ bearingDifference($0, c.bearing) > 90 }) == true) {
            bearing = (bearing + 180).truncatingRemainder(dividingBy: 360)
        }
        return SnappedFix(edge: c.edge, coordinate: GeoCoordinate(uncheckedLatitude: g.latitude, longitude: g.longitude),
                          distance: c.distance, offset: c.offset, bearing: bearing)
    }
}
