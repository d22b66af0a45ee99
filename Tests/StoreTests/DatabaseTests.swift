#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import Store
import Core
import TestSupport

@Suite struct MigrationTests {
    @Test(arguments: TestEngine.all) func appliedOnceRecordedAndSkippedOnReopen(engine: TestEngine) throws {
        let dir = TempDir()
        let path = try DatabaseURL(engine.url(in: dir.path, name: "nested/deeper/hub.db"))   // parent directories are created
        let extra = Migration(name: "9001_test", sql: "CREATE TABLE t2 (x INTEGER);")
        do {
            let db = try Database(url: path, migrations: Migrations.all + [extra])
            #expect(try db.appliedMigrations() == Migrations.all.map(\.name) + ["9001_test"])
            let stamp = try db.read { try $0.scalar("SELECT applied_at FROM schema_migrations WHERE name = '9001_test'") }
            #expect(stamp != nil && stamp != .null)
            db.close()
        }
        // Re-open: running 0002 again would fail (table t2 exists), so success
        // proves it was skipped.
        let db = try Database(url: path, migrations: Migrations.all + [extra])
        #expect(try db.appliedMigrations() == Migrations.all.map(\.name) + ["9001_test"])
        #expect(try db.read { try $0.scalar("SELECT count(*) FROM schema_migrations") } == .integer(Int64(Migrations.all.count + 1)))
        if engine == .sqlite {
            var st = stat()
            #expect(stat(dir.file("nested"), &st) == 0 && st.st_mode & 0o777 == 0o700)
        }
        #expect(Database.schemaVersion == Migrations.all.last?.name)
    }

    @Test(arguments: TestEngine.all) func unknownMigrationInDatabaseIsRejected(engine: TestEngine) throws {
        let dir = TempDir()
        let path = try DatabaseURL(engine.url(in: dir.path))
        let newer = Migration(name: "0099_from_the_future", sql: "CREATE TABLE future (x INTEGER);")
        try Database(url: path, migrations: Migrations.all + [newer]).close()
        do {
            _ = try Database(url: path)
            Issue.record("opening a newer database should fail")
        } catch {
            #expect("\(error)".contains("0099_from_the_future"))
            #expect("\(error)".contains("downgrad"))
        }
    }

    @Test(arguments: TestEngine.all) func failingMigrationRollsBackAndIsNotRecorded(engine: TestEngine) throws {
        let dir = TempDir()
        let path = try DatabaseURL(engine.url(in: dir.path))
        let bad = Migration(name: "9002_bad", sql: "CREATE TABLE ok1 (x INTEGER); CREATE TABLE users (x INTEGER);")
        #expect(throws: StoreError.self) { try Database(url: path, migrations: Migrations.all + [bad]) }
        let db = try Database(url: path)
        #expect(try db.appliedMigrations() == Migrations.all.map(\.name))
        let tables = engine == .sqlite ? "SELECT name FROM sqlite_schema WHERE name = 'ok1'"
            : "SELECT table_name FROM information_schema.tables WHERE table_name = 'ok1' AND table_schema = current_schema()"
        #expect(try db.read { try $0.queryOne(tables) } == nil)
    }
}

struct Boom: Error {}

@Suite struct TransactionTests {
    @Test(arguments: TestEngine.all) func commitThenRollbackOnThrow(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path, readers: 4)
        let id = try db.write { c throws in
            try Users.insert(c, email: "a@example.com", name: "A", role: "admin", passwordHash: nil, now: 1).id
        }
        #expect(try db.read { try Users.find($0, id: id)?.email } == "a@example.com")

