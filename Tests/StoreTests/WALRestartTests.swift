#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import Store

/// The WAL under writes that never pause (`Checkpointer`, `Database.restartWALIfDue`):
/// the background checkpoint alone ends every pass behind the writer and the
/// WAL file grows as long as the writes go on; with the writer finishing the
/// copy, the WAL starts over and its file stays near the restart length.
@Suite struct WALRestartTests {
    /// Eight threads keep the batch writer busy (each waits for its write and
    /// queues the next at once) until 48 MB of rows are committed. The WAL
    /// restarts past 256 frames (1 MB), checked every 10 ms. Without the
    /// restart the file ends larger than everything written (105 MB
    /// measured); with it, a few MB: the restart length plus what comes in
    /// before a pass notices.
    @Test func aWALUnderUnpausedWritesStartsOverAndStaysShort() throws {
        let dir = TempDir()
        let path = dir.file("hub.db")
        let rows = Atomic<Int>(0)
        var wal = 0
        do {
            let db = try Database(path: path, checkpoints: WALCheckpoints(intervalMillis: 10, restartFrames: 256))
            defer { db.close() }
            try db.write { c in
                try c.execute("CREATE TABLE filler (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL, body BLOB NOT NULL)")
                try c.execute("CREATE INDEX filler_owner ON filler (owner, id)")
            }
            let writer = BatchWriter(database: db)
            defer { writer.stop() }
            let body = [UInt8](repeating: 0x5a, count: 1000)
            let perWrite = 8, writesPerThread = 750
            let threads = (0..<8).map { t in
                TestThread {
                    for _ in 0..<writesPerThread {
                        do {
                            try writer.perform { c in
                                for _ in 0..<perWrite {
                                    try c.execute("INSERT INTO filler (owner, body) VALUES (?, ?)", [.integer(Int64(t)), .blob(body)])
                                }
                            }
                            rows.add(perWrite, ordering: .relaxed)
                        } catch {
                            Issue.record("write failed: \(error)")
                            return
                        }
                    }
                }
            }
            for thread in threads { thread.join() }
            // Measured before the close, which checkpoints and removes the
            // WAL. A restart rewrites the file from its start and cuts it only
            // past 128 MB (journal_size_limit), so its size is the longest
            // the WAL got.
            wal = fileSize(path + "-wal")
            // The writer did restarts, and the gauge saw a WAL.
            let status = try #require(db.walStatus)
            #expect(status.writerCheckpoints > 0)
            #expect(status.pages > 0)
        }
        let written = rows.load(ordering: .relaxed)
        #expect(written == 8 * 750 * 8)
        // About 48 MB of row data went through the WAL.
        #expect(wal > 0)
        #expect(wal < 16 << 20, "WAL file \(wal) bytes after \(written) rows of 1,000 bytes")

        // Nothing was lost on the way: every committed row is in the file.
        let reopened = try Database(path: path)
        defer { reopened.close() }
        let stored = try reopened.read { c in try c.scalar("SELECT count(*) FROM filler")?.integerValue }
        #expect(stored == Int64(written))
    }

    private func fileSize(_ path: String) -> Int {
        var st = stat()
        guard stat(path, &st) == 0 else { return 0 }
        return Int(st.st_size)
    }
}
