import RoadSnapBridge

/// The car profile: what a route may use and what it costs.
///
/// - Speed: the tagged `maxspeed` for the travel direction, else the class default (`RoadClass.defaultSpeedKmh`:
///   motorway 90, trunk 85, primary 65, secondary 55, tertiary 40, unclassified and residential 25, living street
///   10, service 15, links 20–45 km/h). Ferries take their tagged `duration`, else 5 km/h.
/// - One-ways and `no_*`/`only_*` turn restrictions are obeyed; U-turns are made only at dead ends (20 s).
/// - Turns cost time: nothing under 20°, then 1.5 s plus up to 4.5 s growing with the angle, plus 2.5 s for turns
///   across oncoming traffic (left in right-hand traffic).
/// - `access=destination` (and private, delivery, …) roads cost 10 times their travel time: used to reach a place
///   on them, not as through routes. Roads the options avoid cost 20 times their travel time, so they are used only
///   when nothing else connects (as navigation SDKs do).
/// - Costs are whole milliseconds so that every search algorithm sums them exactly.
public enum CarProfile {
    /// Seconds added for a U-turn at a dead end.
    public static let uTurnSeconds = 20.0
    /// Factor on the travel time of roads the routing options avoid.
    public static let avoidFactor = 20.0
    /// Factor on the travel time of `access=destination` roads.
    public static let destinationAccessFactor = 10.0

    /// Travel time in seconds of `length` metres of an edge in the given direction.
    public static func seconds(_ edge: RoadEdge, length: Double, forward: Bool) -> Double {
        seconds(edge.attributes, edgeLength: edge.length, length: length, forward: forward)
    }

    /// The same from the edge's attributes and whole length (for loops that read attributes from the table).
    static func seconds(_ attributes: RoadAttributes, edgeLength: Double, length: Double, forward: Bool) -> Double {
        if attributes.isFerry, let d = attributes.ferryDuration, edgeLength > 0 {
            return d * length / edgeLength
        }
        let speed = max(1, attributes.speedKmh(forward: forward))
        return length / (speed / 3.6)
    }

    /// Seconds a turn of `angle` degrees costs (positive = right), U-turns excluded.
    public static func turnSeconds(angle: Double, drivingSide: DrivingSide) -> Double {
        let a = abs(angle)
        if a < 20 { return 0 }
        let crossing = drivingSide == .left ? angle > 0 : angle < 0
        return 1.5 + 4.5 * min(a, 180) / 180 + (crossing ? 2.5 : 0)
    }

    /// Whether the options avoid this edge.
    public static func avoids(_ attributes: RoadAttributes, options: RoutingOptions) -> Bool {
        (options.avoidsHighways && attributes.roadClass.isHighway) || (options.avoidsTolls && attributes.isToll)
            || (options.avoidsFerries && attributes.isFerry)
    }
}

/// Bearings of every arc near its ends, and which edges connect to the main network. Built once per network.
struct ArcGeometry: Sendable {
    /// Bearing leaving the arc's tail (towards a point ~15 m in) and arriving at its head.
    let startBearing: MappedArray<Double>
    let endBearing: MappedArray<Double>
    /// Edges a route can leave into / arrive from the main network (the biggest strongly connected component):
    /// waypoints prefer them over fragments cut off by the extract or by one-ways, as OSRM does.
    let startsOnMain: MappedArray<Bool>
    let endsOnMain: MappedArray<Bool>
    static let bearingReach = 15.0

    init(startBearing: MappedArray<Double>, endBearing: MappedArray<Double>, startsOnMain: MappedArray<Bool>,
         endsOnMain: MappedArray<Bool>)
    {
        self.startBearing = startBearing; self.endBearing = endBearing
        self.startsOnMain = startsOnMain; self.endsOnMain = endsOnMain
    }

