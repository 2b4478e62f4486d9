import Foundation
import RoadSnapCore

/// Reads a road network from a GeoJSON FeatureCollection of LineString / MultiLineString features.
/// The feature `id` (or `properties.id`) becomes the edges' source id; `oneway`, `name`, `maxspeed`, `highway`,
/// `ref`, `lanes`, `junction`, `toll` properties are used when present.
public enum GeoJSONNetworkReader {
    public static func read(path: String, indexCacheRadius: Double = RoadNetwork.defaultIndexCacheRadius)
        throws(RoadSnapError) -> RoadNetwork
    {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadableFile(path: path, reason: (error as NSError).localizedDescription)
        }
        return try read(data: data, name: path, indexCacheRadius: indexCacheRadius)
    }

    public static func read(data: Data, name: String, indexCacheRadius: Double = RoadNetwork.defaultIndexCacheRadius)
        throws(RoadSnapError) -> RoadNetwork
    {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw .invalidMap(path: name, reason: "not valid JSON: \(error.localizedDescription)")
        }
        guard let doc = root as? [String: Any] else { throw .invalidMap(path: name, reason: "top level is not a JSON object") }
        let features: [[String: Any]]
        switch doc["type"] as? String {
        case "FeatureCollection":
            guard let f = doc["features"] as? [[String: Any]] else {
                throw .invalidMap(path: name, reason: "FeatureCollection without a features array")
            }
            features = f
        case "Feature": features = [doc]
        default: throw .invalidMap(path: name, reason: "expected a GeoJSON FeatureCollection of LineStrings")
        }
        var ways: [RoadWay] = []
        for (i, feature) in features.enumerated() {
            let props = feature["properties"] as? [String: Any] ?? [:]
            guard let geometry = feature["geometry"] as? [String: Any], let type = geometry["type"] as? String else {
                continue
            }
            let lines: [Any]
            switch type {
            case "LineString": lines = [geometry["coordinates"] as Any]
            case "MultiLineString": lines = geometry["coordinates"] as? [Any] ?? []
            default: continue  // points and polygons are not roads
            }
            let sourceID = sourceIDOf(feature["id"] ?? props["id"], fallback: i)
            let (attributes, direction) = attributesOf(props)
            for line in lines {
                guard let coords = line as? [[Any]] else {
                    throw .invalidMap(path: name, reason: "feature \(i): coordinates are not an array of positions")
                }
                var points: [GeoCoordinate] = []
                for c in coords {
                    guard c.count >= 2, let lon = number(c[0]), let lat = number(c[1]) else {
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
        guard !ways.isEmpty else { throw .noDrivableRoads(path: name) }
        return try RoadNetwork(ways: ways, sourceName: name, indexCacheRadius: indexCacheRadius)
    }

    /// JSON true/false arrive as NSNumber too; their objCType is "c".
    static func isBoolean(_ n: NSNumber) -> Bool { n.objCType.pointee == CChar(UInt8(ascii: "c")) }

    static func number(_ v: Any?) -> Double? {
        if let n = v as? NSNumber, !isBoolean(n) { return n.doubleValue }
        if let s = v as? String { return Double(s) }
        return nil
    }

    static func sourceIDOf(_ v: Any?, fallback: Int) -> EdgeSourceID {
        if let n = v as? NSNumber, !isBoolean(n) {
            let d = n.doubleValue
            if d == d.rounded(), abs(d) < 9e15 { return .number(Int64(d)) }
            return .string(n.stringValue)
        }
        if let s = v as? String { return Int64(s).map { .number($0) } ?? .string(s) }
        return .number(Int64(fallback))
    }

    static func attributesOf(_ props: [String: Any]) -> (RoadAttributes, TravelDirection) {
        func text(_ k: String) -> String? {
            if let s = props[k] as? String { return s }
            if let n = props[k] as? NSNumber { return n.stringValue }
            return nil
        }
        let roadClass = text("highway").flatMap(RoadClass.init(highway:)) ?? (text("route") == "ferry" ? .ferry : .unknown)
        var direction: TravelDirection = .both
        if let b = props["oneway"] as? Bool {
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
        if let n = number(props["maxspeed"]) { maxspeed = n } else if let s = text("maxspeed") { maxspeed = OSMTags.speedKmh(s) }
        let attrs = RoadAttributes(
            roadClass: roadClass, name: text("name"), ref: text("ref"), maxspeedForward: maxspeed,
            maxspeedBackward: maxspeed, lanes: text("lanes").flatMap { Int($0) },
            turnLanesForward: text("turn:lanes"), isRoundabout: text("junction") == "roundabout",
            isToll: text("toll") == "yes" || props["toll"] as? Bool == true)
        return (attrs, direction)
    }
}

/// Opens a map: a compiled map (`.rsmap`, recognised by its content) memory-mapped in place, `.geojson`/`.json` as
/// a GeoJSON network, anything else as OSM via libosmium.
public enum MapLoader {
    /// `indexCacheRadius` applies to source maps; a compiled map keeps the radius it was compiled with.
    /// `verification` says when a compiled map's checksums are verified (see `CompiledMap.open`).
    public static func load(path: String, indexCacheRadius: Double = RoadNetwork.defaultIndexCacheRadius,
                            verification: CompiledMapFile.Verification = .all)
        throws(RoadSnapError) -> RoadNetwork
    {
        let lower = path.lowercased()
        if lower.hasSuffix(".rsmap") || CompiledMap.isCompiledMap(path: path) {
            return try CompiledMap.open(path: path, verification: verification)
        }
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") {
            return try GeoJSONNetworkReader.read(path: path, indexCacheRadius: indexCacheRadius)
        }
        return try RoadNetwork.load(osmPath: path, indexCacheRadius: indexCacheRadius)
    }
}
