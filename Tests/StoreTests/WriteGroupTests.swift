#if canImport(Glibc)
import Glibc
#endif
import Core
import Synchronization
import Testing
import Store
import TestSupport

/// `BatchWriter.submit(_:to:)`: consecutive values of a group reach its body
/// together, in arrival order, between the plain writes queued around them;
/// a failing value fails alone when the batch is redone in savepoints.
@Suite struct WriteGroupTests {
    @Test(arguments: TestEngine.all) func valuesRunTogetherInOrderAndABadOneFailsAlone(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        defer { db.close() }
        try db.write { try $0.execute("CREATE TABLE seen (id INTEGER PRIMARY KEY, what TEXT NOT NULL)") }
        let writer = BatchWriter(database: db, maxBatch: 64)
        defer { writer.stop() }
        let calls = Mutex<[[Int]]>([])
        let group = WriteGroup<Int> { c, values in
            calls.withLock { $0.append(values) }
            for v in values {
                try c.execute("INSERT INTO seen (what) VALUES (?)", [.text("v\(v)")])
                if v == 13 { throw TestFailure("thirteen") }
            }
        }
        // Hold the writer so that everything below lands in one batch.
        let started = Semaphore(), release = Semaphore()
        writer.submit { _ in
            started.post()
            _ = release.wait(timeoutNanos: 20_000_000_000)
        }
        #expect(started.wait(timeoutNanos: 10_000_000_000))
        for v in 0..<5 { writer.submit(v, to: group) }
        writer.submit { c in try c.execute("INSERT INTO seen (what) VALUES ('plain')") }
        for v in 10..<16 { writer.submit(v, to: group) }
        release.post()
        try writer.perform { _ in }   // after everything above

        let rows = try db.read { c in try c.query("SELECT what FROM seen ORDER BY id").map { r in try r.text("what") } }
        #expect(rows == ["v0", "v1", "v2", "v3", "v4", "plain", "v10", "v11", "v12", "v14", "v15"])
        let seen = calls.withLock { $0 }
        // First together (the run of 0…4, then 10…15 up to the failure), then
        // alone in the savepoint redo.
        #expect(seen.prefix(2) == [[0, 1, 2, 3, 4], [10, 11, 12, 13, 14, 15]])
        #expect(seen.dropFirst(2).allSatisfy { $0.count == 1 })
        #expect(seen.dropFirst(2).map { $0[0] } == [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15])
    }
}

private struct TestFailure: Error {
    let what: String
    init(_ what: String) { self.what = what }
}
