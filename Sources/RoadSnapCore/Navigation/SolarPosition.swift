/// The sun's position seen from a place at a moment, after the NOAA solar calculator's equations (Meeus,
/// "Astronomical Algorithms"): accurate to about 0.01 degree in elevation for years 1800-2100.
public struct SolarPosition: Hashable, Sendable {
    /// Geometric elevation above the horizon, degrees (no refraction).
    public var trueElevation: Double
    /// Elevation corrected for standard atmospheric refraction, degrees: what an observer sees.
    public var apparentElevation: Double
    /// Degrees clockwise from north.
    public var azimuth: Double
    /// Declination of the sun, degrees.
    public var declination: Double
    /// Equation of time, minutes.
    public var equationOfTime: Double

    /// The civil twilight limit: below this apparent elevation (degrees) the suggested lighting is low light.
    public static let civilTwilightElevation = -6.0

    /// Computes the position for `time` (seconds since 1970-01-01 UTC) at a latitude/longitude in degrees.
    public init(time: Double, latitude: Double, longitude: Double) {
        let rad = Double.pi / 180
        let julianDay = time / 86400 + 2_440_587.5
        let t = (julianDay - 2_451_545) / 36525  // Julian centuries since J2000.0
        var meanLongitude = (280.46646 + t * (36000.76983 + t * 0.0003032)).truncatingRemainder(dividingBy: 360)
        if meanLongitude < 0 { meanLongitude += 360 }
        let meanAnomaly = 357.52911 + t * (35999.05029 - 0.0001537 * t)
        let eccentricity = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
        let m = meanAnomaly * rad
        let center = RSMath.sin(m) * (1.914602 - t * (0.004817 + 0.000014 * t))
            + RSMath.sin(2 * m) * (0.019993 - 0.000101 * t) + RSMath.sin(3 * m) * 0.000289
        let trueLongitude = meanLongitude + center
        let omega = (125.04 - 1934.136 * t) * rad
        let apparentLongitude = trueLongitude - 0.00569 - 0.00478 * RSMath.sin(omega)
        let meanObliquity = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let obliquity = (meanObliquity + 0.00256 * RSMath.cos(omega)) * rad
        let declination = RSMath.asin(RSMath.sin(obliquity) * RSMath.sin(apparentLongitude * rad))
        let y = RSMath.tan(obliquity / 2) * RSMath.tan(obliquity / 2)
        let l0 = meanLongitude * rad
        let eot = 4 / rad * (y * RSMath.sin(2 * l0) - 2 * eccentricity * RSMath.sin(m)
            + 4 * eccentricity * y * RSMath.sin(m) * RSMath.cos(2 * l0)
            - 0.5 * y * y * RSMath.sin(4 * l0) - 1.25 * eccentricity * eccentricity * RSMath.sin(2 * m))
        // True solar time in minutes from the UTC time of day.
        var minutesOfDay = (time / 60).truncatingRemainder(dividingBy: 1440)
        if minutesOfDay < 0 { minutesOfDay += 1440 }
        var solarTime = (minutesOfDay + eot + 4 * longitude).truncatingRemainder(dividingBy: 1440)
        if solarTime < 0 { solarTime += 1440 }
        let hourAngle = solarTime / 4 < 0 ? solarTime / 4 + 180 : solarTime / 4 - 180
        let lat = latitude * rad
        let cosZenith = max(-1, min(1, RSMath.sin(lat) * RSMath.sin(declination)
            + RSMath.cos(lat) * RSMath.cos(declination) * RSMath.cos(hourAngle * rad)))
        let zenith = RSMath.acos(cosZenith)
        let elevation = 90 - zenith / rad
        // Azimuth from north, clockwise.
        let denominator = RSMath.cos(lat) * RSMath.sin(zenith)
        var azimuth: Double
        if abs(denominator) < 1e-12 {
            azimuth = latitude > 0 ? 180 : 0
        } else {
            let c = max(-1, min(1, (RSMath.sin(lat) * cosZenith - RSMath.sin(declination)) / denominator))
            let a = RSMath.acos(c) / rad
            azimuth = hourAngle > 0 ? (a + 180).truncatingRemainder(dividingBy: 360) : (540 - a).truncatingRemainder(dividingBy: 360)
        }
        trueElevation = elevation
        apparentElevation = elevation + SolarPosition.refraction(elevation: elevation)
        self.azimuth = azimuth
        self.declination = declination / rad
        equationOfTime = eot
    }

    /// The NOAA approximation of atmospheric refraction (degrees) at a geometric elevation in degrees.
    public static func refraction(elevation e: Double) -> Double {
        if e > 85 { return 0 }
        let tanE = RSMath.tan(e * Double.pi / 180)
        let arcSeconds: Double
        if e > 5 {
            arcSeconds = 58.1 / tanE - 0.07 / (tanE * tanE * tanE) + 0.000086 / (tanE * tanE * tanE * tanE * tanE)
        } else if e > -0.575 {
            arcSeconds = 1735 + e * (-518.2 + e * (103.4 + e * (-12.79 + e * 0.711)))
        } else {
            arcSeconds = -20.772 / tanE
        }
        return arcSeconds / 3600
    }

    /// The lighting a display should use for this sun position: low light once the sun is below civil twilight.
    public var suggestedLightingMode: LightingMode {
        apparentElevation < SolarPosition.civilTwilightElevation ? .lowLight : .normal
    }

    /// Sunrise and sunset (seconds since the epoch, UTC) of the UTC day holding `time` at a place, where the sun's
    /// upper limb touches the horizon (apparent elevation -0.833 degrees). Nil for polar day or night.
    public static func sunriseSunset(onDayOf time: Double, latitude: Double, longitude: Double)
        -> (sunrise: Double, sunset: Double)?
    {
        let dayStart = (time / 86400).rounded(.down) * 86400
        func event(rising: Bool) -> Double? {
            // Start at local solar noon and refine twice: the declination and equation of time move slowly.
            var estimate = dayStart + (720 - 4 * longitude) * 60
            for _ in 0..<3 {
                let p = SolarPosition(time: estimate, latitude: latitude, longitude: longitude)
                let rad = Double.pi / 180
                let lat = latitude * rad, dec = p.declination * rad
                let cosH = RSMath.cos(90.833 * rad) / (RSMath.cos(lat) * RSMath.cos(dec))
                    - RSMath.tan(lat) * RSMath.tan(dec)
                guard cosH >= -1, cosH <= 1 else { return nil }
                let hourAngle = RSMath.acos(cosH) / rad
                let noon = 720 - 4 * longitude - p.equationOfTime
                estimate = dayStart + (noon + (rising ? -4 : 4) * hourAngle) * 60
            }
            return estimate
        }
        guard let rise = event(rising: true), let set = event(rising: false) else { return nil }
        return (rise, set)
    }
}
