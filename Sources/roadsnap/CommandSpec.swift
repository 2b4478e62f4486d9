/// One flag of a subcommand: its name without dashes, the placeholder of its value (`nil` for a switch) and its meaning.
struct Flag: Sendable {
    let name: String
    let value: String?
    let help: String
    /// True when the flag may be given more than once (every value is kept).
    let repeats: Bool

    init(_ name: String, _ value: String?, _ help: String, repeats: Bool = false) {
        self.name = name
        self.value = value
        self.help = help
        self.repeats = repeats
    }
}

/// What one subcommand accepts: the source of its usage line, its `--help` text and the check of its arguments.
struct CommandSpec: Sendable {
    let name: String
    /// One line saying what the command does.
    let summary: String
    /// The usage line after `roadsnap NAME`.
    let synopsis: String
    let flags: [Flag]
    /// The meaning of bare arguments (operands); `nil` when the command takes none.
    let operands: String?

    /// The usage line.
    var usage: String { "roadsnap \(name) \(synopsis)" }

    func flag(named name: String) -> Flag? { flags.first { $0.name == name } }

    /// The `--help` text: usage, summary, then every flag with its meaning.
    var help: String {
        var s = "usage: \(usage)\n\n\(summary)\n"
        if let operands { s += "\n  \(operands)\n" }
        s += "\nflags:\n"
        let labels = flags.map { f in "--\(f.name)" + (f.value.map { " \($0)" } ?? "") }
        let width = min(34, (labels.map(\.count).max() ?? 0) + 2)
        for (f, label) in zip(flags, labels) {
            let pad = label.count < width ? String(repeating: " ", count: width - label.count) : "  "
            s += "  \(label)\(pad)\(f.help)\(f.repeats ? " (may be repeated)" : "")\n"
        }
        s += "  --help\(String(repeating: " ", count: max(2, width - 6)))print this help\n"
        return s
    }
}

/// The closest of `candidates` to `word` when it is close enough to be a likely typo, else `nil`.
func suggestion(for word: String, among candidates: [String]) -> String? {
    let prefixed = candidates.filter { $0.hasPrefix(word) }
    if !word.isEmpty, prefixed.count == 1 { return prefixed[0] }
    var best: (String, Int)? = nil
    for c in candidates {
        let d = editDistance(word, c)
        if d <= max(1, min(3, word.count / 3)), d < (best?.1 ?? Int.max) { best = (c, d) }
    }
    return best?.0
}

/// Levenshtein distance counting an adjacent transposition as one edit.
func editDistance(_ a: String, _ b: String) -> Int {
    let x = Array(a.utf8), y = Array(b.utf8)
    if x.isEmpty { return y.count }
    if y.isEmpty { return x.count }
    var prev2 = [Int](repeating: 0, count: y.count + 1)
    var prev = Array(0...y.count)
    var cur = [Int](repeating: 0, count: y.count + 1)
    for i in 1...x.count {
        cur[0] = i
        for j in 1...y.count {
            let cost = x[i - 1] == y[j - 1] ? 0 : 1
            var v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { v = min(v, prev2[j - 2] + 1) }
            cur[j] = v
        }
        (prev2, prev, cur) = (prev, cur, prev2)
    }
    return prev[y.count]
}

/// Every subcommand's flags and their meanings (the one place `--help`, the usage lines and the argument check read).
enum CommandSpecs {
    static let map = Flag("map", "MAP", "road map: OSM .pbf/.osm/.osm.gz/.osm.bz2, GeoJSON network, or compiled .rsmap")

    static let info = CommandSpec(
        name: "info", summary: "Print what a map holds: edges, nodes, bounds, frame; whether a compiled map is stale.",
        synopsis: "--map MAP", flags: [map], operands: nil)

    static let compile = CommandSpec(
        name: "compile",
        summary: "Compile a map into one memory-mapped .rsmap file (network, index, matching graph, routing hierarchy).",
        synopsis: "--map MAP --out FILE.rsmap [--progress] [--no-routing]",
        flags: [map,
                Flag("out", "FILE.rsmap", "compiled map to write (written to a temporary, then renamed)"),
                Flag("progress", nil, "show progress (a bar on a terminal, lines otherwise) on standard error"),
                Flag("no-routing", nil, "leave the routing hierarchy out (built on first use instead)")],
        operands: nil)

    static let snap = CommandSpec(
        name: "snap", summary: "Snap every fix of a track to its nearest road, independently (no map matching).",
        synopsis: "--map MAP [--radius M] [--format csv|geojson] [--out FILE] TRACK",
        flags: [map,
                Flag("radius", "M", "search radius around each fix in metres"),
                Flag("format", "csv|geojson", "output format (default csv)"),
                Flag("out", "FILE", "write here instead of standard output")],
        operands: "TRACK   a track file: GPX, NMEA, CSV or GeoJSON (- reads standard input)")

