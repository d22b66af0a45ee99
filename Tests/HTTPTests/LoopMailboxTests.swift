import Core
@testable import HTTP
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The mailbox's eventfd is what wakes an event loop: inside a `WakeBatch`
/// run a post queues the answer and the wake comes once, at the run's end.
@Suite struct LoopMailboxTests {
    /// The eventfd's counter, read and reset (0: nothing written).
    private func wakes(_ box: LoopMailbox) -> UInt64 {
        var value: UInt64 = 0
        return read(box.eventFD, &value, 8) == 8 ? value : 0
    }

    private func answer(_ id: UInt64) -> LoopMailbox.Completion {
        .init(connectionID: id, response: .text(200, "OK\n"), route: "/t")
    }

    @Test func aPostWakesTheLoopOnceUntilItDrains() throws {
        let box = try LoopMailbox()
        box.post(answer(1))
        box.post(answer(2))
        #expect(wakes(box) == 1, "written when the queue goes from empty to not")
        #expect(box.drain().map(\.connectionID) == [1, 2])
        box.post(answer(3))
        #expect(wakes(box) == 1)
    }

    @Test func postsInsideAWakeBatchWakeOnceAtItsEnd() throws {
        let (one, two) = (try LoopMailbox(), try LoopMailbox())
        WakeBatch.run {
            for id in 1...5 as ClosedRange<UInt64> {
                one.post(answer(id))
                two.post(answer(id + 10))
                // The loop may drain meanwhile (it is awake for other work):
                // the next post then asks again, still one wake at the end.
                if id == 3 { _ = one.drain() }
            }
            #expect(wakes(one) == 0 && wakes(two) == 0, "no wake before the run ends")
        }
        #expect(wakes(one) == 1 && wakes(two) == 1)
        #expect(one.drain().map(\.connectionID) == [4, 5])
        #expect(two.drain().count == 5)
    }

    @Test func aRunWhoseAnswersWereAllTakenDoesNotWake() throws {
        let box = try LoopMailbox()
        WakeBatch.run {
            box.post(answer(1))
            _ = box.drain()
        }
        #expect(wakes(box) == 0, "nothing left to take")
    }
}
