import RoadSnapCore
import RoadSnapFormats

/// `roadsnap eval --map NETWORK --truth TRUTH.txt MATCHED.geojson`: Newson & Krumm route mismatch of a match.
enum EvalCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let opts = try Options(args, spec: CommandSpecs.eval)
        let mapPath = try opts.require("map"), truthPath = try opts.require("truth")
        guard opts.positionals.count == 1, let matchedPath = opts.positionals.first else {
            throw RoadSnapError.invalidArgument("give exactly one MATCHED.geojson (as written by roadsnap match)")
        }
        let network = try MapLoader.load(path: mapPath)
        var lengths: [String: Double] = [:]
        for e in network.edges { lengths[e.sourceID.description, default: 0] += e.length }
        let truth = try MatchedPathReader.truthIDs(path: truthPath)
        guard !truth.isEmpty else { throw RoadSnapError.invalidTrack(path: truthPath, line: nil, reason: "no edge ids") }
        if let unknown = truth.first(where: { lengths[$0] == nil }) {
            throw RoadSnapError.invalidTrack(path: truthPath, line: nil, reason: "edge id \(unknown) is not in \(mapPath)")
        }
        let matched = try MatchedPathReader.edgeIDs(path: matchedPath)
        let score = RouteMismatch(truth: truth, matched: matched) { lengths[$0] ?? 0 }
        print("route_mismatch=\(format(score.fraction, 6)) accuracy=\(format(1 - score.fraction, 6))"
              + " truth_m=\(format(score.truthLength, 1)) missing_m=\(format(score.missingLength, 1))"
              + " extra_m=\(format(score.extraLength, 1))")
        return 0
    }
}