    init(network: RoadNetwork) {
        let n = network.edges.count
        var start = [Double](repeating: 0, count: 2 * n), end = [Double](repeating: 0, count: 2 * n)
        for e in 0..<n {
            let pts = network.localGeometry(ofEdge: e)
            let first = pts[pts.startIndex], last = pts[pts.endIndex - 1]
            let len = network.edges[e].length
            let reach = min(Self.bearingReach, len)
            let nearStart = network.localPoint(onEdge: e, offset: reach)
            let nearEnd = network.localPoint(onEdge: e, offset: len - reach)
            start[2 * e] = localBearing(from: first, to: nearStart)
            end[2 * e] = localBearing(from: nearEnd, to: last)
            start[2 * e + 1] = localBearing(from: last, to: nearEnd)
            end[2 * e + 1] = localBearing(from: nearStart, to: first)
        }
        startBearing = MappedArray(start); endBearing = MappedArray(end)
        // Strongly connected components of the directed node graph (iterative Tarjan).
        let g = network.graph
        let nodeCount = network.nodes.count
        var index = [Int32](repeating: -1, count: nodeCount), low = [Int32](repeating: 0, count: nodeCount)
        var onStack = [Bool](repeating: false, count: nodeCount)
        var component = [Int32](repeating: -1, count: nodeCount)
        var componentSize: [Int] = []
        var stack: [Int32] = [], frames: [(node: Int32, next: Int32)] = []
        var counter: Int32 = 0
        for root in 0..<nodeCount where index[root] < 0 {
            frames.append((Int32(root), g.outStart[root]))
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(Int32(root)); onStack[root] = true
            while let top = frames.last {
                let v = Int(top.node)
                if top.next < g.outStart[v + 1] {
                    frames[frames.count - 1].next += 1
                    let w = Int(g.arcHead[Int(g.outArcs[Int(top.next)])])
                    if index[w] < 0 {
                        index[w] = counter; low[w] = counter; counter += 1
                        stack.append(Int32(w)); onStack[w] = true
                        frames.append((Int32(w), g.outStart[w]))
                    } else if onStack[w] {
                        low[v] = min(low[v], index[w])
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last { low[Int(parent.node)] = min(low[Int(parent.node)], low[v]) }
                if low[v] == index[v] {
                    let id = Int32(componentSize.count)
                    var size = 0
                    while let x = stack.popLast() {
                        onStack[Int(x)] = false; component[Int(x)] = id; size += 1
                        if Int(x) == v { break }
                    }
                    componentSize.append(size)
                }
            }
        }
        // The main network: the biggest component. A route can start on an edge whose exit leads into it, and end
        // on an edge whose entry is reached from it (a one-way road leaving the extract is a fine destination).
        var main = 0
        for (c, size) in componentSize.enumerated() where size > componentSize[main] { main = c }
        func flood(forward: Bool) -> [Bool] {
            var seen = (0..<nodeCount).map { component[$0] == Int32(main) }
            var queue = (0..<nodeCount).filter { seen[$0] }
            while let v = queue.popLast() {
                let range = forward ? Int(g.outStart[v])..<Int(g.outStart[v + 1]) : Int(g.inStart[v])..<Int(g.inStart[v + 1])
                for k in range {
                    let w = Int(forward ? g.arcHead[Int(g.outArcs[k])] : g.arcTail[Int(g.inArcs[k])])
                    if !seen[w] { seen[w] = true; queue.append(w) }
                }
            }
            return seen
        }
        let fromMain = flood(forward: true), toMain = flood(forward: false)
        func exits(_ e: RoadEdge) -> Bool {
            (e.allows(forward: true) && toMain[e.toNode]) || (e.allows(forward: false) && toMain[e.fromNode])
        }
        func entries(_ e: RoadEdge) -> Bool {
            (e.allows(forward: true) && fromMain[e.fromNode]) || (e.allows(forward: false) && fromMain[e.toNode])
        }
        startsOnMain = MappedArray(network.edges.map(exits))
        endsOnMain = MappedArray(network.edges.map(entries))
    }

    /// Signed turn angle from arriving on `a` to leaving on `b`, degrees in (-180, 180], positive to the right.
    func turnAngle(from a: Int, to b: Int) -> Double {
        signedAngle(from: endBearing[a], to: startBearing[b])
    }
}

/// Signed difference `to - from` of two bearings, degrees in (-180, 180].
@inlinable
func signedAngle(from: Double, to: Double) -> Double {
    var d = (to - from).truncatingRemainder(dividingBy: 360)
    if d <= -180 { d += 360 }
    if d > 180 { d -= 360 }
    return d
}

/// The turn-aware (edge-based) graph of one profile: nodes are arcs, links are allowed turns. A link `a -> b`
/// costs the turn plus travelling all of `b`; a search label on `a` is the cost at the head of `a`.
final class TurnGraph: Sendable {
    let arcCount: Int
    /// Cost of travelling each whole arc, milliseconds (penalties included); 0 for arcs that do not exist.
    let arcCost: MappedArray<Int32>
    /// Turns leaving arc `a`: `turnTarget[turnStart[a] ..< turnStart[a + 1]]` with their costs.
    let turnStart: MappedArray<Int32>
    let turnTarget: MappedArray<Int32>
    let turnCost: MappedArray<Int32>
    /// Turns entering arc `b`: `reverseSource[reverseStart[b] ..< reverseStart[b + 1]]` with their costs.
    let reverseStart: MappedArray<Int32>
    let reverseSource: MappedArray<Int32>
    let reverseCost: MappedArray<Int32>

    init(arcCount: Int, arcCost: MappedArray<Int32>, turnStart: MappedArray<Int32>, turnTarget: MappedArray<Int32>,
         turnCost: MappedArray<Int32>, reverseStart: MappedArray<Int32>, reverseSource: MappedArray<Int32>,
         reverseCost: MappedArray<Int32>)
    {
        self.arcCount = arcCount; self.arcCost = arcCost; self.turnStart = turnStart; self.turnTarget = turnTarget
        self.turnCost = turnCost; self.reverseStart = reverseStart; self.reverseSource = reverseSource
        self.reverseCost = reverseCost
    }

    init(network: RoadNetwork, geometry: ArcGeometry, options: RoutingOptions, drivingSide: DrivingSide) {
        let graph = network.graph
        arcCount = network.edges.count * 2
        var cost = [Int32](repeating: 0, count: arcCount)
        for a in 0..<arcCount where graph.arcTail[a] >= 0 {
            let edge = network.edges[a >> 1]
            var s = CarProfile.seconds(edge, length: edge.length, forward: a & 1 == 0)
            if edge.attributes.access == .destination { s *= CarProfile.destinationAccessFactor }
            if CarProfile.avoids(edge.attributes, options: options) { s *= CarProfile.avoidFactor }
            cost[a] = Int32(min(Double(Int32.max / 8), (s * 1000).rounded()))
        }
        arcCost = MappedArray(cost)
        var start: [Int32] = [0], target: [Int32] = [], tcost: [Int32] = []
        start.reserveCapacity(arcCount + 1)
        for a in 0..<arcCount {
            let v = Int(graph.arcHead[a])
            if v >= 0 {
                var any = false
                for k in Int(graph.outStart[v])..<Int(graph.outStart[v + 1]) {
                    let b = Int(graph.outArcs[k])
                    if graph.isUTurn(from: a, to: b) || !graph.isTurnAllowed(from: a, to: b) { continue }
                    let turn = CarProfile.turnSeconds(angle: geometry.turnAngle(from: a, to: b), drivingSide: drivingSide)
                    target.append(Int32(b)); tcost.append(Int32((turn * 1000).rounded()) + cost[b])
                    any = true
                }
                // Dead end: turn around.
                let back = a ^ 1
                if !any, graph.arcTail[back] >= 0, graph.isTurnAllowed(from: a, to: back) {
                    target.append(Int32(back)); tcost.append(Int32(CarProfile.uTurnSeconds * 1000) + cost[back])
                }
            }
            start.append(Int32(target.count))
        }
        turnStart = MappedArray(start); turnTarget = MappedArray(target); turnCost = MappedArray(tcost)
        // Reverse adjacency.
        var count = [Int32](repeating: 0, count: arcCount + 1)
        for t in target { count[Int(t) + 1] += 1 }
        for i in 0..<arcCount { count[i + 1] += count[i] }
        var fill = count
        var rs = [Int32](repeating: 0, count: target.count), rc = [Int32](repeating: 0, count: target.count)
        for a in 0..<arcCount {
            for k in Int(start[a])..<Int(start[a + 1]) {
                let b = Int(target[k])
                let slot = Int(fill[b]); fill[b] += 1
                rs[slot] = Int32(a); rc[slot] = tcost[k]
            }
        }
        reverseStart = MappedArray(count); reverseSource = MappedArray(rs); reverseCost = MappedArray(rc)
    }

    /// Milliseconds of a turn `a -> b` alone (without travelling `b`), or nil when the turn is not allowed.
    func turnOnly(from a: Int, to b: Int) -> Int32? {
        for k in Int(turnStart[a])..<Int(turnStart[a + 1]) where Int(turnTarget[k]) == b {
            return turnCost[k] - arcCost[b]
        }
        return nil
    }
}
