import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

/// Routing preprocessing at scale, with OSRM's own CH preparation on the same networks in the same run (the figures
/// of docs/routing-preprocessing.md). Networks: R×C tilings of the real Andorra extract (`tiledNetwork`) and a
/// regular grid of two-way residential streets. For each: `Router(network:control:)` (turn graph + contraction
/// hierarchy) on one thread and on every core; then, when `osrm=PYTHON` names a Python with the PyPI `osrm-bindings`
/// wheel, the network written as an OSM XML file and prepared by `osrm-extract` + `osrm-contract` (stock car.lua) on
/// one thread and on every core ("cpu s": CPU time of the process during the build, all threads). Finally
/// cost-query latency (snap + CH search) on the largest tiling.
///
/// `swift run -c release Benchmarks preprocess [tiles=1,4,10,22] [grid=200] [osrm=/path/to/python] [osrm-max=EDGES]
/// [threads=1|all|both] [dir=/tmp/roadsnap-prep]` (OSRM runs only on networks of at most osrm-max edges; `threads`
/// picks the rows, both by default: at 1 M edges OSRM's one-thread contraction alone takes most of an hour).
enum PrepBenchmark {
    static func run(_ args: [String]) throws {
        var tiles = [1, 4, 10, 22]
        var grids = [200]
        var python: String? = nil
        var dir = "/tmp/roadsnap-prep"
        var osrmMaxEdges = Int.max
        var threadRows = [1, 0]  // 0: every core
        for a in args {
            if a == "threads=1" { threadRows = [1] }
            if a == "threads=all" { threadRows = [0] }
            if a.hasPrefix("tiles=") { tiles = a.dropFirst(6).split(separator: ",").compactMap { Int($0) } }
            if a.hasPrefix("grid=") { grids = a.dropFirst(5).split(separator: ",").compactMap { Int($0) } }
            if a.hasPrefix("osrm=") { python = String(a.dropFirst(5)) }
            if a.hasPrefix("dir=") { dir = String(a.dropFirst(4)) }
            if a.hasPrefix("osrm-max=") { osrmMaxEdges = Int(a.dropFirst(9)) ?? .max }
        }
        _ = system("mkdir -p '\(dir)'")
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        print("preprocessing: wall time of Router(network:) = turn graph + contraction hierarchy (median of 3 below "
              + "50k edges); OSRM = osrm-extract + osrm-contract (car.lua) on the same network as OSM XML; "
              + "\(cores) cores")
        if python == nil { print("OSRM not run: pass osrm=/path/to/python (a Python with the osrm-bindings wheel)") }
        print("network            edges  threads    ours s  ours cpu s  ours edges/s  shortcuts  rounds  core |"
              + " osrm extract s  contract s  contract cpu s  contract edges/s  (by cpu)")
        let base = try MapLoader.load(path: repoPath("Tests/RoadSnapCoreTests/Fixtures/osm/andorra.osm.pbf"))
        var largest: (Router, Int)? = nil
        // Smallest first (estimated edges), so the large runs come last.
        var networks: [(String, Int, () throws -> RoadNetwork)] = tiles.map { t in
            ("andorra \(t)x\(t)", t * t * base.edges.count, { t == 1 ? base : try tiledNetwork(base, rows: t, columns: t) })
        }
        networks += grids.map { g in ("grid \(g)x\(g)", 2 * g * (g - 1), { try gridNetwork(side: g) }) }
        networks.sort { $0.1 < $1.1 }
        for (name, _, make) in networks {
            let network = try make()
            let edges = network.edges.count
            var osmPath: String? = nil
            if python != nil, edges <= osrmMaxEdges {
                let path = "\(dir)/\(name.replacingSpaces).osm"
                try writeOSM(network, to: path)
                osmPath = path
            }
            for threads in threadRows {
                var times: [Double] = [], cpu: [Double] = []
                var router: Router? = nil
                for _ in 0..<(edges < 50_000 ? 3 : 1) {
                    router = nil
                    let t0 = nowNanoseconds(), c0 = processCPUSeconds()
                    router = try Router(network: network, control: BuildControl(threads: threads))
                    times.append(Double(nowNanoseconds() - t0) / 1e9)
                    cpu.append(processCPUSeconds() - c0)
                }
                let prep = Stats(times).median
                let info = router?.hierarchyStatistics()
                var line = "\(name.padded(16)) \(fmt(Double(edges), 0, width: 8)) "
                    + "\((threads == 0 ? "all" : "1").padded(7)) \(fmt(prep, 2, width: 9)) \(fmt(Stats(cpu).median, 2, width: 11)) "
                    + "\(fmt(Double(edges) / prep, 0, width: 13)) \(fmt(Double(info?.shortcuts ?? 0), 0, width: 10)) "
                    + "\(fmt(Double(info?.contractionRounds ?? 0), 0, width: 7)) "
                    + "\(fmt(Double(info?.coreSize ?? 0), 0, width: 5)) |"
                if let python, let osmPath {
                    let (extract, contract, contractCPU) = osrmPrepare(python: python, osm: osmPath, threads: threads == 0 ? cores : 1,
                                                          dir: "\(dir)/\(name.replacingSpaces)-t\(threads)")
                    line += " \(fmt(extract, 2, width: 14)) \(fmt(contract, 2, width: 11)) "
                        + "\(fmt(contractCPU, 2, width: 15)) \(fmt(Double(edges) / contract, 0, width: 17))"
                        + " \(fmt(Double(edges) / contractCPU, 0, width: 16))"
                }
                print(line)
                fflush(nil)
                if threads == threadRows.last, let router, name.hasPrefix("andorra"), edges > (largest?.1 ?? 100_000) {
                    largest = (router, edges)
                }
            }
        }
        if let (router, _) = largest {
            print("cost queries on the largest tiling (\(router.network.edges.count) edges):")
            try RouteBenchmark.largeQueries(router)
        }
    }

