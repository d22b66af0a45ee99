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
}
