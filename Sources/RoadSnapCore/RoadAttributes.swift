/// OSM road class (`highway=*`), plus ferry routes.
public enum RoadClass: String, Hashable, Sendable, CaseIterable {
    case motorway, motorwayLink = "motorway_link", trunk, trunkLink = "trunk_link", primary
    case primaryLink = "primary_link", secondary, secondaryLink = "secondary_link", tertiary
    case tertiaryLink = "tertiary_link", unclassified, residential, livingStreet = "living_street", service
    case ferry
    /// Roads of a GeoJSON network without a `highway` property.
    case unknown

    /// Parses an OSM `highway` value; nil for values that are not car roads (footway, track, …).
    public init?(highway: String) {
        guard let c = RoadClass(rawValue: highway), c != .ferry, c != .unknown else { return nil }
        self = c
    }

    /// Default speed in km/h when no `maxspeed` is tagged (typical free-flow car speeds, as OSRM's car profile uses).
    public var defaultSpeedKmh: Double {
        switch self {
        case .motorway: return 90
        case .motorwayLink: return 45
        case .trunk: return 85
        case .trunkLink: return 40
        case .primary: return 65
        case .primaryLink: return 30
        case .secondary: return 55
        case .secondaryLink: return 25
        case .tertiary: return 40
        case .tertiaryLink: return 20
        case .unclassified: return 25
        case .residential: return 25
        case .livingStreet: return 10
        case .service: return 15
        case .ferry: return 5
        case .unknown: return 40
        }
    }

    /// Motorways and trunk roads (and their links): what "avoid highways" avoids.
    public var isHighway: Bool {
        switch self {
        case .motorway, .motorwayLink, .trunk, .trunkLink: return true
        default: return false
        }
    }

    /// The `_link` classes (ramps).
    public var isLink: Bool {
        switch self {
        case .motorwayLink, .trunkLink, .primaryLink, .secondaryLink, .tertiaryLink: return true
        default: return false
        }
    }
}

/// Where a road edge came from: an OSM way, or a feature of a GeoJSON network (numeric or string id).
public enum EdgeSourceID: Hashable, Sendable, CustomStringConvertible {
    case osmWay(Int64)
    case number(Int64)
    case string(String)

    public var description: String {
        switch self {
        case let .osmWay(id): return String(id)
        case let .number(id): return String(id)
        case let .string(s): return s
        }
    }
}

/// Whether cars may use a road.
public enum RoadAccess: String, Hashable, Sendable {
    /// Open to cars.
    case yes
    /// Only to reach places on it (private, destination, delivery, customers): routed through only at a cost.
    case destination
    /// Closed to cars (such ways are not loaded).
    case no

    /// Reads access tags, most specific first (`motorcar`, `motor_vehicle`, `vehicle`, `access`).
    public init(tags: [String: String]) {
        for key in ["motorcar", "motor_vehicle", "vehicle", "access"] {
            guard let v = tags[key] else { continue }
            switch v {
            case "yes", "permissive", "designated", "official": self = .yes; return
            case "private", "destination", "delivery", "customers", "permit", "residents": self = .destination; return
            case "no", "agricultural", "forestry", "emergency", "psv", "bus", "use_sidepath", "discouraged":
                self = .no; return
            default: continue
            }
        }
        self = .yes
    }
}

/// Tagged road attributes of an edge, as read from OSM or GeoJSON.
public struct RoadAttributes: Hashable, Sendable {
    public var roadClass: RoadClass
    public var name: String?
    public var ref: String?
    /// Speed limit in km/h in the edge's forward and backward directions, when tagged.
    public var maxspeedForward: Double?
    public var maxspeedBackward: Double?
    public var lanes: Int?
    /// `turn:lanes` for the forward and backward directions, as tagged (lanes left to right, `|`-separated).
    public var turnLanesForward: String?
    public var turnLanesBackward: String?
    public var isRoundabout: Bool
    public var isToll: Bool
    public var access: RoadAccess
    /// Ferry crossing time in seconds from the `duration` tag, when tagged.
    public var ferryDuration: Double?
    /// A car-carrying train (`route=shuttle_train`), a kind of ferry.
    public var isTrain: Bool
    /// Destination signposting (`destination`, `destination:ref`).
    public var destination: String?

