#if canImport(Glibc)
import Glibc
#endif
import Core
import Synchronization
import Testing
@testable import Store
import TestSupport

/// The writer is handed out in arrival order: a thread that gives it back
/// and asks again at once (the retention job's run of bounded transactions)
/// goes behind a write that was already waiting (a check result), instead
/// of taking it again before the waiter wakes (bench/storage.sh measured a
/// 6.5 s wait behind 20 ms transactions before).
@Suite struct WriterFairnessTests {
    @Test(arguments: TestEngine.all) func aWaitingWriteGoesBeforeTheNextOfTheThreadThatHeldTheWriter(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let order = Mutex<[String]>([])
        var waiter: ThreadHandle?
        for round in 0..<20 {
            try db.write { _ in
                waiter = startThread(name: "waiting-write") {
                    try? db.write { _ in order.withLock { $0.append("waiter \(round)") } }
                }
                // Hold the writer until the other thread waits for it.
                let until = Time.monotonicNanos() + 10_000_000_000
                while db.writersWaiting == 0 && Time.monotonicNanos() < until { usleep(200) }
                #expect(db.writersWaiting == 1)
            }
            try db.write { _ in order.withLock { $0.append("holder \(round)") } }
            waiter?.join()
        }
        let expected = (0..<20).flatMap { ["waiter \($0)", "holder \($0)"] }
        #expect(order.withLock { $0 } == expected)
    }
}