        #expect(throws: Boom.self) {
            try db.write { c throws in
                _ = try Users.insert(c, email: "b@example.com", name: "B", role: "admin", passwordHash: nil, now: 2)
                try Meta.set(c, "k", "v")
                _ = try Users.delete(c, id: id)
                throw Boom()
            }
        }
        try db.read { c throws in
            #expect(try Users.count(c) == 1)
            #expect(try Users.find(c, email: "b@example.com") == nil)
            #expect(try Meta.get(c, "k") == nil)
        }
        // A StoreError inside also rolls back, and the writer is usable after.
        #expect(throws: StoreError.self) {
            try db.write { c throws in
                try Meta.set(c, "k", "v")
                _ = try Users.insert(c, email: "A@EXAMPLE.COM", name: "dup", role: "admin", passwordHash: nil, now: 3)
            }
        }
        #expect(try db.read { try Meta.get($0, "k") } == nil)
        try db.write { try Meta.set($0, "k", "v2") }
        #expect(try db.read { try Meta.get($0, "k") } == "v2")
    }

    @Test(arguments: TestEngine.all) func nestedWriteIsAnErrorNotADeadlock(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path, readers: 4)
        #expect(throws: StoreError.self) {
            try db.write { _ in try db.write { _ in } }
        }
        try db.write { try Meta.set($0, "still", "works") }
    }

    @Test(arguments: TestEngine.all) func readersCannotWrite(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path, readers: 4)
        #expect(throws: StoreError.self) { try db.read { try Meta.set($0, "k", "v") } }
    }

    @Test(arguments: TestEngine.all) func closedDatabaseThrows(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path, readers: 4)
        db.close()
        db.close()
        #expect(throws: StoreError.self) { try db.read { _ in } }
        #expect(throws: StoreError.self) { try db.write { _ in } }
    }
}

@Suite struct ErrorTests {
    @Test(arguments: TestEngine.all) func duplicateEmailIsUniqueViolationCaseInsensitive(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path, readers: 4)
        try db.write { c throws in
            _ = try Users.insert(c, email: "Ops@Example.com", name: "", role: "admin", passwordHash: nil, now: 1)
        }
        do {
            try db.write { c throws in
                _ = try Users.insert(c, email: "ops@EXAMPLE.com", name: "", role: "readonly", passwordHash: nil, now: 2)
            }
            Issue.record("duplicate email accepted")
        } catch let e as StoreError {
            #expect(e.code == 19)            // SQLITE_CONSTRAINT
            #expect(e.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(e.isUniqueViolation && e.isConstraint && !e.isBusy)
            #expect(e.sql?.contains("INSERT INTO users") == true)
            #expect(e.description.lowercased().contains("unique"))
        }
        // A CHECK failure is a constraint, not a unique violation.
        do {
            try db.write { c throws in
                _ = try Users.insert(c, email: "x@example.com", name: "", role: "root", passwordHash: nil, now: 2)
            }
            Issue.record("bad role accepted")
        } catch let e as StoreError {
            #expect(e.isConstraint && !e.isUniqueViolation)
        }
    }

    @Test(arguments: TestEngine.all) func syntaxErrorAndRowAccessorErrors(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path, readers: 4)
        // Outside a transaction: on PostgreSQL a failed statement aborts the
        // transaction it is in.
        try db.readStatement { c throws in
            #expect(throws: StoreError.self) { try c.query("SELEC 1") }
            #expect(throws: StoreError.self) { try c.query("SELECT ?", []) }           // argument count
            #expect(throws: StoreError.self) { try c.query("SELECT 1; SELECT 2") }     // use executeScript
        }
        try db.read { c throws in
            let blob = engine == .sqlite ? "x'0102'" : "'\\x0102'::bytea"
            let row = try #require(try c.queryOne("SELECT 1 AS i, 'x' AS s, NULL AS n, \(blob) AS b, 2.5 AS d"))
            #expect(try row.int("i") == 1)
            #expect(try row.text("s") == "x")
            #expect(try row.optionalInt("n") == nil)
            #expect(try row.optionalText("n") == nil)
            #expect(try row.blob("b") == [1, 2])
            #expect(try row.double("d") == 2.5)
            #expect(try row.double("i") == 1.0)
            #expect(try row.bool("i") == true)
            do {
                _ = try row.int("s")
                Issue.record("type mismatch not reported")
            } catch {
                #expect("\(error)".contains("column 's' is TEXT, expected INTEGER"))
            }
            do {
                _ = try row.text("missing")
                Issue.record("missing column not reported")
            } catch {
                #expect("\(error)".contains("no column 'missing'"))
            }
        }
    }

    @Test(arguments: TestEngine.all) func valuesRoundTrip(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path, readers: 4)
        try db.write { c throws in
            try c.executeScript("""
                CREATE TABLE v (id INTEGER PRIMARY KEY, a TEXT, b INTEGER, c REAL, d TEXT, e BLOB, f TEXT, g BLOB);
                CREATE TABLE w (x INTEGER);
                """)
            let args: [SQLValue] = [nil, 42, 1.5, "héllo ✓", [0, 255], "", .blob([])]
            #expect(try c.insertReturningID("INSERT INTO v (a, b, c, d, e, f, g) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id", args) == 1)
            #expect(c.changes == 1)
            let row = try #require(try c.queryOne("SELECT a, b, c, d, e, f, g FROM v"))
            #expect(row.values == args)
            #expect(try c.scalar("SELECT count(*) FROM w") == .integer(0))
            #expect(try c.scalar("SELECT x FROM w") == nil)
            #expect(SQLValue(true) == .integer(1) && SQLValue(nil as String?) == .null)
        }
    }
}