    public init(roadClass: RoadClass, name: String? = nil, ref: String? = nil, maxspeedForward: Double? = nil,
                maxspeedBackward: Double? = nil, lanes: Int? = nil, turnLanesForward: String? = nil,
                turnLanesBackward: String? = nil, isRoundabout: Bool = false, isToll: Bool = false,
                access: RoadAccess = .yes, ferryDuration: Double? = nil, destination: String? = nil,
                isTrain: Bool = false)
    {
        self.roadClass = roadClass; self.name = name; self.ref = ref; self.maxspeedForward = maxspeedForward
        self.maxspeedBackward = maxspeedBackward; self.lanes = lanes; self.turnLanesForward = turnLanesForward
        self.turnLanesBackward = turnLanesBackward; self.isRoundabout = isRoundabout; self.isToll = isToll
        self.access = access; self.ferryDuration = ferryDuration; self.destination = destination
        self.isTrain = isTrain
    }

    public var isFerry: Bool { roadClass == .ferry }

    /// Speed used for travel time in the given direction: the tagged limit, else the class default (a car train:
    /// 10 km/h, as OSRM), km/h.
    public func speedKmh(forward: Bool) -> Double {
        (forward ? maxspeedForward : maxspeedBackward) ?? maxspeedForward ?? (isTrain ? 10 : roadClass.defaultSpeedKmh)
    }
}

/// Interpretation of OSM tag values.
public enum OSMTags {
    /// Travel direction from `oneway` (yes/1/true/-1/reverse/no), implied one-way on motorways and roundabouts.
    public static func direction(_ tags: [String: String], roadClass: RoadClass) -> TravelDirection {
        let value = tags["oneway:motorcar"] ?? tags["oneway:motor_vehicle"] ?? tags["oneway"]
        switch value {
        case "yes", "1", "true": return .forward
        case "-1", "reverse": return .backward
        case "no", "false", "0": return .both
        default: break
        }
        if roadClass == .motorway { return .forward }
        if let j = tags["junction"], j == "roundabout" || j == "circular" { return .forward }
        return .both
    }

    /// Country zone speed limits (`maxspeed=DE:urban` and friends) in km/h. Values are the national defaults
    /// for cars; motorways without a general limit (DE) map to 130, the German advisory speed.
    public static let zoneSpeeds: [String: Double] = [
        "urban": 50, "rural": 90, "motorway": 130, "trunk": 100, "living_street": 7, "walk": 7, "zone30": 30,
        "zone20": 20, "zone:30": 30, "zone:20": 20, "bicycle_road": 30, "school": 30,
        "DE:urban": 50, "DE:rural": 100, "DE:motorway": 130, "DE:trunk": 100, "DE:living_street": 7,
        "AT:urban": 50, "AT:rural": 100, "AT:motorway": 130, "AT:trunk": 100,
        "CH:urban": 50, "CH:rural": 80, "CH:motorway": 120, "CH:trunk": 100,
        "FR:urban": 50, "FR:rural": 80, "FR:motorway": 130, "FR:zone30": 30,
        "IT:urban": 50, "IT:rural": 90, "IT:motorway": 130, "IT:trunk": 110,
        "ES:urban": 50, "ES:rural": 90, "ES:motorway": 120, "ES:trunk": 100,
        "NL:urban": 50, "NL:rural": 80, "NL:motorway": 100, "NL:trunk": 100,
        "BE:urban": 50, "BE:rural": 70, "BE:motorway": 120, "BE-VLG:rural": 70, "BE-WAL:rural": 90,
        "CZ:urban": 50, "CZ:rural": 90, "CZ:motorway": 130, "CZ:trunk": 110,
        "PL:urban": 50, "PL:rural": 90, "PL:motorway": 140, "PL:trunk": 120, "PL:expressway": 120,
        "SK:urban": 50, "SK:rural": 90, "SK:motorway": 130, "HU:urban": 50, "HU:rural": 90, "HU:motorway": 130,
        "RU:urban": 60, "RU:rural": 90, "RU:motorway": 110, "RU:living_street": 20,
        "UA:urban": 50, "UA:rural": 90, "UA:motorway": 130, "UA:trunk": 110,
        "RO:urban": 50, "RO:rural": 90, "RO:motorway": 130, "RS:urban": 50, "RS:rural": 80, "RS:motorway": 130,
        "DK:urban": 50, "DK:rural": 80, "DK:motorway": 130, "FI:urban": 50, "FI:rural": 80, "FI:motorway": 120,
        "SE:urban": 50, "SE:rural": 70, "SE:motorway": 110, "NO:urban": 50, "NO:rural": 80, "NO:motorway": 110,
        "TR:urban": 50, "TR:rural": 90, "TR:motorway": 120, "TR:trunk": 110,
        "GB:nsl_single": 96.56, "GB:nsl_dual": 112.65, "GB:motorway": 112.65, "GB:zone20": 32.19,
        "GB:zone30": 48.28, "UK:nsl_single": 96.56, "UK:nsl_dual": 112.65, "UK:motorway": 112.65,
        "IE:urban": 50, "IE:rural": 80, "IE:motorway": 120, "PT:urban": 50, "PT:rural": 90, "PT:motorway": 120,
        "KZ:urban": 60, "KZ:rural": 90, "KZ:motorway": 110, "AR:urban": 40, "AR:rural": 110,
        "BR:urban": 60, "BR:rural": 90, "JP:urban": 60, "JP:rural": 60, "JP:motorway": 100,
    ]