    /// CPU seconds (user + system) used so far by the children this process has waited for.
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Times `osrm extract` and `osrm contract`: wall seconds of each, and the contract's CPU seconds (all threads);
    /// NaN when a step fails, its log in `dir`.
    static func osrmPrepare(python: String, osm: String, threads: Int, dir: String) -> (Double, Double, Double) {
        _ = system("rm -rf '\(dir)' && mkdir -p '\(dir)' && ln -s '\(osm)' '\(dir)/map.osm'")
        let profile = "$('\(python)' -c 'import osrm, os; print(os.path.dirname(osrm.__file__))')/share/profiles/car.lua"
        func timed(_ command: String) -> (wall: Double, cpu: Double) {
            let t0 = nowNanoseconds(), c0 = childrenCPUSeconds()
            let status = system("cd '\(dir)' && \(command) >> log.txt 2>&1")
            if status != 0 { return (.nan, .nan) }
            return (Double(nowNanoseconds() - t0) / 1e9, childrenCPUSeconds() - c0)
        }
        let extract = timed("'\(python)' -m osrm extract -p \"\(profile)\" -t \(threads) map.osm")
        let contract = extract.wall.isNaN ? (wall: Double.nan, cpu: Double.nan)
            : timed("'\(python)' -m osrm contract -t \(threads) map.osrm")
        return (extract.wall, contract.wall, contract.cpu)
    }
}

/// A regular grid of `side` x `side` junctions 100 m apart joined by two-way residential streets (2·side·(side−1)
/// edges), placed near Andorra so the driving side and frame match the tilings.
func gridNetwork(side: Int) throws -> RoadNetwork {
    let lat0 = 42.4, lon0 = 1.4
    let dLat = 100 / 111_320.0, dLon = 100 / (111_320.0 * 0.7385)  // cos(42.4°) ≈ 0.7385
    func at(_ r: Int, _ c: Int) -> GeoCoordinate {
        GeoCoordinate(uncheckedLatitude: lat0 + Double(r) * dLat, longitude: lon0 + Double(c) * dLon)
    }
    func key(_ r: Int, _ c: Int) -> Int64 { Int64(r * side + c + 1) }
    let attributes = RoadAttributes(roadClass: .residential)
    var ways: [RoadWay] = []
    var id: Int64 = 1
    for r in 0..<side {
        for c in 0..<side {
            for (r2, c2) in [(r, c + 1), (r + 1, c)] where r2 < side && c2 < side {
                ways.append(RoadWay(sourceID: .number(id), coordinates: [at(r, c), at(r2, c2)],
                                    nodeKeys: [key(r, c), key(r2, c2)], direction: .both, attributes: attributes))
                id += 1
            }
        }
    }
    return try RoadNetwork(ways: ways, sourceName: "grid \(side)x\(side)")
}

/// Writes a network as OSM XML: one way per edge (junction nodes shared, interior shape points own nodes), tagged
/// highway, oneway, maxspeed, access and junction=roundabout as RoadSnap read them. Ferries are left out.
func writeOSM(_ network: RoadNetwork, to path: String) throws {
    guard let f = fopen(path, "w") else { throw RoadSnapError.unreadableFile(path: path, reason: "cannot create") }
    defer { fclose(f) }
    func put(_ s: String) { fputs(s, f) }
    func coord(_ c: GeoCoordinate) -> String {
        "lat=\"\(fmt(c.latitude, 7, width: 0))\" lon=\"\(fmt(c.longitude, 7, width: 0))\""
    }
    put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\" generator=\"roadsnap-bench\">\n")
    for (i, n) in network.nodes.enumerated() { put("<node id=\"\(i + 1)\" version=\"1\" \(coord(n))/>\n") }
    var nextNode = network.nodes.count + 1
    var wayNodes: [[Int]] = []
    for e in network.edges {
        var ids = [e.fromNode + 1]
        let shape = network.shape[e.shapeRange]
        for c in shape.dropFirst().dropLast() {
            put("<node id=\"\(nextNode)\" version=\"1\" \(coord(c))/>\n")
            ids.append(nextNode); nextNode += 1
        }
        ids.append(e.toNode + 1)
        wayNodes.append(ids)
    }
    for (i, e) in network.edges.enumerated() where !e.attributes.isFerry && e.attributes.roadClass != .unknown {
        put("<way id=\"\(i + 1)\" version=\"1\">")
        for n in wayNodes[i] { put("<nd ref=\"\(n)\"/>") }
        let a = e.attributes
        put("<tag k=\"highway\" v=\"\(a.roadClass.rawValue)\"/>")
        if e.direction == .forward { put("<tag k=\"oneway\" v=\"yes\"/>") }
        if e.direction == .backward { put("<tag k=\"oneway\" v=\"-1\"/>") }
        if let s = a.maxspeedForward, a.maxspeedBackward == s { put("<tag k=\"maxspeed\" v=\"\(Int(s.rounded()))\"/>") }
        if a.access == .destination { put("<tag k=\"access\" v=\"destination\"/>") }
        if a.isRoundabout { put("<tag k=\"junction\" v=\"roundabout\"/>") }
        put("</way>\n")
    }
    put("</osm>\n")
    if ferror(f) != 0 { throw RoadSnapError.unreadableFile(path: path, reason: "write failed") }
}

extension String {
    fileprivate var replacingSpaces: String { String(map { $0 == " " ? "-" : $0 }) }
}
