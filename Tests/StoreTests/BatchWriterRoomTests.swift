#if canImport(Glibc)
import Glibc
#endif
import Core
import Synchronization
import Testing
import Store
import TestSupport

/// `BatchWriter.waitForRoom`: a producer is held while `roomLimit` writes
/// wait for a writer that cannot keep up, and goes on once they drain.
@Suite struct BatchWriterRoomTests {
    /// A writer (batches of four) whose thread is held inside a batch until
    /// `release` is posted: what queues after it stays queued.
    struct HeldWriter {
        let dir = TempDir()
        let db: Database
        let writer: BatchWriter
        let release = Semaphore()

        init(_ engine: TestEngine) throws {
            db = try engine.open(in: dir.path)
            writer = BatchWriter(database: db, maxBatch: 4)
            let started = Semaphore(), release = self.release
            writer.submit { _ in
                started.post()
                _ = release.wait(timeoutNanos: 20_000_000_000)
            }
            #expect(started.wait(timeoutNanos: 10_000_000_000))
        }

        func close() {
            writer.stop()
            db.close()
        }
    }

    @Test(arguments: TestEngine.all) func aProducerWaitsWhileTheQueueIsFull(engine: TestEngine) throws {
        let held = try HeldWriter(engine)
        defer { held.close() }
        let (writer, release) = (held.writer, held.release)
        writer.waitForRoom()  // below the limit: returns at once
        for _ in 0..<writer.roomLimit { writer.submit { _ in } }
        #expect(writer.backlog == writer.roomLimit)

        let passed = Atomic<Bool>(false)
        let producer = TestThread {
            writer.waitForRoom()
            passed.store(true, ordering: .sequentiallyConsistent)
        }
        usleep(200_000)
        let early = passed.load(ordering: .sequentiallyConsistent)
        #expect(!early, "held while the queue is full")
        release.post()
        producer.join()
        let late = passed.load(ordering: .sequentiallyConsistent)
        #expect(late)
        #expect(writer.backlog < writer.roomLimit)
    }

    /// A backlog drains several batches to a transaction: a writer held by
    /// other transactions in turn still catches up (`backlogBatches`).
    @Test(arguments: TestEngine.all) func aBacklogIsTakenSeveralBatchesAtOnce(engine: TestEngine) throws {
        let held = try HeldWriter(engine)
        defer { held.close() }
        let (writer, release) = (held.writer, held.release)
        for _ in 0..<(3 * 4) { writer.submit { _ in } }
        release.post()
        try writer.perform { _ in }
        // The holder's batch, the twelve in one, the perform with them or
        // after them; a batch of four at a time would have been three for
        // the twelve alone.
        #expect(writer.stats.batches <= 3)
        #expect(writer.stats.writes == 1 + 12 + 1)
    }
}
