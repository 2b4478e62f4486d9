import RoadSnapBridge

/// A WGS84 position in degrees.
public struct GeoCoordinate: Hashable, Sendable {
    public var latitude: Double
    public var longitude: Double

    /// Checks that latitude is in [-90, 90] and longitude in [-180, 180].
    public init(latitude: Double, longitude: Double) throws(RoadSnapError) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
            throw .invalidArgument("coordinate (\(latitude), \(longitude)) is not a valid latitude/longitude")
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// For values already known to be valid.
    public init(uncheckedLatitude latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Geodesic distance in metres to `other`.
    public func distance(to other: GeoCoordinate) -> Double {
        Geodesic.inverse(latitude1: latitude, longitude1: longitude, latitude2: other.latitude,
                         longitude2: other.longitude).distance
    }

    /// Initial geodesic bearing to `other`, degrees clockwise from north.
    public func bearing(to other: GeoCoordinate) -> Double {
        Geodesic.inverse(latitude1: latitude, longitude1: longitude, latitude2: other.latitude,
                         longitude2: other.longitude).initialAzimuth
    }
}

/// A latitude/longitude box.
public struct GeoBoundingBox: Hashable, Sendable {
    public var minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude; self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude; self.maxLongitude = maxLongitude
    }

    /// The smallest box holding every coordinate (nil when there is none).
    public init?<S: Sequence>(covering coordinates: S) where S.Element == GeoCoordinate {
        var it = coordinates.makeIterator()
        guard let first = it.next() else { return nil }
        var b = GeoBoundingBox(minLatitude: first.latitude, minLongitude: first.longitude,
                               maxLatitude: first.latitude, maxLongitude: first.longitude)
        while let c = it.next() {
            b.minLatitude = min(b.minLatitude, c.latitude); b.maxLatitude = max(b.maxLatitude, c.latitude)
            b.minLongitude = min(b.minLongitude, c.longitude); b.maxLongitude = max(b.maxLongitude, c.longitude)
        }
        self = b
    }

    public var center: GeoCoordinate {
        GeoCoordinate(uncheckedLatitude: (minLatitude + maxLatitude) / 2, longitude: (minLongitude + maxLongitude) / 2)
    }

    public func contains(_ c: GeoCoordinate) -> Bool {
        c.latitude >= minLatitude && c.latitude <= maxLatitude && c.longitude >= minLongitude && c.longitude <= maxLongitude
    }
}

/// One GPS fix: position plus whatever the receiver reported. Times are seconds since 1970-01-01 UTC.
///
/// Stored compactly (56 bytes, was 96): an unknown value is kept as one particular NaN (`Fix.absent`, a payload no
/// arithmetic or parser produces) rather than as an optional (16 bytes for 8), since a track holds one `Fix` per row
/// and a 1,000,000-fix track is read whole (issue 16, item 11). Any other value, NaN included, reads back as given.
public struct Fix: Hashable, Sendable {
    public var coordinate: GeoCoordinate
    private var storedTime: Double
    private var storedCourse: Double
    private var storedSpeed: Double
    private var storedAltitude: Double
    private var storedAccuracy: Double

    /// Seconds since the Unix epoch (UTC), when known.
    public var time: Double? {
        get { Fix.isAbsent(storedTime) ? nil : storedTime }
        set { storedTime = newValue ?? Fix.absent }
    }
    /// Course over ground, degrees clockwise from north, when known.
    public var course: Double? {
        get { Fix.isAbsent(storedCourse) ? nil : storedCourse }
        set { storedCourse = newValue ?? Fix.absent }
    }
    /// Speed over ground in m/s, when known.
    public var speed: Double? {
        get { Fix.isAbsent(storedSpeed) ? nil : storedSpeed }
        set { storedSpeed = newValue ?? Fix.absent }
    }
    /// Altitude in metres, when known.
    public var altitude: Double? {
        get { Fix.isAbsent(storedAltitude) ? nil : storedAltitude }
        set { storedAltitude = newValue ?? Fix.absent }
    }
    /// Horizontal accuracy (1 sigma, metres), when known.
    public var horizontalAccuracy: Double? {
        get { Fix.isAbsent(storedAccuracy) ? nil : storedAccuracy }
        set { storedAccuracy = newValue ?? Fix.absent }
    }

    /// Largest time in seconds from the epoch (either way) a fix may carry: 1e11 s, about 3,000 years (year 5138).
    /// Track readers skip rows beyond it and the C API rejects them, so every output can write the time.
    public static let maxTime = 1e11

    /// Whether `time` is a usable fix time: finite and within ±`maxTime`.
    @inlinable
    public static func isUsableTime(_ time: Double) -> Bool { time.isFinite && abs(time) <= maxTime }

    public init(coordinate: GeoCoordinate, time: Double? = nil, course: Double? = nil, speed: Double? = nil,
                altitude: Double? = nil, horizontalAccuracy: Double? = nil)
    {
        self.coordinate = coordinate
        storedTime = time ?? Fix.absent
        storedCourse = course ?? Fix.absent
        storedSpeed = speed ?? Fix.absent
        storedAltitude = altitude ?? Fix.absent
        storedAccuracy = horizontalAccuracy ?? Fix.absent
    }

    /// Where the time, course, speed and horizontal accuracy lie in a `Fix` seen as doubles, and its size in
    /// doubles: the matcher reads them in place from a track's fixes instead of copying a column per fix (issue 16,
    /// item 11; an unknown value is a NaN, which the engine takes as unknown, as it takes a NaN given for nil). Nil if
    /// a `Fix` were ever not a record of doubles.
    package static let doubleLayout: (stride: Int, time: Int, course: Int, speed: Int, accuracy: Int)? = {
        let size = MemoryLayout<Double>.stride
        guard MemoryLayout<Fix>.stride % size == 0, MemoryLayout<Fix>.alignment == MemoryLayout<Double>.alignment,
              let t = MemoryLayout<Fix>.offset(of: \.storedTime), let c = MemoryLayout<Fix>.offset(of: \.storedCourse),
              let s = MemoryLayout<Fix>.offset(of: \.storedSpeed), let a = MemoryLayout<Fix>.offset(of: \.storedAccuracy),
              [t, c, s, a].allSatisfy({ $0 % size == 0 })
        else { return nil }
        return (MemoryLayout<Fix>.stride / size, t / size, c / size, s / size, a / size)
    }()

    /// The bits a stored field holds when the value is unknown: a quiet NaN with a payload of its own.
    @usableFromInline static var absentBits: UInt64 { 0x7FF8_0000_0002_A5E7 }
    @usableFromInline static var absent: Double { Double(bitPattern: absentBits) }

    @inline(__always) @usableFromInline
    static func isAbsent(_ v: Double) -> Bool { v.bitPattern == absentBits }

    // Equality and hashing by the values as read (NaN is not equal to itself, nil is).
    public static func == (a: Fix, b: Fix) -> Bool {
        a.coordinate == b.coordinate && a.time == b.time && a.course == b.course && a.speed == b.speed
            && a.altitude == b.altitude && a.horizontalAccuracy == b.horizontalAccuracy
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(coordinate)
        hasher.combine(time)
        hasher.combine(course)
        hasher.combine(speed)
        hasher.combine(altitude)
        hasher.combine(horizontalAccuracy)
    }
}

/// Smallest absolute difference between two bearings, degrees in [0, 180].
@inlinable
public func bearingDifference(_ a: Double, _ b: Double) -> Double {
    var d = (a - b).truncatingRemainder(dividingBy: 360)
    if d < 0 { d += 360 }
    return d > 180 ? 360 - d : d
}
