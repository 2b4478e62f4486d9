import RoadSnapCore

/// Per-fix snapping results as CSV or GeoJSON.
public enum SnapOutput {
    public enum Format: String, Sendable, CaseIterable { case csv, geojson }

    /// One row per fix: input position, and the snapped position on its edge when one was within the radius.
    public static func render(track: Track, results: [SnappedFix?], network: RoadNetwork, format: Format) -> String {
        switch format {
        case .csv: return csv(track: track, results: results, network: network)
        case .geojson: return geojson(track: track, results: results, network: network)
        }
    }

    static func csv(track: Track, results: [SnappedFix?], network: RoadNetwork) -> String {
        var out = "fix_index,time,lat,lon,snapped,edge_id,snapped_lat,snapped_lon,distance_m,offset_m,bearing_deg\n"
        for (i, fix) in track.fixes.enumerated() {
            let time = fix.time.map { isoTime($0) } ?? ""
            out += "\(i),\(time),\(fix.coordinate.latitude),\(fix.coordinate.longitude),"
            if let r = results[i] {
                out += "true,\(MatchOutput.csvField(network.edges[r.edge].sourceID.description)),\(r.coordinate.latitude),\(r.coordinate.longitude),"
                out += "\(rounded(r.distance, places: 3)),\(rounded(r.offset, places: 3)),\(rounded(r.bearing, places: 3))\n"
            } else {
                out += "false,,,,,,\n"
            }
        }
        return out
    }

    static func geojson(track: Track, results: [SnappedFix?], network: RoadNetwork) -> String {
        var features: [JSONValue] = []
        features.reserveCapacity(track.fixes.count)
        for (i, fix) in track.fixes.enumerated() {
            var props: [String: JSONValue] = ["fix_index": .number(i), "matched": .bool(results[i] != nil)]
            if let t = fix.time { props["time"] = .string(isoTime(t)) }
            let position: GeoCoordinate
            if let r = results[i] {
                props["edge_id"] = MatchOutput.id(network.edges[r.edge].sourceID)
                props["distance_m"] = .number(rounded(r.distance, places: 3))
                props["offset_m"] = .number(rounded(r.offset, places: 3))
                props["bearing_deg"] = .number(rounded(r.bearing, places: 3))
                props["raw_lat"] = .number(fix.coordinate.latitude)
                props["raw_lon"] = .number(fix.coordinate.longitude)
                position = r.coordinate
            } else {
                position = fix.coordinate
            }
            features.append(["type": "Feature", "properties": .object(props),
                             "geometry": ["type": "Point", "coordinates": MatchOutput.position(position)]])
        }
        return JSONValue.object(["type": "FeatureCollection", "features": .array(features)]).text()
    }

    /// Seconds since the epoch as ISO 8601 UTC (milliseconds kept when present).
    public static func isoTime(_ t: Double) -> String { TrackTime.iso8601(t) }

}
