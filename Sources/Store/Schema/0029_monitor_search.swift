import Core

/// A trigram index on `monitors.search`, so `?q=` with a term that few
/// monitors contain reads those monitors, not every entry of an index
/// (bench/pages.sh at 500,000 monitors: 147 ms p50 on SQLite, 246 ms on
/// PostgreSQL, before). `MonitorSearch` is how the lists use it.
///
/// - SQLite: an FTS5 table with the `trigram` tokenizer (SQLite 3.34+)
///   over `monitors.search` as external content, so the text is not stored
///   twice. Three triggers keep it in step with every insert, delete and
///   `search` update, whoever writes them (the repositories, `DatabaseCopy`).
///   A result write never sets `search`, so it never touches the index.
///   `Catalog` leaves the virtual table and its shadow tables out of copies.
/// - PostgreSQL: a GIN index with `pg_trgm`'s `gin_trgm_ops`, which serves
///   `LIKE '%term%'`. `pg_trgm` is a trusted extension from PostgreSQL 13
///   on: a role with CREATE on the database may install it. An extension
///   lives once per database, in one schema; hubs in other schemas of the
///   same database use it there, so the operator class is named with its
///   schema. A database-wide advisory lock keeps two schemas' migrations
///   from installing it at once. Where it cannot be installed, the
///   migration goes on without the index and says so in the log: search
///   then scans, as it did before (docs/postgres.md).
enum Schema0029 {
    static let migration = Migration(name: "0029_monitor_search", sql: "", step: { c throws(StoreError) in
        switch c.engine {
        case .sqlite: try sqlite(c)
        case .postgres: try postgres(c)
        }
    })

    static let sqliteScript = """
        CREATE VIRTUAL TABLE monitors_fts USING fts5(search, content = 'monitors', content_rowid = 'id', tokenize = 'trigram');
        INSERT INTO monitors_fts (monitors_fts) VALUES ('rebuild');
        CREATE TRIGGER monitors_fts_insert AFTER INSERT ON monitors BEGIN
            INSERT INTO monitors_fts (rowid, search) VALUES (new.id, new.search);
        END;
        CREATE TRIGGER monitors_fts_delete AFTER DELETE ON monitors BEGIN
            INSERT INTO monitors_fts (monitors_fts, rowid, search) VALUES ('delete', old.id, old.search);
        END;
        CREATE TRIGGER monitors_fts_update AFTER UPDATE OF search ON monitors BEGIN
            INSERT INTO monitors_fts (monitors_fts, rowid, search) VALUES ('delete', old.id, old.search);
            INSERT INTO monitors_fts (rowid, search) VALUES (new.id, new.search);
        END;
        """

    private static func sqlite(_ c: Connection) throws(StoreError) {
        try c.executeScript(sqliteScript)
    }

    private static func postgres(_ c: Connection) throws(StoreError) {
        // Held to this transaction's COMMIT; every schema of the database
        // takes the same key (unlike `lockAgainstOtherHubs`).
        try c.execute("SELECT pg_advisory_xact_lock(740638452, 29)")
        let installed = "SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'"
        var schema = try c.queryOne(installed)?.text("schema")
        if schema == nil {
            try c.execute("SAVEPOINT pg_trgm")
            do {
                try c.execute("CREATE EXTENSION pg_trgm")
                try c.execute("RELEASE SAVEPOINT pg_trgm")
                schema = try c.queryOne(installed)?.text("schema")
            } catch {
                try c.execute("ROLLBACK TO SAVEPOINT pg_trgm")
                Log.shared.warn("monitor search works without its index: the pg_trgm extension could not be installed "
                    + "(as a superuser: CREATE EXTENSION pg_trgm; then CREATE INDEX monitors_search_trgm ON monitors "
                    + "USING gin (search gin_trgm_ops); docs/postgres.md)", ["error": error.message])
                return
            }
        }
        guard let schema else { return }
        let quoted = "\"" + schema.replacing("\"", with: "\"\"") + "\""
        try c.execute("CREATE INDEX monitors_search_trgm ON monitors USING gin (search \(quoted).gin_trgm_ops)")
    }
}
