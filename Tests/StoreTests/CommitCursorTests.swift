import Testing
import Store

/// `CommitCursor` alone: holes between seen ids are awaited until they
/// appear or the patience runs out; too many holes overflow.
@Suite struct CommitCursorTests {
    @Test func idsInOrderLeaveNothingAwaited() {
        var c = CommitCursor(after: 0)
        c.take([1, 2, 3], now: 0)
        #expect(c.after == 3 && c.awaited.isEmpty && !c.overflowed)
        c.take([], now: 1)
        #expect(c.after == 3 && c.awaited.isEmpty)
    }

    @Test func aHoleIsAwaitedUntilItAppears() {
        var c = CommitCursor(after: 10)
        // 12 committed before 11 (in any order in the answer).
        c.take([13, 12], now: 1_000)
        #expect(c.after == 13 && c.awaited == [11])
        c.take([14], now: 2_000)
        #expect(c.awaited == [11])
        c.take([11], now: 3_000)
        #expect(c.after == 14 && c.awaited.isEmpty && !c.overflowed)
        // Seen again (an awaited read that overlaps): nothing changes.
        c.take([11, 12], now: 3_100)
        #expect(c.after == 14 && c.awaited.isEmpty)
    }

    @Test func aHoleThatNeverFillsIsGivenUpAfterThePatience() {
        var c = CommitCursor(after: 0)
        c.take([1, 3, 6], now: 0)
        #expect(c.awaited == [2, 4, 5])
        c.take([4], now: CommitCursor.patienceMillis - 1)
        #expect(c.awaited == [2, 5])
        c.take([], now: CommitCursor.patienceMillis)
        #expect(c.awaited.isEmpty && c.after == 6 && !c.overflowed)
    }

    @Test func aJumpOrTooManyHolesOverflow() {
        var jump = CommitCursor(after: 5)
        jump.take([6 + Int64(CommitCursor.maxAwaited) + 1], now: 0)
        #expect(jump.overflowed && jump.awaited.isEmpty)

        var exact = CommitCursor(after: 5)
        exact.take([6 + Int64(CommitCursor.maxAwaited)], now: 0)
        #expect(!exact.overflowed && exact.awaited.count == CommitCursor.maxAwaited)

        // Holes piling up over several reads overflow too.
        var many = CommitCursor(after: 0)
        var id: Int64 = 0
        while !many.overflowed && id < 100_000 {
            id += 3
            many.take([id], now: 0)
        }
        #expect(many.overflowed && id == 3 * Int64(CommitCursor.maxAwaited / 2 + 1))
    }

    /// `take(upTo:holes:appeared:)`, which a reader of heartbeat pings uses
    /// instead of passing every id, moves the cursor as `take` with the ids.
    @Test func boundsAndIdsMoveTheCursorAlike() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33) % n
        }
        for _ in 0..<200 {
            var byIDs = CommitCursor(after: 100), byBounds = byIDs
            var committed = Set<Int64>()
            var top: Int64 = 100
            for step in 0..<12 {
                // Some new ids, some of them not committed yet; some older
                // holes committed now.
                let fresh = (0..<next(6)).map { _ in top + 1 + Int64(next(8)) }
                top = max(top, fresh.max() ?? top)
                for id in fresh where next(3) > 0 { committed.insert(id) }
                for id in byIDs.awaited where next(2) == 0 { committed.insert(id) }
                let now = Int64(step) * 7_000
                let visibleAbove = committed.filter { $0 > byIDs.after }.sorted()
                let appeared = byIDs.awaited.filter { committed.contains($0) }
                byIDs.take(visibleAbove + appeared, now: now)
                let last = visibleAbove.last ?? byBounds.after
                let holes = last > byBounds.after
                    ? ((byBounds.after + 1)..<last).filter { !committed.contains($0) } : []
                byBounds.take(upTo: last, holes: holes, appeared: appeared, now: now)
                #expect(byIDs == byBounds)
            }
        }
    }
}