@Suite struct ConcurrencyTests {
    /// A writer holds a long write transaction; readers on other threads are
    /// not blocked and see the snapshot from before it.
    @Test(arguments: TestEngine.all) func readersNotBlockedByLongWrite(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path, readers: 4)
        try db.write { try Meta.set($0, "v", "old") }

        let inside = Counter()
        let release = Counter()
        let committed = Counter()
        let writer = TestThread {
            do {
                try db.write { c throws in
                    try Meta.set(c, "v", "new")
                    inside.set()
                    _ = waitUntil(timeoutMillis: 10_000) { release.isSet }
                }
                committed.set()
            } catch {
                Issue.record("writer failed: \(error)")
            }
        }
        #expect(waitUntil { inside.isSet })

        let seenOld = Counter()
        let readers = (0..<6).map { _ in
            TestThread {
                for _ in 0..<50 {
                    if (try? db.read({ try Meta.get($0, "v") })) == "old" {
                        seenOld.add()
                    }
                }
            }
        }
        let start = monotonicMillis()
        for r in readers { r.join() }
        let elapsed = monotonicMillis() - start
        // All 300 reads finished while the write transaction was still open.
        #expect(!committed.isSet)
        #expect(seenOld.value == 300)
        #expect(elapsed < 5000)

        release.set()
        writer.join()
        #expect(committed.isSet)
        #expect(try db.read { try Meta.get($0, "v") } == "new")
    }

    /// A reader holds a long read transaction; writes commit meanwhile and the
    /// reader keeps its snapshot.
    @Test(arguments: TestEngine.all) func writersNotBlockedByLongRead(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path, readers: 2)
        try db.write { try Meta.set($0, "n", "0") }

        let started = Counter()
        let release = Counter()
        let results = Mutex<[String?]>([])
        let reader = TestThread {
            do {
                try db.read { c throws in
                    let first = try Meta.get(c, "n")
                    started.set()
                    _ = waitUntil(timeoutMillis: 10_000) { release.isSet }
                    let second = try Meta.get(c, "n")
                    results.withLock { $0 = [first, second] }
                }
            } catch {
                Issue.record("reader failed: \(error)")
            }
        }
        #expect(waitUntil { started.isSet })
        let start = monotonicMillis()
        for i in 1...100 { try db.write { try Meta.set($0, "n", String(i)) } }
        #expect(monotonicMillis() - start < 4000)   // no busy-timeout waits
        #expect(try db.read { try Meta.get($0, "n") } == "100")
        release.set()
        reader.join()
        #expect(results.withLock { $0 } == ["0", "0"])   // one snapshot throughout
    }

    /// Many threads writing and reading at once: every write lands, nothing
    /// fails with SQLITE_BUSY.
    @Test(arguments: TestEngine.all) func concurrentWritersAndReaders(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path, readers: 2)
        let failures = Counter()
        let threads = (0..<8).map { t in
            TestThread {
                for i in 0..<50 {
                    do {
                        if t % 2 == 0 {
                            _ = try db.write { c throws in
                                try Users.insert(c, email: "u\(t)-\(i)@example.com", name: "", role: "readonly",
                                                 passwordHash: nil, now: 1)
                            }
                        } else {
                            _ = try db.read { try Users.count($0) }
                        }
                    } catch {
                        failures.add()
                    }
                }
            }
        }
        for t in threads { t.join() }
        #expect(failures.value == 0)
        #expect(try db.read { try Users.count($0) } == 200)
    }
}

