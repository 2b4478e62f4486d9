import RoadSnapCore

/// Reads a road network from a GeoJSON FeatureCollection of LineString / MultiLineString features (parsed by
/// simdjson; malformed JSON is an error naming the line, column and byte of the fault).
/// The feature `id` (or `properties.id`) becomes the edges' source id; `oneway`, `name`, `maxspeed`, `highway`,
/// `ref`, `lanes`, `junction`, `toll` properties are used when present. A feature whose `highway` is not a car road
/// (`footway`, `cycleway`, `track`, …, as for OSM) is left out, and `warn` is told how many were.
public enum GeoJSONNetworkReader {
    public static func read(path: String, indexCacheRadius: Double = RoadNetwork.defaultIndexCacheRadius,
                            warn: (String) -> Void = { _ in })
        throws(RoadSnapError) -> RoadNetwork
    {
        try read(bytes: FileIO.read(path: path), name: path, indexCacheRadius: indexCacheRadius, warn: warn)
    }

    public static func read(bytes: [UInt8], name: String,
                            indexCacheRadius: Double = RoadNetwork.defaultIndexCacheRadius,
                            warn: (String) -> Void = { _ in })
        throws(RoadSnapError) -> RoadNetwork
    {
        let ways = try ways(bytes: bytes, name: name, warn: warn)
        guard !ways.isEmpty else { throw .noDrivableRoads(path: name) }
        return try RoadNetwork(ways: ways, sourceName: name, indexCacheRadius: indexCacheRadius)
    }

    /// The roads of the document, before the network is built from them (for tools that merge or filter roads, and
    /// the parsing benchmark).
    public static func ways(bytes: [UInt8], name: String, warn: (String) -> Void = { _ in })
        throws(RoadSnapError) -> [RoadWay]
    {
        let doc = try JSONInput.parse(bytes) { .invalidMap(path: name, reason: $0) }
        return try withExtendedLifetime(doc) { () throws(RoadSnapError) -> [RoadWay] in
            try ways(doc, name: name, warn: warn)
        }
    }

    private static func ways(_ doc: JSONNodes, name: String, warn: (String) -> Void) throws(RoadSnapError)
        -> [RoadWay]
    {
        guard doc.kind(0) == .object else { throw .invalidMap(path: name, reason: "top level is not a JSON object") }
        var features: [Int] = []
        switch doc.member(0, "type").flatMap({ doc.string($0) }) {
        case "FeatureCollection":
            guard let f = doc.member(0, "features"), doc.kind(f) == .array,
                  doc.elements(f).allSatisfy({ doc.kind($0) == .object })
            else {
                throw .invalidMap(path: name, reason: "FeatureCollection without a features array")
            }
            features = Array(doc.elements(f))
        case "Feature": features = [0]
        default: throw .invalidMap(path: name, reason: "expected a GeoJSON FeatureCollection of LineStrings")
        }
        var ways: [RoadWay] = []
        ways.reserveCapacity(features.count)
        var points: [GeoCoordinate] = []
        var notCarRoads: [String: Int] = [:]
        defer {
            if !notCarRoads.isEmpty {
                let kinds = notCarRoads.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .prefix(5).map { "highway=\($0.key) (\($0.value))" }.joined(separator: ", ")
                let n = notCarRoads.values.reduce(0, +)
                warn("\(name): left out \(n) feature(s) whose highway is not a car road: \(kinds)"
                    + (notCarRoads.count > 5 ? ", …" : ""))
            }
        }
        for (i, feature) in features.enumerated() {
            let props = doc.member(feature, "properties").flatMap { doc.kind($0) == .object ? $0 : nil }
            // `highway=road` (OSM: a road of unknown class) is what converted research graphs tag every road with:
            // kept, as a road of unknown class like a feature without `highway`.
            if let p = props, let highway = JSONInput.text(doc, doc.member(p, "highway")),
               RoadClass(highway: highway) == nil, highway != "road"
            {
                notCarRoads[highway, default: 0] += 1
                continue
            }
            guard let geometry = doc.member(feature, "geometry"), doc.kind(geometry) == .object,
                  let type = doc.member(geometry, "type").flatMap({ doc.bytes($0) })
            else { continue }
            let coordinates = doc.member(geometry, "coordinates")
            var lines: [Int?] = []
            if type.equals("LineString") {
                lines = [coordinates]
            } else if type.equals("MultiLineString") {
                if let c = coordinates { lines = doc.elements(c).map { $0 } }
            } else {
                continue  // points and polygons are not roads
            }
            let sourceID = sourceIDOf(doc, doc.member(feature, "id") ?? props.flatMap { doc.member($0, "id") },
                                      fallback: i)
            let (attributes, direction) = attributesOf(doc, props)
            for line in lines {
                guard let line, doc.kind(line) == .array, doc.elements(line).allSatisfy({ doc.kind($0) == .array })
                else {
                    throw .invalidMap(path: name, reason: "feature \(i): coordinates are not an array of positions")
                }
                points.removeAll(keepingCapacity: true)
                for c in doc.elements(line) {
                    let second = doc.next(after: c + 1)
                    guard doc.count(c) >= 2, let lon = number(doc, c + 1), let lat = number(doc, second) else {
                        throw .invalidMap(path: name, reason: "feature \(i): a position is not [lon, lat]")
                    }
                    do { points.append(try GeoCoordinate(latitude: lat, longitude: lon)) } catch {
                        throw .invalidMap(path: name, reason: "feature \(i): \(error)")
                    }
                }
                if points.count >= 2 {
                    ways.append(RoadWay(sourceID: sourceID, coordinates: points, direction: direction,
                                        attributes: attributes))
                }
            }
        }
        return ways
    }

