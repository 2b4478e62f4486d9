@testable import RoadSnapCAPI
import RoadSnapCHeader
import Testing

/// Handles in the 32-bit layout (no 32-bit Swift toolchain is at hand, so the table is built for 32-bit pointers
/// on this 64-bit target): every handle fits 32 bits, closed and forged handles are refused, generations wrap
/// without producing 0 or colliding with a live handle.
@Suite struct HandleTableTests {
    final class Thing: HandleObject {}

    @Test func thirtyTwoBitHandlesFitAndStayChecked() throws {
        let table = HandleTable(pointerBits: 32)
        #expect(table.layout.slotBits + table.layout.generationBits + HandleLayout.kindBits == 32)
        let thing = Thing()
        var previous: UInt64 = 0
        // One slot reused past a whole cycle of 16-bit generations.
        for round in 0..<70_000 {
            let bits = try table.insertBits(thing, kind: .map)
            #expect(bits != 0 && bits <= UInt64(UInt32.max), "round \(round): \(bits)")
            #expect(bits != previous)
            #expect((try? table.find(bits: bits, .snapper, remove: false)) == nil)  // wrong kind
            _ = try table.find(bits: bits, .map, remove: true)
            #expect((try? table.find(bits: bits, .map, remove: false)) == nil)  // closed
            previous = bits
            if round % 10_000 == 0 { #expect(table.liveCount == 0) }
        }
        // Bits above 31 are not a handle of this table.
        let live = try table.insertBits(thing, kind: .track)
        #expect((try? table.find(bits: live | 1 << 32, .track, remove: false)) == nil)
        #expect((try? table.find(bits: live, .track, remove: false)) != nil)
        // 4,096 open handles at most, then a clear error, not a wrapped slot.
        var open = [live]
        for _ in 1..<table.layout.maxSlots { open.append(try table.insertBits(thing, kind: .route)) }
        #expect(Set(open).count == table.layout.maxSlots)
        #expect(open.allSatisfy { $0 <= UInt64(UInt32.max) })
        #expect(throws: APIFailure.self) { try table.insertBits(thing, kind: .route) }
    }

    @Test func staleAndForgedMessages() throws {
        let table = HandleTable(pointerBits: 32)
        let bits = try table.insertBits(Thing(), kind: .router)
        _ = try table.find(bits: bits, .router, remove: true)
        do {
            _ = try table.find(bits: bits, .router, remove: false)
            Issue.record("a closed handle was accepted")
        } catch {
            #expect(error.status == RS_E_INVALID_HANDLE)
            #expect(error.message.contains("stale"))
        }
        do {
            _ = try table.find(bits: 0xdead_beef, .router, remove: false)
            Issue.record("a forged handle was accepted")
        } catch {
            #expect(error.message.contains("not made by this library"))
        }
    }
}
