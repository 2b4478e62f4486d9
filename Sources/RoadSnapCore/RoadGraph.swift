/// Directed view of a road network. Arc `2e` travels edge `e` along its geometry, arc `2e + 1` against it;
/// only arcs the edge's direction allows are listed.
public final class RoadGraph: Sendable {
    public let nodeCount: Int
    /// Arcs leaving node `n`: `outArcs[outStart[n] ..< outStart[n + 1]]`.
    public let outStart: [Int32]
    public let outArcs: [Int32]
    /// Arcs entering node `n`: `inArcs[inStart[n] ..< inStart[n + 1]]`.
    public let inStart: [Int32]
    public let inArcs: [Int32]
    /// Tail and head node of every arc (index = arc id); -1 for arcs the edge does not allow.
    public let arcTail: [Int32]
    public let arcHead: [Int32]
    /// Length in metres of every arc.
    public let arcLength: [Double]
    /// The arc running the same road the other way: `a ^ 1` when the edge allows both directions, else a one-way
    /// edge from `a`'s head back to its tail of about the same length (a road drawn once per direction), else -1.
    public let reverseArc: [Int32]
    /// Whether any turn restriction starts on edge `e`.
    public let restrictedFrom: [Bool]
    private let prohibited: Set<TurnKey>
    private let mandatory: [TurnKey: [Int]]  // key with toEdge = -1 -> allowed toEdges

    struct TurnKey: Hashable, Sendable { var from: Int32, via: Int32, to: Int32 }

    /// Arc id of edge `e` in the given direction.
    @inlinable public static func arc(edge: Int, forward: Bool) -> Int { edge * 2 + (forward ? 0 : 1) }
    @inlinable public static func edge(ofArc a: Int) -> Int { a >> 1 }
    @inlinable public static func isForward(_ a: Int) -> Bool { a & 1 == 0 }

    init(nodeCount: Int, edges: [RoadEdge], restrictions: [TurnRestriction]) {
        self.nodeCount = nodeCount
        var tail = [Int32](repeating: -1, count: edges.count * 2)
        var head = [Int32](repeating: -1, count: edges.count * 2)
        var length = [Double](repeating: 0, count: edges.count * 2)
        var outCount = [Int32](repeating: 0, count: nodeCount + 1)
        var inCount = [Int32](repeating: 0, count: nodeCount + 1)
        for (e, edge) in edges.enumerated() {
            for forward in [true, false] where edge.allows(forward: forward) {
                let a = e * 2 + (forward ? 0 : 1)
                tail[a] = Int32(forward ? edge.fromNode : edge.toNode)
                head[a] = Int32(forward ? edge.toNode : edge.fromNode)
                length[a] = edge.length
                outCount[Int(tail[a])] += 1
                inCount[Int(head[a])] += 1
            }
        }
        func prefix(_ counts: [Int32]) -> [Int32] {
            var starts = [Int32](repeating: 0, count: counts.count)
            var sum: Int32 = 0
            for i in 0..<(counts.count - 1) { starts[i] = sum; sum += counts[i] }
            starts[counts.count - 1] = sum
            return starts
        }
        let outStart = prefix(outCount), inStart = prefix(inCount)
        var outArcs = [Int32](repeating: 0, count: Int(outStart[nodeCount]))
        var inArcs = [Int32](repeating: 0, count: Int(inStart[nodeCount]))
        var outFill = outStart, inFill = inStart
        for a in 0..<(edges.count * 2) where tail[a] >= 0 {
            outArcs[Int(outFill[Int(tail[a])])] = Int32(a); outFill[Int(tail[a])] += 1
            inArcs[Int(inFill[Int(head[a])])] = Int32(a); inFill[Int(head[a])] += 1
        }
        self.outStart = outStart; self.outArcs = outArcs; self.inStart = inStart; self.inArcs = inArcs
        arcTail = tail; arcHead = head; arcLength = length
        var reverse = [Int32](repeating: -1, count: edges.count * 2)
        for a in 0..<(edges.count * 2) where tail[a] >= 0 {
            if tail[a ^ 1] >= 0 { reverse[a] = Int32(a ^ 1); continue }
            let h = Int(head[a])
            for k in Int(outStart[h])..<Int(outStart[h + 1]) {
                let c = Int(outArcs[k])
                if c != a, head[c] == tail[a], abs(length[c] - length[a]) <= 0.01 * length[a] + 0.5 {
                    reverse[a] = Int32(c)
                    break
                }
            }
        }
        reverseArc = reverse
        var restrictedFrom = [Bool](repeating: false, count: edges.count)
        var prohibited = Set<TurnKey>()
        var mandatory: [TurnKey: [Int]] = [:]
        for r in restrictions {
            restrictedFrom[r.fromEdge] = true
            switch r.kind {
            case .prohibitive:
                prohibited.insert(TurnKey(from: Int32(r.fromEdge), via: Int32(r.viaNode), to: Int32(r.toEdge)))
            case .mandatory:
                mandatory[TurnKey(from: Int32(r.fromEdge), via: Int32(r.viaNode), to: -1), default: []].append(r.toEdge)
            }
        }
        self.restrictedFrom = restrictedFrom; self.prohibited = prohibited; self.mandatory = mandatory
    }

    /// Whether turning from arc `from` onto arc `to` at their shared node is allowed by turn restrictions
    /// (U-turns are not judged here; see `isUTurn`).
    @inlinable
    public func isTurnAllowed(from: Int, to: Int) -> Bool {
        let fromEdge = from >> 1
        if !restrictedFrom[fromEdge] { return true }
        return checkRestrictions(fromEdge: fromEdge, via: Int(arcHead[from]), toEdge: to >> 1)
    }

    @usableFromInline
    func checkRestrictions(fromEdge: Int, via: Int, toEdge: Int) -> Bool {
        if prohibited.contains(TurnKey(from: Int32(fromEdge), via: Int32(via), to: Int32(toEdge))) { return false }
        if let only = mandatory[TurnKey(from: Int32(fromEdge), via: Int32(via), to: -1)] { return only.contains(toEdge) }
        return true
    }

    /// Whether `to` runs back along the same edge as `from`.
    @inlinable public func isUTurn(from: Int, to: Int) -> Bool { from >> 1 == to >> 1 }

    /// Number of arcs leaving node `n`.
    @inlinable public func outDegree(_ n: Int) -> Int { Int(outStart[n + 1] - outStart[n]) }
}
