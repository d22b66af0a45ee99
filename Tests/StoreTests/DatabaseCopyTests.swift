import Testing
import Core
@testable import Store
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `DatabaseCopy` (`pingtxt migrate-db`, SPEC §14) between SQLite and the
/// test PostgreSQL server, both ways: every row of every table equal after
/// the copy (ids kept), counts reported, new rows getting fresh ids, and the
/// refusals that keep a target from being overwritten.
@Suite(.enabled(if: TestEngine.all.contains(.postgres), "needs the test PostgreSQL server"))
struct DatabaseCopyTests {
    @Test func sqliteToPostgresKeepsEveryRowAndId() throws {
        let dir = TempDir()
        let source = try TestEngine.sqlite.open(in: dir.path)
        defer { source.close() }
        let seeded = try DatabaseSeed.fill(source)
        let url = try DatabaseURL(try PostgresServer.shared.get().database("copy"))
        let counts = try DatabaseCopy.run(from: source, to: url)
        let target = try Database(url: url, readers: 1)
        defer { target.close() }
        try expectSameContents(source, target, counts)
        try expectFreshIDs(target, after: seeded)

        // Copying again finds rows: refused, and the target is untouched.
        let again = refusal { _ = try DatabaseCopy.run(from: source, to: url) }
        #expect(again.contains("not empty") && again.contains("has rows"), "\(again)")
        #expect(try tableCounts(target)["monitors"] == 3 + 1)
    }

    @Test func postgresToSQLiteKeepsEveryRowAndId() throws {
        let dir = TempDir()
        let source = try TestEngine.postgres.open(in: dir.path)
        defer { source.close() }
        let seeded = try DatabaseSeed.fill(source)
        let path = dir.file("sub/copy.db")
        let counts = try DatabaseCopy.run(from: source, to: DatabaseURL(sqlitePath: path))
        // Only the finished file: no temporary or WAL beside it.
        #expect(access(path, F_OK) == 0 && access(path + "-wal", F_OK) != 0)
        #expect(access(path + ".migrate-\(getpid())", F_OK) != 0)
        let target = try Database(path: path, readers: 1)
        defer { target.close() }
        try expectSameContents(source, target, counts)
        try expectFreshIDs(target, after: seeded)
        let again = refusal { _ = try DatabaseCopy.run(from: source, to: DatabaseURL(sqlitePath: path)) }
        #expect(again.contains("already exists"), "\(again)")
    }

    /// A failure half-way (PostgreSQL refuses a NUL in text, SQLite stores
    /// it) rolls everything back: no table is left in the target, so the
    /// same command works once the row is fixed.
    @Test func aFailedCopyLeavesTheTargetEmptySoARetryWorks() throws {
        let dir = TempDir()
        let source = try TestEngine.sqlite.open(in: dir.path)
        defer { source.close() }
        _ = try DatabaseSeed.fill(source)
        try source.write { c in try Meta.set(c, "zz_bad", "a\u{0}b") }
        let url = try DatabaseURL(try PostgresServer.shared.get().database("retry"))
        do {
            _ = try DatabaseCopy.run(from: source, to: url)
            Issue.record("a NUL character reached PostgreSQL")
        } catch let e as StoreError {
            #expect(e.message.contains("copying table meta") && e.message.contains("NUL"), "\(e)")
            #expect(e.sql == nil, "the error names no statement: \(e)")
        }
        let bare = try Connection(postgres: url, role: .reader)
        defer { bare.close() }
        #expect(try Catalog.tables(bare).isEmpty)

        try source.write { c in try Meta.set(c, "zz_bad", "ab") }
        let counts = try DatabaseCopy.run(from: source, to: url)
        #expect(counts.first { $0.table == "meta" }?.target == 2)
    }

