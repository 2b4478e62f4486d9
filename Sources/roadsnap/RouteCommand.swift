import RoadSnapCore
import RoadSnapFormats

/// `roadsnap route`: a route with turn-by-turn steps between two or more coordinates.
enum RouteCommand {
    /// Above this many edges a one-off query is answered by Dijkstra: preprocessing would cost more than it saves.
    static let autoHierarchyEdgeLimit = 20_000

    /// The hierarchy when it is cheap to build or already built into a compiled map, else Dijkstra.
    static func autoAlgorithm(_ network: RoadNetwork) -> RoutingAlgorithm {
        network.edges.count <= autoHierarchyEdgeLimit || CompiledMap.hasStoredHierarchy(network)
            ? .contractionHierarchy : .dijkstra
    }

    static func run(_ args: [String]) throws -> Int32 {
        let opts = try Options(args, spec: CommandSpecs.route)
        let path = try opts.require("map")
        let from = try Options.coordinate(try opts.require("from"), flag: "from")
        let to = try Options.coordinate(try opts.require("to"), flag: "to")
        var vias: [GeoCoordinate] = []
        for v in opts.all("via") { vias.append(try Options.coordinate(v, flag: "via")) }
        // The same defaults as `navigate` and the navigator: ferries avoided unless `--avoid` names the list.
        let options = try opts.string("avoid").map { s throws(RoadSnapError) in try RoutingOptions(avoiding: s) }
            ?? RoutingOptions()
        let outputFormat = opts.string("format") ?? "text"
        guard ["text", "json", "geojson"].contains(outputFormat) else {
            throw RoadSnapError.invalidArgument("--format expects text, json or geojson, got '\(outputFormat)'")
        }
        var heading: Double? = nil
        if opts.string("heading") != nil { heading = try opts.double("heading", default: 0) }
        let sameSide = opts.isSet("same-side")
        let alternativeCount = try opts.int("alternatives", default: 0)
        let alternatives = try AlternativeRouteOptions(count: alternativeCount)
        let traffic = try opts.string("traffic").map { p throws(RoadSnapError) in try TrafficFeedReader.read(path: p) }

        let t0 = monotonicSeconds()
        let network = try loadMap(path, command: "route")
        let t1 = monotonicSeconds()
        let algorithm: RoutingAlgorithm
        switch opts.string("algorithm") ?? "auto" {
        case "ch": algorithm = .contractionHierarchy
        case "dijkstra": algorithm = .dijkstra
        case "auto": algorithm = alternativeCount > 0 ? .contractionHierarchy : autoAlgorithm(network)
        case let other: throw RoadSnapError.invalidArgument("--algorithm expects auto, ch or dijkstra, got '\(other)'")
        }
        let router = Router(network: network, algorithm: algorithm, prepare: [options])
        let t2 = monotonicSeconds()
        let request = RouteRequest(
            origin: Waypoint(coordinate: from, preferredHeading: heading),
            destinations: (vias + [to]).map { Waypoint(coordinate: $0, preferSameSideOfRoad: sameSide) },
            options: options)
        // With alternatives or a traffic feed: the route choice (main route, traffic ETA, alternatives).
        let choice = alternativeCount > 0 || traffic != nil
            ? router.routeChoice(request, alternatives: alternatives, traffic: traffic) : nil
        let result = choice?.result ?? router.route(request)
        let t3 = monotonicSeconds()

        let output: String
        switch (outputFormat, choice) {
        case let ("json", choice?): output = RouteOutput.serialize(RouteOutput.jsonObject(choice, network: network))
        case ("json", nil): output = RouteOutput.serialize(RouteOutput.jsonObject(result, network: network))
        case let ("geojson", choice?):
            output = RouteOutput.serialize(RouteOutput.geoJSONObject(choice, network: network))
        case ("geojson", nil):
            output = RouteOutput.serialize(RouteOutput.geoJSONObject(result, network: network))
        case let (_, choice?): output = RouteOutput.text(choice)
        default: output = RouteOutput.text(result)
        }
        if let out = opts.string("out") {
            try RouteOutput.write(output + "\n", to: out)
        } else {
            writeStdout(output.hasSuffix("\n") ? output : output + "\n")
        }
        writeStderr("map load \(format(t1 - t0, 2)) s, \(algorithm.rawValue) preprocessing \(format(t2 - t1, 2)) s, "
                    + "query \(format((t3 - t2) * 1000, 2)) ms\n")
        return result.status == .ok ? 0 : 3
    }
}
