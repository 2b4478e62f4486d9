import RoadSnapCore

/// Per-fix snapping results as CSV or GeoJSON.
public enum SnapOutput {
    public enum Format: String, Sendable, CaseIterable { case csv, geojson }

    /// One row per fix: input position, and the snapped position on its edge when one was within the radius.
    public static func render(track: Track, results: [SnappedFix?], network: RoadNetwork, format: Format) -> String {
        let out = ChunkedOutput()
        write(track: track, results: results, network: network, format: format, into: out)
        return out.text
    }

    /// Renders into `out` fix by fix (`render` keeps it all; a file or standard output gets it in chunks).
    public static func write(track: Track, results: [SnappedFix?], network: RoadNetwork, format: Format,
                             into out: ChunkedOutput) {
        switch format {
        case .csv: csv(track: track, results: results, network: network, into: out)
        case .geojson: geojson(track: track, results: results, network: network, into: out)
        }
    }

    static func csv(track: Track, results: [SnappedFix?], network: RoadNetwork, into out: ChunkedOutput) {
        out.append("fix_index,time,lat,lon,snapped,edge_id,snapped_lat,snapped_lon,distance_m,offset_m,bearing_deg\n")
        for (i, fix) in track.fixes.enumerated() {
            let time = fix.time.map { isoTime($0) } ?? ""
            out.append("\(i),\(time),\(fix.coordinate.latitude),\(fix.coordinate.longitude),")
            if let r = results[i] {
                out.append("true,\(MatchOutput.csvField(network.edges[r.edge].sourceID.description)),\(r.coordinate.latitude),\(r.coordinate.longitude),")
                out.append("\(rounded(r.distance, places: 3)),\(rounded(r.offset, places: 3)),\(rounded(r.bearing, places: 3))\n")
            } else {
                out.append("false,,,,,,\n")
            }
            out.chunkDone()
        }
    }

    /// A FeatureCollection of one Point per fix, written feature by feature (keys in sorted order, as the JSON
    /// tree writes them).
    static func geojson(track: Track, results: [SnappedFix?], network: RoadNetwork, into out: ChunkedOutput) {
        out.append(#"{"features":["#)
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
            let feature: JSONValue = ["type": "Feature", "properties": .object(props),
                                      "geometry": ["type": "Point", "coordinates": MatchOutput.position(position)]]
            if i > 0 { out.append(UInt8(ascii: ",")) }
            feature.write(into: &out.bytes)
            out.chunkDone()
        }
        out.append("],\"type\":\"FeatureCollection\"}\n")
    }

    /// Seconds since the epoch as ISO 8601 UTC (milliseconds kept when present).
    public static func isoTime(_ t: Double) -> String { TrackTime.iso8601(t) }

}