@Suite struct DurabilityAndBackupTests {
    @Test(arguments: TestEngine.all) func committedDataVisibleToSecondOpenWithoutClose(engine: TestEngine) throws {
        let dir = TempDir()
        let path = try DatabaseURL(engine.url(in: dir.path))
        let first = try Database(url: path)
        try first.write { c throws in
            for i in 0..<20 {
                _ = try Users.insert(c, email: "d\(i)@example.com", name: "", role: "admin", passwordHash: nil, now: 1)
            }
        }
        // `first` is deliberately left open (as after a crash before close).
        let second = try Database(url: path)
        #expect(try second.read { try Users.count($0) } == 20)
        #expect(try second.appliedMigrations() == Migrations.all.map(\.name))
        second.close()
        first.close()
    }

    @Test func backupWhileWritingIsConsistent() throws {
        let dir = TempDir()
        let db = try Database(path: dir.file("hub.db"))
        try db.write { c throws in
            for i in 0..<1000 {
                _ = try Users.insert(c, email: "b\(i)@example.com", name: String(repeating: "x", count: 100),
                                     role: "readonly", passwordHash: nil, now: 1)
            }
        }
        let stop = Counter()
        let written = Counter()
        let writer = TestThread {
            var i = 0
            while !stop.isSet {
                do {
                    try db.write { c throws in
                        _ = try Users.insert(c, email: "w\(i)@example.com", name: "", role: "readonly",
                                             passwordHash: nil, now: 2)
                    }
                    written.add()
                } catch {
                    Issue.record("write during backup failed: \(error)")
                    return
                }
                i += 1
            }
        }
        #expect(waitUntil { written.value > 5 })
        let target = dir.file("backups/hub-backup.db")
        try db.backup(to: target)
        let duringBackup = written.value
        #expect(waitUntil { written.value > duringBackup + 5 })
        stop.set()
        writer.join()

        // Only the final file remains (no temp file, no -wal).
        var names: [String] = []
        if let d = opendir(dir.file("backups")) {
            while let e = readdir(d) {
                names.append(withUnsafeBytes(of: e.pointee.d_name) {
                    String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self))
                })
            }
            closedir(d)
        }
        #expect(names.filter { $0 != "." && $0 != ".." } == ["hub-backup.db"])

        let copy = try Database(path: target, readers: 1)
        try copy.read { c throws in
            #expect(try c.scalar("PRAGMA integrity_check") == .text("ok"))
            #expect(try c.scalar("PRAGMA foreign_key_check") == nil)
            let n = try Users.count(c)
            #expect(n >= 1000 + 5)
            #expect(try Users.find(c, email: "b999@example.com") != nil)
        }
        #expect(try copy.appliedMigrations() == Migrations.all.map(\.name))
        copy.close()
        #expect(try db.read { try Users.count($0) } == 1000 + written.value)
    }
}