    static let match = CommandSpec(
        name: "match", summary: "Map-match recorded tracks with a hidden Markov model (one output per track).",
        synopsis: "--map MAP [--sigma M|auto] [--beta B] [--radius M] [--candidates N] [--max-gap S] "
            + "[--min-fix-distance M] [--max-outliers N] [--outlier-window S] [--off-road SIGMAS] "
            + "[--format geojson|csv|gpx|osrm|html] [--out DIR] [--jobs N] [--list FILE] TRACK|DIR... (- reads stdin)\n"
            + "       roadsnap match --map MAP --input ndjson [--format ndjson] [--geometry polyline6|polyline|coordinates] "
            + "[--per-fix yes|no] [--jobs N] < tracks.ndjson   (one track per line, docs/streaming.md)",
        flags: [map,
                Flag("sigma", "M|auto", "GPS noise in metres, or auto to estimate it per track"),
                Flag("beta", "B", "transition scale in metres (route vs straight-line distance)"),
                Flag("radius", "M", "candidate search radius in metres"),
                Flag("candidates", "N", "most candidates kept per fix"),
                Flag("max-gap", "S", "split a track at a longer time gap with little progress (seconds; 0: never; default 60)"),
                Flag("min-fix-distance", "M",
                     "hold fixes closer than this to the last one scored (metres; default 2 sigma, more on dense noisy tracks)"),
                Flag("max-outliers", "N", "unreachable fixes in a row dropped before a track splits (default 2)"),
                Flag("outlier-window", "S", "seconds a run of unreachable fixes may stay outliers (0: max-outliers alone; default 120)"),
                Flag("off-road", "SIGMAS",
                     "leave unmatched a minor sub-match lying on average this far off its road (0: never; default 4)"),
                Flag("format", "geojson|csv|gpx|osrm|html|ndjson",
                     "output format (default geojson; html: a page with the picture; ndjson with --input ndjson)"),
                Flag("input", "ndjson", "read tracks from standard input, one JSON object per line (streaming mode)"),
                Flag("geometry", "polyline6|polyline|coordinates", "sub-match geometry encoding in ndjson output"),
                Flag("per-fix", "yes|no", "include per-fix results in ndjson output (default yes)"),
                Flag("out", "DIR", "write one file per track into this folder (default: standard output)"),
                Flag("jobs", "N", "tracks matched at once (default: the number of cores)"),
                Flag("list", "FILE", "read track paths from this file, one per line")],
        operands: "TRACK|DIR...   track files or folders of them (- reads standard input)")

    static let eval = CommandSpec(
        name: "eval", summary: "Score a match against ground truth edge ids (Kubicka et al. format).",
        synopsis: "--map NETWORK --truth TRUTH.txt MATCHED.geojson",
        flags: [Flag("map", "NETWORK", "the network the truth refers to"),
                Flag("truth", "TRUTH.txt", "ground-truth edge ids, one per line")],
        operands: "MATCHED.geojson   a result written by roadsnap match")

    static let route = CommandSpec(
        name: "route", summary: "Route between coordinates with turn-by-turn steps.",
        synopsis: "--map MAP --from LAT,LON --to LAT,LON [--via LAT,LON]... "
            + "[--avoid highways,tolls,ferries|none] [--heading DEG] [--same-side] [--algorithm auto|ch|dijkstra] "
            + "[--alternatives N] [--traffic FILE] [--format text|geojson|json] [--out FILE]",
        flags: [map,
                Flag("from", "LAT,LON", "origin"),
                Flag("to", "LAT,LON", "destination"),
                Flag("via", "LAT,LON", "intermediate stop", repeats: true),
                Flag("avoid", "LIST", "comma-separated: highways, tolls, ferries; or none (default: ferries)"),
                Flag("heading", "DEG", "the vehicle's heading at the origin, degrees clockwise from north"),
                Flag("same-side", nil, "arrive on the side of the road the destination lies on"),
                Flag("algorithm", "auto|ch|dijkstra", "search: contraction hierarchy, Dijkstra, or by map size"),
                Flag("alternatives", "N", "also up to N alternative routes (overlap <= 80 %, at most 35 % slower)"),
                Flag("traffic", "FILE", "traffic feed (way_id,speed_kmh lines): route by its speeds, print the traffic ETA"),
                Flag("format", "text|geojson|json", "output format (default text)"),
                Flag("out", "FILE", "write here instead of standard output")],
        operands: nil)

