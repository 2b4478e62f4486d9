import RoadSnapCore

/// Reads the matched path back from a match GeoJSON: the `edge_ids` of every LineString/MultiLineString feature, in
/// order, as text (numbers and strings alike), the way `roadsnap eval` and `kubicka.py score` compare them.
public enum MatchedPathReader {
    public static func edgeIDs(path: String) throws(RoadSnapError) -> [String] {
        try edgeIDs(bytes: FileIO.read(path: path), name: path)
    }

    /// The same from bytes; `name` is used in messages.
    public static func edgeIDs(bytes: [UInt8], name: String) throws(RoadSnapError) -> [String] {
        let doc = try JSONInput.parse(bytes) { .invalidTrack(path: name, line: nil, reason: $0) }
        return try withExtendedLifetime(doc) { () throws(RoadSnapError) -> [String] in
            guard doc.kind(0) == .object else {
                throw .invalidTrack(path: name, line: nil, reason: "top level is not a JSON object")
            }
            var features: [Int] = [0]
            if JSONInput.isString(doc, doc.member(0, "type"), "FeatureCollection") {
                features = []
                if let f = doc.member(0, "features"), doc.elements(f).allSatisfy({ doc.kind($0) == .object }) {
                    features = Array(doc.elements(f))
                }
            }
            var ids: [String] = []
            for f in features {
                let type = doc.member(f, "geometry").flatMap { doc.member($0, "type") }
                guard JSONInput.isString(doc, type, "LineString") || JSONInput.isString(doc, type, "MultiLineString"),
                      let list = doc.member(f, "properties").flatMap({ doc.member($0, "edge_ids") }),
                      doc.kind(list) == .array
                else { continue }
                for id in doc.elements(list) {
                    if let text = JSONInput.text(doc, id) { ids.append(text) }
                }
            }
            return ids
        }
    }

    /// Whitespace-separated edge ids of a ground-truth file (one a line in the Kubicka `.route` files).
    public static func truthIDs(path: String) throws(RoadSnapError) -> [String] {
        let text = String(decoding: try FileIO.read(path: path), as: UTF8.self)
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "," })
            .map(String.init)
    }
}
