import Foundation
import RoadSnapBridge
import RoadSnapCore
import Testing

/// Compiled maps crafted to pass their checksums (issue 16): every stored value used as an index or a length is
/// checked against the counts, so such a file is refused with an error naming the file and the section - at open
/// with full verification, at the first query context with lazy verification - and never crashes. The fuzzer's
/// crasher (`rsmap-repaired` target) and hand-made variants of one value per section.
@Suite struct CompiledMapCraftedTests {
    /// `bytes` with every checksum recomputed (sections inside the file, section table, header), as the fuzz target
    /// `rsmap-repaired` does (`Fuzz/Fuzz.swift`), so a changed value reaches the checks behind the checksums.
    static func repaired(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        guard b.count >= 128 else { return b }
        func u32(_ at: Int) -> UInt32 { b.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) } }
        func u64(_ at: Int) -> UInt64 { b.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt64.self) } }
        func put(_ v: UInt64, _ at: Int) { b.withUnsafeMutableBytes { $0.storeBytes(of: v, toByteOffset: at, as: UInt64.self) } }
        func hash(_ from: Int, _ count: Int) -> UInt64 {
            b.withUnsafeBytes { Checksum.hash(UnsafeRawBufferPointer(rebasing: $0[from..<(from + count)])) }
        }
        put(UInt64(b.count), 24)
        // The current format version (the fixtures were written by version 1: their damage is what is tested).
        b.withUnsafeMutableBytes { $0.storeBytes(of: CompiledMapWriter.currentFormatVersion, toByteOffset: 12, as: UInt32.self) }
        let count = Int(min(u32(20), 4096)), table = u64(32)
        if table >= 128, table <= UInt64(b.count), UInt64(count * 32) <= UInt64(b.count) - table {
            for i in 0..<count {
                let entry = Int(table) + i * 32
                let (length, overflow) = u64(entry + 16).multipliedReportingOverflow(by: UInt64(u32(entry + 4)))
                let offset = u64(entry + 8)
                if !overflow, offset <= UInt64(b.count), length <= UInt64(b.count) - offset {
                    put(hash(Int(offset), Int(length)), entry + 24)
                }
            }
            put(hash(Int(table), count * 32), 40)
        }
        put(0, 120)
        put(hash(0, 128), 120)
        return b
    }

    /// The file's section table: id -> (offset, element count).
    static func sections(_ bytes: [UInt8]) -> [UInt32: (offset: Int, count: Int)] {
        let table = bytes.withUnsafeBytes { Int($0.load(fromByteOffset: 32, as: UInt64.self)) }
        let n = bytes.withUnsafeBytes { Int($0.load(fromByteOffset: 20, as: UInt32.self)) }
        var out: [UInt32: (offset: Int, count: Int)] = [:]
        for i in 0..<n {
            let e = table + i * 32
            bytes.withUnsafeBytes {
                out[$0.loadUnaligned(fromByteOffset: e, as: UInt32.self)] =
                    (Int($0.loadUnaligned(fromByteOffset: e + 8, as: UInt64.self)),
                     Int($0.loadUnaligned(fromByteOffset: e + 16, as: UInt64.self)))
            }
        }
        return out
    }

    /// Opens `bytes` both ways and does what a session does first (a snapper, a snap, a matcher, a router): each
    /// step either works or throws; the reasons of the refusals are returned (full open, lazy first use).
    static func openAndUse(_ bytes: [UInt8]) -> (all: String?, lazy: String?) {
        var reasons: [String?] = []
        for verification in [CompiledMap.Verification.all, .lazy] {
            switch CompiledMapTests.open(bytes, verification: verification) {
            case let .failure(error):
                if case let .invalidMap(path, reason) = error, path == "damaged.rsmap" {
                    reasons.append(reason)
                } else {
                    Issue.record("expected invalidMap naming the file, got \(error)"); reasons.append(nil)
                }
            case let .success(n):
                for e in n.edges.prefix(64) { _ = e.sourceID.description; _ = e.attributes.name }
                do {
                    let s = try Snapper(network: n)
                    _ = try s.snap(Fix(coordinate: n.geometry(ofEdge: 0)[0]), radius: 100)
                    _ = try MapMatcher(network: n)
                    _ = Router(network: n).route(RouteRequest(waypoints: [
                        Waypoint(coordinate: n.nodes[0]), Waypoint(coordinate: n.nodes[n.nodes.count - 1])]))
                    reasons.append(nil)
                } catch {
                    guard case let .invalidMap(path, reason) = error, path == "damaged.rsmap" else {
                        Issue.record("expected invalidMap naming the file, got \(error)"); reasons.append(nil); continue
                    }
                    reasons.append(reason)
                }
            }
        }
        return (reasons[0], reasons[1])
    }

    @Test func theFuzzersCrasherIsRefusedNamingTheSection() throws {
        // Found by the `rsmap-repaired` fuzz target: an edge number out of range in the segment index trapped in
        // `EdgeTable`'s subscript (`Snapper.snapped`). The mutation also broke a segment length, checked first.
        let bytes = Self.repaired([UInt8](try Data(contentsOf: URL(fileURLWithPath:
            TestData.fixture("rsmap/fuzz-crash-segment-edge.rsmap")))))
        let (all, lazy) = Self.openAndUse(bytes)
        let a = try #require(all), l = try #require(lazy)
        #expect(a.hasPrefix("compiled map section segment") && a.hasSuffix("compile it again"), "\(a)")
        #expect(a == l)
    }

    @Test func aSectionTableOffsetNearTheTopOfTheRangeIsRefused() throws {
        // Found by the `rsmap-repaired` fuzz target (third session): with a table offset near 2^64, the bounds check
        // `offset + table size <= file size` overflowed and trapped before any section was read.
        let bytes = Self.repaired([UInt8](try Data(contentsOf: URL(fileURLWithPath:
            TestData.fixture("rsmap/fuzz-crash-table-offset.rsmap")))))
        #expect(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 32, as: UInt64.self) } > UInt64.max - 1 << 32)
        let (all, lazy) = Self.openAndUse(bytes)
        #expect(all == "compiled map section table lies outside the file")
        #expect(lazy == all)
    }

    /// (section, element, width in bytes, value, what the reason names). Values out of range for each kind of
    /// stored index: nodes, edges, arcs, vertices, attributes, strings, segments, cells, start tables, counts.
    static let variants: [(UInt32, Int, Int, Int64, String)] = [
        (2, 3, 8, -1, "nx"),                                   // ints: a negative grid size
        (2, 4, 8, Int64(Int32.max), "impossible segment index"), // ints: a grid that overflows
        (2, 2, 8, 0, "impossible segment index"),              // ints: no segments
        (12, 0, 4, 1_000_000, "section edges (12)"),           // edge 0's from node
        (12, 3, 4, 1_000_000, "section edges (12)"),           // edge 0's vertex count
        (12, 8, 4, -5, "section edges (12)"),                  // edge 0's attribute record (field 8 of 10)
        (15, 0, 4, 0, "section attributes (15)"),              // name string index of attribute record 0 (see below)
        (16, 1, 4, 0x7fff_ffff, "section stringOffsets (16)"),
        (31, 0, 4, 1_000_000, "section outArcs (31)"),
        (30, 1, 4, -2, "section outStart (30)"),
        (33, 0, 4, -1, "section inArcs (33)"),
        (34, 0, 4, 1_000_000, "section arcTail (34)"),
        (35, 1, 4, 7_000_000, "section arcHead (35)"),
        (37, 0, 4, 1_000_000, "section reverseArc (37)"),
        (38, 1, 4, 1_000_000, "section restrictionStart (38)"),
        (54, 0, 4, 1_000_000, "section segmentEdge (54)"),
        (54, 5, 4, -1, "section segmentEdge (54)"),
        (55, 0, 4, -3, "section segmentOrig (55)"),
        (57, 1, 4, 0x7fff_fff0, "section cellStart (57)"),
        (58, 0, 4, 1_000_000, "section cellItems (58)"),
        (56, 0, 1, 9, "section edgeDirection (56)"),
    ]

    @Test func aValueOutOfRangeInAnySectionIsRefusedNamingIt() throws {
        let (_, good) = try CompiledMapTests.compiledBytes(fixture: "osm/issue-70.osm.gz")
        let table = Self.sections(good)
        #expect(Self.openAndUse(good) == (nil, nil))
        for (id, element, width, value, expected) in Self.variants {
            let s = try #require(table[id], "section \(id)")
            var bytes = good
            // Attribute record 0's name: 1 past the last string (an attribute record is 56 bytes, name at 32).
            let at = id == 15 ? s.offset + 32 : s.offset + element * width
            let v = id == 15 ? Int64(table[16]!.count - 1) : value
            bytes.withUnsafeMutableBytes { b in
                switch width {
                case 8: b.storeBytes(of: v, toByteOffset: at, as: Int64.self)
                case 4: b.storeBytes(of: Int32(truncatingIfNeeded: v), toByteOffset: at, as: Int32.self)
                default: b.storeBytes(of: Int8(truncatingIfNeeded: v), toByteOffset: at, as: Int8.self)
                }
            }
            let (all, lazy) = Self.openAndUse(Self.repaired(bytes))
            let a = try #require(all, "section \(id) element \(element) = \(v) was not refused")
            #expect(a.contains(expected), "\(id): \(a)")
            // The header (section 2) is checked at open either way; the rest at the first query context.
            #expect(lazy == a, "\(id): lazy \(lazy ?? "accepted")")
        }
    }

    @Test func aRoutingSectionOutOfRangeIsRebuiltFromTheNetwork() throws {
        let (source, good) = try CompiledMapTests.compiledBytes(fixture: "osm/issue-70.osm.gz")
        let table = Self.sections(good)
        // upTarget (91), upLink (93), linkFirst (100) pointing to itself: the stored hierarchy is not used, the
        // router builds one from the network, and routes are those of the source map.
        for (id, value) in [(UInt32(91), Int32(1_000_000)), (93, -4), (100, Int32(table[100]!.count - 1))] {
            let s = try #require(table[id])
            var bytes = good
            let at = id == 100 ? s.offset + (s.count - 1) * 4 : s.offset
            bytes.withUnsafeMutableBytes { $0.storeBytes(of: value, toByteOffset: at, as: Int32.self) }
            let n = try CompiledMapTests.open(Self.repaired(bytes)).get()
            let a = Router(network: source), b = Router(network: n)
            var found = 0
            for (p, q) in zip(CompiledMapTests.probes(source, count: 6, seed: 3),
                              CompiledMapTests.probes(source, count: 6, seed: 4)) {
                let req = RouteRequest(waypoints: [Waypoint(coordinate: p), Waypoint(coordinate: q)])
                let x = a.route(req)
                #expect(x == b.route(req))
                if x.status == .ok { found += 1 }
            }
            #expect(found > 0)
        }
    }
}