    static let navigate = CommandSpec(
        name: "navigate",
        summary: "Guide along a route headlessly and print the navigator's events as JSON lines.",
        synopsis: "--map MAP --to LAT,LON [--to LAT,LON]... "
            + "(--simulate --from LAT,LON [--speed-multiplier X] [--virtual-clock] | --replay TRACK [--replay-speed X|max] "
            + "| --gpsd HOST:PORT) [--title NAME]... [--traffic FILE] [--avoid highways,tolls,ferries|none] [--no-locations] "
            + "[--units metric|imperial|uk] [--speak DIR] [--arrival-radius M] [--time-threshold S] [--distance-threshold M] "
            + "[--speed-alert MINOR%,MAJOR%,SECONDS] [--jitter SIGMA_M] [--pause AT_S,FOR_S] "
            + "[--faster-route-percent X] [--accept-faster-routes] [--serve HOST:PORT|SOCKET] "
            + "[--frames DIR [--frame-size WxH] [--frame-every SECONDS]]",
        flags: [map,
                Flag("to", "LAT,LON", "destination; repeat for a multi-stop trip", repeats: true),
                Flag("title", "NAME", "title of the destination given at the same position", repeats: true),
                Flag("simulate", nil, "drive the route with the location simulator"),
                Flag("from", "LAT,LON", "where the simulated drive starts"),
                Flag("speed-multiplier", "X", "simulation speed: faster car on the system clock, faster time on a "
                     + "virtual clock"),
                Flag("virtual-clock", nil, "run the simulation on a virtual clock (as fast as possible unless "
                     + "--speed-multiplier paces it)"),
                Flag("replay", "TRACK", "replay a recorded track as the location feed"),
                Flag("replay-speed", "X|max", "replay speed factor, or max for as fast as possible"),
                Flag("gpsd", "HOST:PORT", "read live fixes from gpsd"),
                Flag("traffic", "FILE", "traffic feed (way_id,speed_kmh lines): delay category, traffic ETA, routes, offers"),
                Flag("avoid", "LIST", "comma-separated: highways, tolls, ferries; or none (default: ferries)"),
                Flag("no-locations", nil, "leave per-fix location events out of the output"),
                Flag("units", "metric|imperial|uk", "units of spoken distances (default: by the map's country)"),
                Flag("speak", "DIR", "write each voice prompt as a WAV file here (espeak-ng)"),
                Flag("arrival-radius", "M", "distance to a destination that counts as arrival"),
                Flag("time-threshold", "S", "remaining-time change that triggers an update"),
                Flag("distance-threshold", "M", "remaining-distance change that triggers an update"),
                Flag("speed-alert", "MINOR%,MAJOR%,SECONDS", "speeding thresholds and the upgrade delay"),
                Flag("jitter", "SIGMA_M", "add GPS-like noise of this sigma to simulated fixes"),
                Flag("pause", "AT_S,FOR_S", "pause the simulated car at AT_S seconds for FOR_S seconds"),
                Flag("faster-route-percent", "X", "offer a reroute when a route X % faster appears under traffic"),
                Flag("accept-faster-routes", nil, "take every faster route offered"),
                Flag("serve", "HOST:PORT|SOCKET", "also serve the JSON-lines feed to any number of consumers"),
                Flag("frames", "DIR", "write head-unit frames (map, maneuver banner, lanes, ETA) as PNG into DIR"),
                Flag("frame-size", "WxH", "head-unit frame size in points (default 800x480)"),
                Flag("frame-every", "SECONDS", "seconds of location time between frames (default 1)")],
        operands: nil)

    static let render = CommandSpec(
        name: "render", summary: "Draw the map view (PNG or SVG): roads, a route, a track, traffic, my-location.",
        synopsis: "--map MAP [--from LAT,LON --to LAT,LON] [--track FILE] "
            + "[--camera LAT,LON,ZOOM[,BEARING[,TILT]]] [--padding TOP,LEFT,BOTTOM,RIGHT] [--size WxH] [--scale S] "
            + "[--style light|dark|auto] [--map-type normal|none] [--background #RRGGBB] [--traffic FILE] "
            + "[--my-location LAT,LON[,COURSE]] --out FILE.png|FILE.svg",
        flags: [map,
                Flag("from", "LAT,LON", "route origin (drawn with --to)"),
                Flag("to", "LAT,LON", "route destination"),
                Flag("track", "FILE", "a track to draw: raw fixes, matched points and the matched path"),
                Flag("camera", "LAT,LON,ZOOM[,BEARING[,TILT]]", "camera target, web-Mercator zoom, bearing, tilt "
                     + "(default: fit everything drawn)"),
                Flag("padding", "TOP,LEFT,BOTTOM,RIGHT", "padding in points; the camera target is the padded centre"),
                Flag("size", "WxH", "frame size in points (default 1024x768)"),
                Flag("scale", "S", "pixels per point (default 1)"),
                Flag("style", "light|dark|auto", "colour scheme (default light)"),
                Flag("map-type", "normal|none", "roads by class, or only the overlays"),
                Flag("background", "#RRGGBB", "background colour"),
                Flag("traffic", "FILE", "traffic feed: colour roads by speed against free flow"),
                Flag("my-location", "LAT,LON[,COURSE]", "draw the my-location dot (and course arrow)"),
                Flag("out", "FILE.png|FILE.svg", "picture to write (written to a temporary, then renamed)")],
        operands: nil)

    static let icons = CommandSpec(
        name: "icons", summary: "Write every maneuver icon and a set of lane-guidance images as PNG files.",
        synopsis: "--out DIR [--size PX] [--scale S] [--style light|dark] [--driving-side right|left]",
        flags: [Flag("out", "DIR", "folder to write the images into"),
                Flag("size", "PX", "icon size in points (default 96)"),
                Flag("scale", "S", "pixels per point (default 1)"),
                Flag("style", "light|dark", "colour scheme (default light)"),
                Flag("driving-side", "right|left", "traffic side the icons are drawn for (default right)")],
        operands: nil)

}