    /// Parses a `maxspeed` value to km/h: plain numbers, `km/h`, `mph`, `knots`, `walk`, `none` (nil: no limit)
    /// and country zone values such as `DE:urban` (see `zoneSpeeds`). Unknown values give nil.
    public static func speedKmh(_ raw: String) -> Double? {
        let value = raw.split(separator: ";").first.map { String($0) }?.trimmed ?? ""
        if value.isEmpty || value == "none" || value == "signals" || value == "variable" { return nil }
        if value == "walk" { return 7 }
        if let zone = zoneSpeeds[value] { return zone }
        if let colon = value.lastIndex(of: ":") {
            let suffix = String(value[value.index(after: colon)...])
            if let zone = zoneSpeeds[suffix] { return zone }
            return nil
        }
        var number = ""
        var rest = Substring(value)
        while let ch = rest.first, ch.isNumber || ch == "." { number.append(ch); rest = rest.dropFirst() }
        guard let n = Double(number), n > 0 else { return nil }
        let unit = rest.trimmed
        switch unit {
        case "", "km/h", "kmh", "kph": return n
        case "mph": return n * 1.609344
        case "knots": return n * 1.852
        default: return nil
        }
    }

    /// Parses OSM duration values (`mm`, `hh:mm`, `hh:mm:ss`) to seconds.
    public static func durationSeconds(_ raw: String) -> Double? {
        let parts = raw.split(separator: ":").map { Double($0.trimmed) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil }) else { return nil }
        let p = parts.compactMap { $0 }
        switch p.count {
        case 1: return p[0] * 60
        case 2: return p[0] * 3600 + p[1] * 60
        case 3: return p[0] * 3600 + p[1] * 60 + p[2]
        default: return nil
        }
    }

    /// Road attributes of a way, or nil when the way is not usable by car (not a car road, area, closed access).
    public static func attributes(_ tags: [String: String]) -> (RoadAttributes, TravelDirection)? {
        let roadClass: RoadClass
        if let hw = tags["highway"], let c = RoadClass(highway: hw) {
            roadClass = c
        } else if tags["route"] == "ferry" || tags["route"] == "shuttle_train" {
            roadClass = .ferry
        } else {
            return nil
        }
        if tags["area"] == "yes" { return nil }
        // Roads under construction (`construction=*` other than no/minor/widening) are closed, as routers treat them.
        if let c = tags["construction"], c != "no", c != "minor", c != "widening" { return nil }
        let access = RoadAccess(tags: tags)
        if access == .no { return nil }
        if roadClass == .ferry, let mv = tags["motorcar"] ?? tags["motor_vehicle"], mv == "no" { return nil }
        let direction = direction(tags, roadClass: roadClass)
        var limit = tags["maxspeed"].flatMap(speedKmh)
        if limit == nil, let zone = tags["maxspeed:type"] ?? tags["source:maxspeed"] ?? tags["zone:maxspeed"] {
            limit = speedKmh(zone)
        }
        // Per-direction values refer to the geometry's direction; plain `turn:lanes` to the one-way direction.
        let forward = tags["maxspeed:forward"].flatMap(speedKmh) ?? limit
        let backward = tags["maxspeed:backward"].flatMap(speedKmh) ?? limit
        let turnForward = tags["turn:lanes:forward"] ?? (direction == .forward ? tags["turn:lanes"] : nil)
        let turnBackward = tags["turn:lanes:backward"] ?? (direction == .backward ? tags["turn:lanes"] : nil)
        let attrs = RoadAttributes(
            roadClass: roadClass, name: tags["name"].flatMap { $0.isEmpty ? nil : $0 },
            ref: tags["ref"].flatMap { $0.isEmpty ? nil : $0 }, maxspeedForward: forward, maxspeedBackward: backward,
            lanes: tags["lanes"].flatMap { Int($0.trimmed) }, turnLanesForward: turnForward,
            turnLanesBackward: turnBackward,
            isRoundabout: tags["junction"] == "roundabout" || tags["junction"] == "circular",
            isToll: tags["toll"] == "yes" || tags["toll"] == "true", access: access,
            ferryDuration: roadClass == .ferry ? tags["duration"].flatMap(durationSeconds) : nil,
            destination: tags["destination"] ?? tags["destination:ref"],
            isTrain: tags["highway"] == nil && tags["route"] == "shuttle_train")
        return (attrs, direction)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmed: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
