import RoadSnapCore

/// One track of the Kubicka et al. 2015 map-matching dataset: its road network (one one-way edge per `.arcs` line,
/// source id = 0-based line number), the GPS track and the ground-truth arc ids in driving order.
public struct KubickaTrack: Sendable {
    public var name: String
    public var network: RoadNetwork
    public var track: Track
    public var truth: [EdgeSourceID]

    /// Dataset times are seconds from the start of the drive; they are placed on 2015-01-01T00:00:00Z.
    public static let timeBase = 1_420_070_400.0

    /// Reads `DIR/NAME.nodes`, `.arcs`, `.track` and `.route` where NAME is the directory's last component.
    public static func load(directory: String) throws(RoadSnapError) -> KubickaTrack {
        let dir = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let name = dir.split(separator: "/").last.map(String.init) ?? dir
        func rows(_ ext: String) throws(RoadSnapError) -> [[Double]] {
            let path = "\(dir)/\(name).\(ext)"
            let text = String(decoding: try FileIO.read(path: path), as: UTF8.self)
            var out: [[Double]] = []
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
                if parts.isEmpty { continue }
                let values = parts.compactMap { Double($0) }
                guard values.count == parts.count else {
                    throw .invalidTrack(path: path, line: i + 1, reason: "expected numbers, got '\(line)'")
                }
                out.append(values)
            }
            return out
        }
        let nodes = try rows("nodes"), arcs = try rows("arcs"), fixes = try rows("track"), route = try rows("route")
        var ways: [RoadWay] = []
        ways.reserveCapacity(arcs.count)
        for (i, a) in arcs.enumerated() {
            guard a.count >= 2, let from = Int(exactly: a[0]), let to = Int(exactly: a[1]),
                  nodes.indices.contains(from), nodes.indices.contains(to), nodes[from].count >= 2,
                  nodes[to].count >= 2
            else { throw .invalidMap(path: "\(dir)/\(name).arcs", reason: "line \(i + 1): node out of range") }
            let c0 = try GeoCoordinate(latitude: nodes[from][1], longitude: nodes[from][0])
            let c1 = try GeoCoordinate(latitude: nodes[to][1], longitude: nodes[to][0])
            ways.append(RoadWay(sourceID: .number(Int64(i)), coordinates: [c0, c1], nodeKeys: [Int64(from), Int64(to)],
                                direction: .forward, attributes: RoadAttributes(roadClass: .unknown)))
        }
        let network = try RoadNetwork(ways: ways, sourceName: "\(dir)/\(name).arcs")
        var track: [Fix] = []
        for (i, r) in fixes.enumerated() {
            guard r.count >= 3 else {
                throw .invalidTrack(path: "\(dir)/\(name).track", line: i + 1, reason: "expected lon lat time")
            }
            track.append(Fix(coordinate: try GeoCoordinate(latitude: r[1], longitude: r[0]), time: timeBase + r[2]))
        }
        let truth = route.compactMap { $0.first.flatMap { Int64(exactly: $0) }.map(EdgeSourceID.number) }
        return KubickaTrack(name: name, network: network, track: Track(name: name, fixes: track), truth: truth)
    }
}
