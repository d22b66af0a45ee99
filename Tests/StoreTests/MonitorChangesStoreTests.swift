#if canImport(Glibc)
import Glibc
#endif
import Core
import Synchronization
import Testing
import Store
import TestSupport

/// The monitor change log (migration 0028) on both engines, and on
/// PostgreSQL the case it exists for: two writers committing out of order.
@Suite struct MonitorChangesStoreTests {
    @Test(arguments: TestEngine.all) func recordReadNewestPrune(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        defer { db.close() }
        #expect(try db.read { try MonitorChanges.newest($0) } == 0)
        try db.write { c in
            try MonitorChanges.record(c, monitorID: 7, node: "a", at: 1_000)
            try MonitorChanges.record(c, monitorID: 8, node: "b", at: 2_000)
            try MonitorChanges.record(c, monitorID: 7, node: "b", at: 3_000)
        }
        let all = try db.read { try MonitorChanges.read($0, cursor: CommitCursor(after: 0), limit: 10) }
        #expect(all.map(\.monitorID) == [7, 8, 7] && all.map(\.node) == ["a", "b", "b"])
        #expect(all.map(\.seq) == all.map(\.seq).sorted() && Set(all.map(\.seq)).count == 3)
        #expect(try db.read { try MonitorChanges.newest($0) } == all[2].seq)

        // A page, then the rest from where it ended.
        var cursor = CommitCursor(after: 0)
        let first = try db.read { try MonitorChanges.read($0, cursor: cursor, limit: 2) }
        cursor.take(first.map(\.seq), now: 0)
        let rest = try db.read { try MonitorChanges.read($0, cursor: cursor, limit: 2) }
        #expect(first + rest == all)

        try db.write { try MonitorChanges.prune($0, before: 2_001) }
        #expect(try db.read { try MonitorChanges.read($0, cursor: CommitCursor(after: 0), limit: 10) } == [all[2]])
    }

    /// Hub A's transaction takes its seq first and commits last: a reader
    /// between the two commits sees only B's row, awaits A's, and gets it
    /// at its next read.
    @Test(.enabled(if: TestEngine.all.contains(.postgres))) func aChangeCommittedLateIsAwaitedNotSkipped() throws {
        let url = try TestEngine.postgres.url(in: "/tmp")
        let a = try Database(url: DatabaseURL(url), readers: 1), b = try Database(url: DatabaseURL(url), readers: 1)
        defer { a.close(); b.close() }
        let inserted = Semaphore(), release = Semaphore()
        let slow = TestThread {
            try? a.write { c in
                try MonitorChanges.record(c, monitorID: 1, node: "a", at: 1)
                inserted.post()
                _ = release.wait(timeoutNanos: 20_000_000_000)
            }
        }
        #expect(inserted.wait(timeoutNanos: 10_000_000_000))
        try b.write { try MonitorChanges.record($0, monitorID: 2, node: "b", at: 2) }

        var cursor = CommitCursor(after: 0)
        let early = try b.read { try MonitorChanges.read($0, cursor: cursor, limit: 10) }
        #expect(early.map(\.monitorID) == [2])
        cursor.take(early.map(\.seq), now: 0)
        #expect(cursor.awaited.count == 1 && cursor.awaited[0] < early[0].seq)

        release.post()
        slow.join()
        let late = try b.read { try MonitorChanges.read($0, cursor: cursor, limit: 10) }
        #expect(late.map(\.monitorID) == [1])
        cursor.take(late.map(\.seq), now: 1)
        #expect(cursor.awaited.isEmpty && cursor.after == early[0].seq)
    }
}