    /// A number, or a string spelling one exactly (as Swift's `Double(_:)` reads it).
    static func number(_ doc: JSONNodes, _ i: Int?) -> Double? {
        guard let i else { return nil }
        if let n = doc.number(i) { return n }
        if let s = doc.string(i) { return Double(s) }
        return nil
    }

    static func sourceIDOf(_ doc: JSONNodes, _ i: Int?, fallback: Int) -> EdgeSourceID {
        if let i, let d = doc.number(i) {
            if d == d.rounded(), abs(d) < 9e15 { return .number(Int64(d)) }
            return .string(JSONInput.numberText(d))
        }
        if let i, let s = doc.string(i) { return Int64(s).map { .number($0) } ?? .string(s) }
        return .number(Int64(fallback))
    }

    static func attributesOf(_ doc: JSONNodes, _ props: Int?) -> (RoadAttributes, TravelDirection) {
        func value(_ k: StaticString) -> Int? { props.flatMap { doc.member($0, k) } }
        func text(_ k: StaticString) -> String? { JSONInput.text(doc, value(k)) }
        func isTrue(_ k: StaticString) -> Bool? {
            guard let v = value(k) else { return nil }
            switch doc.kind(v) {
            case .true: return true
            case .false: return false
            default: return nil
            }
        }
        let roadClass = text("highway").flatMap(RoadClass.init(highway:)) ?? (text("route") == "ferry" ? .ferry : .unknown)
        var direction: TravelDirection = .both
        if let b = isTrue("oneway") {
            direction = b ? .forward : .both
        } else if let s = text("oneway") {
            switch s.lowercased() {
            case "yes", "true", "1": direction = .forward
            case "-1", "reverse": direction = .backward
            default: direction = .both
            }
        } else if roadClass == .motorway || text("junction") == "roundabout" {
            direction = .forward
        }
        var maxspeed: Double? = nil
        if let n = number(doc, value("maxspeed")) { maxspeed = n } else if let s = text("maxspeed") { maxspeed = OSMTags.speedKmh(s) }
        let attrs = RoadAttributes(
            roadClass: roadClass, name: text("name"), ref: text("ref"), maxspeedForward: maxspeed,
            maxspeedBackward: maxspeed, lanes: text("lanes").flatMap { Int($0) },
            turnLanesForward: text("turn:lanes"), isRoundabout: text("junction") == "roundabout",
            isToll: text("toll") == "yes" || isTrue("toll") == true)
        return (attrs, direction)
    }
}

/// Opens a map: a compiled map (`.rsmap`, recognised by its content) memory-mapped in place, `.geojson`/`.json` as
/// a GeoJSON network, anything else as OSM via libosmium.
public enum MapLoader {
    /// `indexCacheRadius` applies to source maps; a compiled map keeps the radius it was compiled with.
    /// `verification` says when a compiled map's checksums are verified (see `CompiledMap.open`).
    /// `warn` receives what was left out of a source map (non-car GeoJSON features, OSM ways cut by missing nodes).
    public static func load(path: String, indexCacheRadius: Double = RoadNetwork.defaultIndexCacheRadius,
                            verification: CompiledMap.Verification = .all, warn: (String) -> Void = { _ in })
        throws(RoadSnapError) -> RoadNetwork
    {
        try FileIO.checkReadable(path)
        let lower = path.lowercased()
        if lower.hasSuffix(".rsmap") || CompiledMap.isCompiledMap(path: path) {
            return try CompiledMap.open(path: path, verification: verification)
        }
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") {
            return try GeoJSONNetworkReader.read(path: path, indexCacheRadius: indexCacheRadius, warn: warn)
        }
        return try RoadNetwork.load(osmPath: path, indexCacheRadius: indexCacheRadius, warn: warn)
    }
}
