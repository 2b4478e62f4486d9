/// Instruction text as a person says it: destination lists joined in words, the variants a banner and a speaker
/// need (long, short, secondary line) and distances in the driver's units.
public enum InstructionText {
    /// Most destination names read out for one sign ("toward A, B and C"); further names are dropped.
    public static let maximumDestinationNames = 3

    /// A raw OSM `destination` list ("156th Avenue Southeast;148th Avenue Southeast;Bellevue") as a person says it:
    /// "156th Avenue Southeast, 148th Avenue Southeast and Bellevue". Blank and repeated names are dropped and at
    /// most `maximumDestinationNames` are kept. Nil when nothing is left.
    public static func destinations(_ raw: String?) -> String? {
        guard let raw else { return nil }
        var names: [String] = []
        for part in raw.split(separator: ";") {
            let name = String(part).trimmed
            if !name.isEmpty, !names.contains(name) { names.append(name) }
        }
        return joined(Array(names.prefix(maximumDestinationNames)))
    }

    /// "A", "A and B", "A, B and C"; nil for none.
    public static func joined(_ names: [String]) -> String? {
        switch names.count {
        case 0: return nil
        case 1: return names[0]
        default: return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        }
    }

    /// The step's instruction without the road ("Turn right", "Take exit 12 on the right", "At the roundabout,
    /// take the 2nd exit"): what a banner's big line or a "now" announcement says.
    public static func short(_ step: RouteStep) -> String {
        switch step.maneuver {
        case .nameChange, .unknown, .straight: return "Continue"
        case .depart: return "Head"
        default:
            return Instructions.text(step.maneuver, road: "", exit: step.roundaboutTurnNumber,
                                     exitNumber: step.exitNumber, towards: nil)
        }
    }

    /// The banner's secondary line: the signposted destinations when there are any, else the road after the
    /// maneuver with its reference ("Main Street (SR 520)"); empty when the road is unnamed.
    public static func secondary(_ step: RouteStep) -> String {
        if let t = step.towards { return "Toward \(t)" }
        return step.fullRoadName
    }

    /// A roundabout left on the road it was entered from: "At the roundabout, take the 3rd exit to turn around"
    /// (back the way the driver came) or "At the roundabout, take the 2nd exit to stay on Main Street".
    static func roundabout(exit: Int, road: String, turnsAround: Bool) -> String {
        let head = "At the roundabout, take the \(Instructions.ordinal(max(1, exit))) exit"
        if turnsAround { return head + " to turn around" }
        return head + (road.isEmpty ? "" : " to stay on \(road)")
    }

    /// `s` with its first letter in lower case, for use after "In 300 metres, " ("turn right onto …"). Words that
    /// keep their capital (names at the start are not possible: every instruction starts with a verb) are none.
    static func lowercasedFirst(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.lowercased() + s.dropFirst()
    }
}

/// How distances are spoken and shown.
public enum DistanceUnits: String, Hashable, Sendable, CaseIterable {
    /// Metres and kilometres.
    case metric
    /// Feet and miles (United States).
    case imperial
    /// Yards and miles (United Kingdom).
    case imperialYards

    /// The units of the country the map lies in, from its bounding box's centre: miles and feet in the United
    /// States (and Liberia, Myanmar), miles and yards in the United Kingdom, else metric.
    public static func `default`(for bounds: GeoBoundingBox) -> DistanceUnits {
        let lat = (bounds.minLatitude + bounds.maxLatitude) / 2, lon = (bounds.minLongitude + bounds.maxLongitude) / 2
        func inside(_ la0: Double, _ la1: Double, _ lo0: Double, _ lo1: Double) -> Bool {
            lat >= la0 && lat <= la1 && lon >= lo0 && lon <= lo1
        }
        // Great Britain and Northern Ireland (Ireland, west of -5.4 below 55.4 N, is metric).
        if inside(49.8, 60.9, -8.2, 1.8) && !(lon < -5.45 && lat > 51.3 && lat < 55.4 && !inside(54.0, 55.4, -8.2, -5.4)) {
            return .imperialYards
        }
        let us = inside(24.4, 49.4, -125, -66.9) || inside(51, 71.5, -170, -129.9) || inside(18.9, 22.3, -160.3, -154.7)
        let others = inside(4.3, 8.6, -11.5, -7.3) || inside(9.5, 28.6, 92.2, 101.2)
        return us || others ? .imperial : .metric
    }

    /// A distance as spoken, rounded to what a driver can use: "300 metres", "1.5 kilometres", "500 feet",
    /// "a quarter mile", "half a mile", "1.5 miles", "300 yards".
    public func spoken(_ metres: Double) -> String {
        let m = max(0, metres.isFinite ? metres : 0)
        switch self {
        case .metric:
            if m < 1000 {
                let unit = m < 100 ? 10.0 : (m < 500 ? 50.0 : 100.0)
                let r = max(unit, (m / unit).rounded() * unit)
                return r >= 1000 ? "1 kilometre" : "\(Int(r)) metres"
            }
            let tenths = Int((m / 100).rounded())
            if tenths % 10 == 0 { return tenths == 10 ? "1 kilometre" : "\(tenths / 10) kilometres" }
            return "\(tenths / 10).\(tenths % 10) kilometres"
        case .imperial, .imperialYards:
            let miles = m / 1609.344
            if miles < 0.18 {
                if self == .imperial {
                    let feet = m / 0.3048
                    let unit = feet < 300 ? 50.0 : 100.0
                    return "\(Int(max(unit, (feet / unit).rounded() * unit))) feet"
                }
                let yards = m / 0.9144
                let unit = yards < 100 ? 10.0 : 50.0
                return "\(Int(max(unit, (yards / unit).rounded() * unit))) yards"
            }
            if miles < 0.375 { return "a quarter mile" }
            if miles < 0.625 { return "half a mile" }
            if miles < 0.875 { return "three quarters of a mile" }
            let tenths = Int((miles * 10).rounded())
            if tenths % 10 == 0 { return tenths == 10 ? "1 mile" : "\(tenths / 10) miles" }
            return "\(tenths / 10).\(tenths % 10) miles"
        }
    }
}
