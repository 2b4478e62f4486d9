import RoadSnapBridge

/// Directed view of a road network. Arc `2e` travels edge `e` along its geometry, arc `2e + 1` against it;
/// only arcs the edge's direction allows are listed.
public final class RoadGraph: Sendable {
    public let nodeCount: Int
    /// Arcs leaving node `n`: `outArcs[outStart[n] ..< outStart[n + 1]]`.
    public let outStart: MappedArray<Int32>
    public let outArcs: MappedArray<Int32>
    /// Arcs entering node `n`: `inArcs[inStart[n] ..< inStart[n + 1]]`.
    public let inStart: MappedArray<Int32>
    public let inArcs: MappedArray<Int32>
    /// Tail and head node of every arc (index = arc id); -1 for arcs the edge does not allow.
    public let arcTail: MappedArray<Int32>
    public let arcHead: MappedArray<Int32>
    /// Length in metres of every arc.
    public let arcLength: MappedArray<Double>
    /// The arc running the same road the other way: `a ^ 1` when the edge allows both directions, else a one-way
    /// edge from `a`'s head back to its tail of about the same length (a road drawn once per direction), else -1.
    public let reverseArc: MappedArray<Int32>
    /// Turn restrictions grouped by from edge: `restrictionVia/To/Mandatory[restrictionStart[e] ..<
    /// restrictionStart[e + 1]]` (the layout the C matcher reads in place).
    public let restrictionStart: MappedArray<Int32>
    public let restrictionVia: MappedArray<Int32>
    public let restrictionTo: MappedArray<Int32>
    public let restrictionMandatory: MappedArray<Int8>

    /// Arc id of edge `e` in the given direction.
    @inlinable public static func arc(edge: Int, forward: Bool) -> Int { edge * 2 + (forward ? 0 : 1) }
    @inlinable public static func edge(ofArc a: Int) -> Int { a >> 1 }
    @inlinable public static func isForward(_ a: Int) -> Bool { a & 1 == 0 }

    init(nodeCount: Int, outStart: MappedArray<Int32>, outArcs: MappedArray<Int32>, inStart: MappedArray<Int32>,
         inArcs: MappedArray<Int32>, arcTail: MappedArray<Int32>, arcHead: MappedArray<Int32>,
         arcLength: MappedArray<Double>, reverseArc: MappedArray<Int32>, restrictionStart: MappedArray<Int32>,
         restrictionVia: MappedArray<Int32>, restrictionTo: MappedArray<Int32>,
         restrictionMandatory: MappedArray<Int8>)
    {
        self.nodeCount = nodeCount
        self.outStart = outStart; self.outArcs = outArcs; self.inStart = inStart; self.inArcs = inArcs
        self.arcTail = arcTail; self.arcHead = arcHead; self.arcLength = arcLength; self.reverseArc = reverseArc
        self.restrictionStart = restrictionStart; self.restrictionVia = restrictionVia
        self.restrictionTo = restrictionTo; self.restrictionMandatory = restrictionMandatory
    }

    convenience init(nodeCount: Int, edges: EdgeTable, restrictions: TurnRestrictionTable) {
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
        // Restrictions grouped by from edge, in their given order within an edge.
        var rStart = [Int32](repeating: 0, count: edges.count + 1)
        for r in restrictions.records { rStart[Int(r.from_edge) + 1] += 1 }
        for e in 0..<edges.count { rStart[e + 1] += rStart[e] }
        var fill = rStart
        var via = [Int32](repeating: 0, count: restrictions.count), to = via
        var mandatory = [Int8](repeating: 0, count: restrictions.count)
        for r in restrictions.records {
            let k = Int(fill[Int(r.from_edge)]); fill[Int(r.from_edge)] += 1
            via[k] = r.via_node; to[k] = r.to_edge; mandatory[k] = r.kind == 1 ? 1 : 0
        }
        self.init(nodeCount: nodeCount, outStart: MappedArray(outStart), outArcs: MappedArray(outArcs),
                  inStart: MappedArray(inStart), inArcs: MappedArray(inArcs), arcTail: MappedArray(tail),
                  arcHead: MappedArray(head), arcLength: MappedArray(length), reverseArc: MappedArray(reverse),
                  restrictionStart: MappedArray(rStart), restrictionVia: MappedArray(via),
                  restrictionTo: MappedArray(to), restrictionMandatory: MappedArray(mandatory))
    }

    /// Whether any turn restriction starts on edge `e`.
    @inlinable public func hasRestrictions(fromEdge e: Int) -> Bool { restrictionStart[e] != restrictionStart[e + 1] }

    /// Whether turning from arc `from` onto arc `to` at their shared node is allowed by turn restrictions
    /// (U-turns are not judged here; see `isUTurn`).
    @inlinable
    public func isTurnAllowed(from: Int, to: Int) -> Bool {
        let fromEdge = from >> 1
        if !hasRestrictions(fromEdge: fromEdge) { return true }
        return checkRestrictions(fromEdge: fromEdge, via: arcHead[from], toEdge: Int32(to >> 1))
    }

    /// A `no_*` restriction (from, via, to) forbids the turn; `only_*` restrictions at (from, via) allow only
    /// their to edges.
    @usableFromInline
    func checkRestrictions(fromEdge: Int, via: Int32, toEdge: Int32) -> Bool {
        var hasMandatory = false, mandatoryAllows = false
        for k in Int(restrictionStart[fromEdge])..<Int(restrictionStart[fromEdge + 1]) where restrictionVia[k] == via {
            if restrictionMandatory[k] != 0 {
                hasMandatory = true
                if restrictionTo[k] == toEdge { mandatoryAllows = true }
            } else if restrictionTo[k] == toEdge {
                return false
            }
        }
        return !hasMandatory || mandatoryAllows
    }

    /// Whether `to` runs back along the same edge as `from`.
    @inlinable public func isUTurn(from: Int, to: Int) -> Bool { from >> 1 == to >> 1 }

    /// Number of arcs leaving node `n`.
    @inlinable public func outDegree(_ n: Int) -> Int { Int(outStart[n + 1] - outStart[n]) }
}
