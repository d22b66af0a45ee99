import Testing
import Core

/// `Handoff` carries a value from the thread that makes it to the one
/// that waits; `startThread` hands its body to a named thread.
@Suite struct HandoffTests {
    @Test func aValueMadeOnAnotherThreadIsTakenOnce() {
        let handoff = Handoff<[Int]>()
        #expect(handoff.take() == nil, "empty until put")
        let thread = startThread(name: "handoff-test") { handoff.put(Array(1...3)) }
        thread.join()
        #expect(handoff.take() == [1, 2, 3])
        #expect(handoff.take() == nil, "taking empties it")
    }
}
