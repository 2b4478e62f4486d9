import Foundation
import RoadSnapCore

/// Reads the matched path back from a match GeoJSON: the `edge_ids` of every LineString/MultiLineString feature, in
/// order, as text (numbers and strings alike), the way `roadsnap eval` and `kubicka.py score` compare them.
public enum MatchedPathReader {
    public static func edgeIDs(path: String) throws(RoadSnapError) -> [String] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadableFile(path: path, reason: (error as NSError).localizedDescription)
        }
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw .invalidTrack(path: path, line: nil, reason: "not valid JSON: \(error.localizedDescription)")
        }
        guard let doc = root as? [String: Any] else {
            throw .invalidTrack(path: path, line: nil, reason: "top level is not a JSON object")
        }
        let features = doc["type"] as? String == "FeatureCollection" ? (doc["features"] as? [[String: Any]] ?? []) : [doc]
        var ids: [String] = []
        for f in features {
            let type = (f["geometry"] as? [String: Any])?["type"] as? String
            guard type == "LineString" || type == "MultiLineString",
                  let list = (f["properties"] as? [String: Any])?["edge_ids"] as? [Any] else { continue }
            for id in list {
                if let s = id as? String { ids.append(s) } else if let n = id as? NSNumber { ids.append(idText(n)) }
            }
        }
        return ids
    }

    /// Whitespace-separated edge ids of a ground-truth file (one a line in the Kubicka `.route` files).
    public static func truthIDs(path: String) throws(RoadSnapError) -> [String] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .unreadableFile(path: path, reason: error.localizedDescription)
        }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "," })
            .map(String.init)
    }

    static func idText(_ n: NSNumber) -> String {
        let d = n.doubleValue
        if d == d.rounded(), abs(d) < 9e15 { return String(Int64(d)) }
        return n.stringValue
    }
}
