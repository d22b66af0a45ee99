import Testing
import Store
import TestSupport

/// `Connection.executeDeferred`: on PostgreSQL, statements queued inside a
/// transaction and sent in one pipeline with the next statement that needs
/// an answer. Whatever the engine, the transaction must behave exactly as if
/// each statement had run at once: reads see the writes, errors fail the
/// transaction, rollbacks undo (and never send) them.
@Suite struct DeferredStatementTests {
    private static let schema = Migration(name: "9101_deferred", sql: """
        CREATE TABLE d (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE, n INTEGER NOT NULL DEFAULT 0);
        """)

    private func open(_ engine: TestEngine, _ dir: TempDir) throws -> Database {
        try engine.open(in: dir.path, migrations: Migrations.all + [Self.schema])
    }

    private func count(_ db: Database) throws -> Int64? {
        try db.read { c in try c.scalar("SELECT count(*) FROM d")?.integerValue }
    }

    @Test(arguments: TestEngine.all) func readsInTheSameTransactionSeeDeferredWrites(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try open(engine, dir)
        defer { db.close() }
        let seen = try db.write { c -> (Int64?, String?) in
            for i in 1...300 {   // more than one pipeline's worth (256)
                try c.executeDeferred("INSERT INTO d (id, v) VALUES (?, ?)", [.integer(Int64(i)), .text("v\(i)")])
            }
            try c.executeDeferred("UPDATE d SET n = n + 1 WHERE id = ?", [.integer(7)])
            let n = try c.scalar("SELECT count(*) FROM d")?.integerValue
            let v = try c.queryOne("SELECT v FROM d WHERE n = 1")?.optionalText("v")
            return (n, v)
        }
        #expect(seen.0 == 300)
        #expect(seen.1 == "v7")
        #expect(try count(db) == 300)
    }

    @Test(arguments: TestEngine.all) func changesCountsDeferredStatements(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try open(engine, dir)
        defer { db.close() }
        let changed = try db.write { c -> Int in
            try c.execute("INSERT INTO d (id, v) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
            try c.executeDeferred("UPDATE d SET n = 5 WHERE id >= ?", [.integer(2)])
            return c.changes
        }
        #expect(changed == 2)
    }

    @Test(arguments: TestEngine.all) func aFailingDeferredStatementFailsTheTransaction(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try open(engine, dir)
        defer { db.close() }
        try db.write { c in try c.execute("INSERT INTO d (id, v) VALUES (1, 'taken')") }
        // The duplicate is found by the COMMIT at the latest: nothing of the
        // transaction is stored, and the error names the constraint.
        do {
            try db.write { c in
                try c.executeDeferred("INSERT INTO d (id, v) VALUES (?, ?)", [.integer(2), .text("fine")])
                try c.executeDeferred("INSERT INTO d (id, v) VALUES (?, ?)", [.integer(3), .text("taken")])
                try c.executeDeferred("INSERT INTO d (id, v) VALUES (?, ?)", [.integer(4), .text("after")])
            }
            Issue.record("the duplicate value should have failed the transaction")
        } catch let error as StoreError {
            #expect(error.isUniqueViolation)
        }
        #expect(try count(db) == 1)
        // The connection is usable afterwards, deferred statements included.
        try db.write { c in try c.executeDeferred("INSERT INTO d (id, v) VALUES (?, ?)", [.integer(5), .text("later")]) }
        #expect(try count(db) == 2)
    }

    @Test(arguments: TestEngine.all) func aDeferredErrorIsThrownByTheNextStatementThatWaits(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try open(engine, dir)
        defer { db.close() }
        try db.write { c in try c.execute("INSERT INTO d (id, v) VALUES (1, 'taken')") }
        // SQLite runs it at once; PostgreSQL sends it with the next
        // statement that waits for an answer, which throws its error.
        var thrownBy = ""
        do {
            try db.write { c in
                thrownBy = "executeDeferred"
                try c.executeDeferred("INSERT INTO d (id, v) VALUES (2, 'taken')")
                thrownBy = "query"
                _ = try c.scalar("SELECT count(*) FROM d")
                thrownBy = "commit"
            }
        } catch let error as StoreError {
            #expect(error.isUniqueViolation)
        }
        #expect(thrownBy == (engine == .postgres ? "query" : "executeDeferred"))
        #expect(try count(db) == 1)
    }

    @Test(arguments: TestEngine.all) func savepointsAttributeDeferredErrorsToTheirOwnWrite(engine: TestEngine) throws {
        // The batch writer's fallback: each write in its own savepoint, so
        // only the failing one is lost. A deferred statement's error must
        // surface inside its own savepoint (at RELEASE), not the next one's.
        let dir = TempDir()
        let db = try open(engine, dir)
        defer { db.close() }
        try db.write { c in try c.execute("INSERT INTO d (id, v) VALUES (1, 'taken')") }
        var failed: [Int] = []
        try db.write { c in
            for (i, v) in ["a", "taken", "b"].enumerated() {
                try c.execute("SAVEPOINT item")
                do {
                    try c.executeDeferred("INSERT INTO d (id, v) VALUES (?, ?)", [.integer(Int64(10 + i)), .text(v)])
                    try c.execute("RELEASE item")
                } catch {
                    failed.append(i)
                    try c.execute("ROLLBACK TO item")
                    try c.execute("RELEASE item")
                }
            }
        }
        #expect(failed == [1])
        #expect(try db.read { c in try c.query("SELECT v FROM d ORDER BY id").map { try $0.text("v") } } == ["taken", "a", "b"])
    }

    @Test(arguments: TestEngine.all) func aRollbackNeverSendsWhatWasDeferred(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try open(engine, dir)
        defer { db.close() }
        struct Stop: Error {}
        do {
            try db.write { c in
                try c.executeDeferred("INSERT INTO d (id, v) VALUES (1, 'x')")
                throw Stop()
            }
        } catch is Stop {}
        #expect(try count(db) == 0)
        try db.write { c in try c.execute("INSERT INTO d (id, v) VALUES (1, 'x')") }
        #expect(try count(db) == 1)
    }
}
