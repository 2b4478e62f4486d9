import RoadSnapCore

/// Reads a traffic feed file: current speeds per OSM way id.
///
/// Format: UTF-8 text, one way per line as `way_id,speed_kmh` (comma, semicolon or tab separated); an optional
/// header line starting with a letter; blank lines and lines starting with `#` are ignored. A way listed twice
/// keeps its last speed. Example:
///
///     way_id,speed_kmh
///     # I-90 eastbound, congested
///     4402349,22.5
public enum TrafficFeedReader {
    public static func read(path: String) throws(RoadSnapError) -> TrafficFeed {
        let bytes = try FileIO.read(path: path)
        return try parse(String(decoding: bytes, as: UTF8.self), name: path)
    }

    /// Parses feed text; `name` is used in error messages.
    public static func parse(_ text: String, name: String) throws(RoadSnapError) -> TrafficFeed {
        var speeds: [Int64: Double] = [:]
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            if lineNumber == 1 || speeds.isEmpty, let c = line.unicodeScalars.first, c.properties.isAlphabetic {
                continue  // header
            }
            let fields = line.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "\t" })
                .map { $0.trimmingSpaces }
            guard fields.count >= 2 else {
                throw .invalidArgument("\(name):\(lineNumber): " + "expected way_id,speed_kmh, got '\(line)'")
            }
            guard let way = Int64(fields[0]) else {
                throw .invalidArgument("\(name):\(lineNumber): " + "way id '\(fields[0])' is not an integer")
            }
            guard let speed = Double(fields[1]), speed.isFinite, speed > 0 else {
                throw .invalidArgument("\(name):\(lineNumber): " + "speed '\(fields[1])' is not a positive number of km/h")
            }
            speeds[way] = speed
        }
        return try TrafficFeed(speedsKmh: speeds)
    }
}