    @Test func refusals() throws {
        let dir = TempDir()
        let source = try TestEngine.sqlite.open(in: dir.path)
        defer { source.close() }
        // Same engine.
        #expect(refusal { _ = try DatabaseCopy.run(from: source, to: DatabaseURL(sqlitePath: dir.file("b.db"))) }
            .contains("both sqlite"))
        // A PostgreSQL database some hub has migrated, even with no other row.
        let used = try DatabaseURL(try PostgresServer.shared.get().database("used"))
        try Database(url: used, readers: 1).close()
        #expect(refusal { _ = try DatabaseCopy.run(from: source, to: used) }.contains("table schema_migrations has rows"))
        // A source this binary has not fully migrated.
        let old = try Database(path: dir.file("old.db"), readers: 1, migrations: Array(Migrations.all.dropLast()))
        defer { old.close() }
        let fresh = try DatabaseURL(try PostgresServer.shared.get().database("old"))
        let text = refusal { _ = try DatabaseCopy.run(from: old, to: fresh) }
        #expect(text.contains("migrations differ") && text.contains(Migrations.all.last!.name), "\(text)")
    }

    @Test func parentsComeBeforeChildrenAndCyclesAreRefused() throws {
        let keys = [Catalog.ForeignKey(child: "b", parent: "a"), Catalog.ForeignKey(child: "c", parent: "b"),
                    Catalog.ForeignKey(child: "a2", parent: "a"), Catalog.ForeignKey(child: "c", parent: "c")]
        #expect(try TableCopier.order(["a", "a2", "b", "c", "z"], keys) == ["a", "z", "a2", "b", "c"])
        #expect(throws: StoreError.self) {
            try TableCopier.order(["a", "b"], [Catalog.ForeignKey(child: "a", parent: "b"), Catalog.ForeignKey(child: "b", parent: "a")])
        }
    }

    // MARK: checks

    /// The error's text, or "accepted" when `body` did not throw.
    private func refusal(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    /// Every table, every row, every value, compared by column name; and
    /// the reported counts are the real ones.
    private func expectSameContents(_ a: Database, _ b: Database, _ counts: [DatabaseCopy.TableCount],
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let left = try dump(a), right = try dump(b)
        #expect(left.keys.sorted() == right.keys.sorted(), sourceLocation: sourceLocation)
        #expect(counts.map(\.table).sorted() == left.keys.sorted(), sourceLocation: sourceLocation)
        for (table, rows) in left {
            #expect(rows == right[table], "table \(table) differs", sourceLocation: sourceLocation)
        }
        for c in counts {
            #expect(c.source == c.target && c.source == Int64(left[c.table]?.count ?? -1), "\(c)", sourceLocation: sourceLocation)
        }
        for (table, n) in DatabaseSeed.expectedRows {
            #expect(left[table]?.count == n, "rows seeded in \(table)", sourceLocation: sourceLocation)
        }
        #expect(left["schema_migrations"]?.count == Migrations.all.count, sourceLocation: sourceLocation)
        // The derived status tally is not copied: the target's triggers
        // rebuilt it from the copied monitors, once each.
        let tallies = try [a, b].map { db in try db.read { c in try MonitorStatusTally.read(c).counts } }
        #expect(tallies[0] == tallies[1] && tallies[0].values.reduce(0, +) == left["monitors"]?.count,
                "\(tallies)", sourceLocation: sourceLocation)
    }

    /// New rows after the copy continue after the copied ids.
    private func expectFreshIDs(_ db: Database, after seeded: DatabaseSeed.IDs, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try db.write { c in
            let user = try Users.insert(c, email: "new@example.com", name: "", role: "readonly", passwordHash: nil, now: 9)
            #expect(user.id == seeded.maxUser + 1, sourceLocation: sourceLocation)
            let monitor = try Monitors.insert(c, MonitorRecord(name: "new", type: "tcp", target: "127.0.0.1:1", interval: 60,
                                                               timeout: 5, retries: 0), now: 9)
            #expect(monitor.id == seeded.maxMonitor + 1, sourceLocation: sourceLocation)
            let event = try Events.insert(c, EventRecord(kind: "monitor_up", monitorID: monitor.id, incidentID: nil, at: 9, cause: "",
                                                         locations: [], suppressed: false))
            #expect(event > seeded.maxEvent, sourceLocation: sourceLocation)
            let outbox = try Outbox.insert(c, OutboxRecord(channelID: seeded.channel, eventID: event, kind: "test", payload: "{}",
                                                           nextAttemptAt: 9), now: 9)
            #expect(outbox > seeded.maxOutbox, sourceLocation: sourceLocation)
            try CheckResults.insert(c, CheckResultRecord(monitorID: monitor.id, atMs: 9, location: "hub", status: "up", latencyMs: 1,
                                                         statusCode: nil, error: nil, inMaintenance: false))
        }
    }

    private func tableCounts(_ db: Database) throws -> [String: Int] {
        try dump(db).mapValues(\.count)
    }

    /// Each table as rows of column → value, in primary-key order.
    private func dump(_ db: Database) throws -> [String: [[String: SQLValue]]] {
        try db.read { c in
            var out: [String: [[String: SQLValue]]] = [:]
            for table in try Catalog.tables(c) {
                let key = try Catalog.columns(c, table: table).primaryKey.map(Catalog.quoted).joined(separator: ", ")
                let rows = try c.query("SELECT * FROM \(Catalog.quoted(table)) ORDER BY \(key)")
                out[table] = rows.map { r in Dictionary(uniqueKeysWithValues: zip(r.columns, r.values)) }
            }
            return out
        }
    }
}
