import RoadSnapCore
import RoadSnapFormats

/// `roadsnap info --map MAP`: nodes, edges, km of road per class, bounding box, load time.
enum InfoCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let opts = try Options(args, spec: CommandSpecs.info)
        let path = try opts.require("map")
        let t0 = monotonicSeconds()
        let network = try MapLoader.load(path: path)
        let seconds = monotonicSeconds() - t0
        var out = "map: \(path)\n"
        if let source = CompiledMap.source(of: network) {
            out += "compiled from: \(source.path)\n"
            switch CompiledMap.isStale(network) {
            case true?: out += "source: STALE - \(source.path) changed since it was compiled; run roadsnap compile again\n"
            case false?: out += "source: unchanged since compiled\n"
            case nil: out += "source: cannot be checked (not found or compiled from memory)\n"
            }
            if let parts = CompiledMap.sizeBreakdown(of: network) {
                out += "compiled bytes per edge: " + parts.map {
                    "\($0.part) \(format(Double($0.bytes) / Double(max(1, network.edges.count)), 0))"
                }.joined(separator: ", ") + "\n"
            }
        }
        out += "nodes: \(network.nodes.count)\nedges: \(network.edges.count)\n"
        out += "segments: \(network.index.segmentCount)\n"
        out += "turn restrictions: \(network.turnRestrictions.count)\n"
        let b = network.bounds
        out += "bounding box: \(b.minLatitude),\(b.minLongitude) .. \(b.maxLatitude),\(b.maxLongitude)\n"
        out += "km of road by class:\n"
        let km = network.kilometresByClass()
        var total = 0.0
        for c in RoadClass.allCases {
            guard let v = km[c] else { continue }
            total += v
            out += "  \(c.rawValue.padding(16)) \(format(v, 2))\n"
        }
        out += "  \("total".padding(16)) \(format(total, 2))\n"
        out += "load time: \(format(seconds, 3)) s\n"
        print(out, terminator: "")
        return 0
    }
}

extension String {
    /// Left-aligned in a column of `width` characters.
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

/// `value` with `digits` decimals.
func format(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "nan" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let r = (abs(value) * scale).rounded() / scale
    var s = String(Int64(r))
    if digits > 0 {
        let frac = Int64(((r - r.rounded(.down)) * scale).rounded())
        var f = String(frac)
        while f.count < digits { f = "0" + f }
        s += "." + f
    }
    return value < 0 && r != 0 ? "-" + s : s
}
