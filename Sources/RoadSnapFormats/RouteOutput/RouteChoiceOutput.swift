import RoadSnapCore

/// A main route with its alternatives as text, JSON and GeoJSON (`roadsnap route --alternatives N`).
extension RouteOutput {
    /// The main route's text, then one line per alternative: distance, time, traffic ETA, overlap and stretch.
    public static func text(_ choice: RouteChoice) -> String {
        var s = text(choice.result)
        guard let main = choice.options.first else { return s }
        s += "traffic ETA: \(DisplayRounding.timeText(main.trafficDuration)) (\(Int(main.trafficDuration.rounded())) s)\n"
        for (k, o) in choice.options.dropFirst().enumerated() {
            s += "alternative \(k + 1): \(DisplayRounding.distanceText(o.route.distance)) "
                + "(\(Int(o.route.distance.rounded())) m), time \(DisplayRounding.timeText(o.route.duration)) "
                + "(\(Int(o.route.duration.rounded())) s), traffic ETA \(Int(o.trafficDuration.rounded())) s, "
                + "overlap \(Int((o.overlap * 100).rounded())) %, stretch \(Int((o.stretch * 100).rounded())) %\n"
            s += "  via " + viaNames(o.route, main: main.route) + "\n"
        }
        return s
    }

    /// The main route's object with `traffic_duration_s`, `cost_ms` and `alternatives`: each a route object
    /// (`distance_m`, `duration_s`, `legs`, …) with `traffic_duration_s`, `cost_ms`, `overlap` and `stretch`.
    public static func jsonObject(_ choice: RouteChoice, network: RoadNetwork? = nil) -> JSONValue {
        var o = jsonObject(choice.result, network: network)
        guard let main = choice.options.first else { return o }
        o["traffic_duration_s"] = .number(rounded(main.trafficDuration, places: 1))
        o["cost_ms"] = .number(Int(main.cost))
        o["alternatives"] = .array(choice.options.dropFirst().map { a -> JSONValue in
            var x = jsonObject(RouteResult(status: .ok, route: a.route), network: network)
            x["traffic_duration_s"] = .number(rounded(a.trafficDuration, places: 1))
            x["cost_ms"] = .number(Int(a.cost))
            x["overlap"] = .number((a.overlap * 1000).rounded() / 1000)
            x["stretch"] = .number((a.stretch * 1000).rounded() / 1000)
            return x
        })
        return o
    }

    /// The main route's features, then one LineString per alternative leg with `alternative` (1, 2, …),
    /// `overlap`, `stretch` and `traffic_duration_s` in its properties.
    public static func geoJSONObject(_ choice: RouteChoice, network: RoadNetwork? = nil) -> JSONValue {
        var o = geoJSONObject(choice.result, network: network)
        var features = o["features"]?.array ?? []
        for (k, a) in choice.options.dropFirst().enumerated() {
            for (i, leg) in a.route.legs.enumerated() {
                features.append([
                    "type": "Feature",
                    "geometry": ["type": "LineString", "coordinates": .array(leg.geometry.map(JSONValue.lonLat))],
                    "properties": ["alternative": .number(k + 1), "leg": .number(i),
                                   "distance_m": .number(rounded(leg.distance, places: 1)),
                                   "duration_s": .number(rounded(leg.duration, places: 1)),
                                   "traffic_duration_s": .number(rounded(a.trafficDuration, places: 1)),
                                   "overlap": .number((a.overlap * 1000).rounded() / 1000),
                                   "stretch": .number((a.stretch * 1000).rounded() / 1000)],
                ])
            }
        }
        o["features"] = .array(features)
        return o
    }

    /// The first three road names of the route's steps that the main route does not use (what tells them apart).
    static func viaNames(_ route: Route, main: Route) -> String {
        let mainNames = Set(main.legs.flatMap(\.steps).map(\.simpleRoadName))
        var names: [String] = []
        for leg in route.legs {
            for s in leg.steps where !s.simpleRoadName.isEmpty && !mainNames.contains(s.simpleRoadName)
                && !names.contains(s.simpleRoadName) { names.append(s.simpleRoadName) }
        }
        return names.isEmpty ? "(unnamed roads)" : names.prefix(3).joined(separator: ", ")
    }
}
