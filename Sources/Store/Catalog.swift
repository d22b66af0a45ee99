/// What a database says about its own tables, on either engine: the hub's
/// tables, their columns and primary keys, the foreign keys between them,
/// and PostgreSQL's identity columns. `DatabaseCopy` reads the schema from
/// here rather than from a list kept by hand, so a table added by a future
/// migration is copied without anyone remembering to add it.
///
/// The hub's tables are SQLite's main database without its `sqlite_*`
/// internals, or PostgreSQL's `current_schema()` (the first schema of
/// `search_path`, where the migrations create them).
enum Catalog {
    struct Columns: Equatable {
        /// In the table's column order.
        var names: [String]
        /// In key order; empty when the table has no primary key.
        var primaryKey: [String]
    }

    struct ForeignKey: Equatable {
        var child: String
        var parent: String
    }

    struct IdentityColumn: Equatable {
        var table: String
        var column: String
    }

    /// Tables whose rows triggers write from other tables' rows: a copy
    /// leaves them out and the target's triggers rebuild them (0031).
    static let derived: Set<String> = ["monitor_status_tally"]

    /// The base tables but the derived ones, sorted by name (byte order,
    /// the same on both engines).
    static func tables(_ c: Connection) throws(StoreError) -> [String] {
        let sql = switch c.engine {
        // `pragma_table_list` types FTS5's table `virtual` and its storage
        // `shadow`: neither is copied, the target's triggers rebuild the
        // index from the rows (migration 0029).
        case .sqlite: "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!'"
        case .postgres: """
            SELECT table_name AS name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            """
        }
        return try c.query(sql).map { r throws(StoreError) in try r.text("name") }.filter { !derived.contains($0) }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    static func columns(_ c: Connection, table: String) throws(StoreError) -> Columns {
        switch c.engine {
        case .sqlite:
            // `pk` is the column's 1-based position in the primary key, 0 outside it.
            let rows = try c.query("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
            var names: [String] = []
            var key: [(Int64, String)] = []
            for r in rows {
                let name = try r.text("name")
                names.append(name)
                let position = try r.int("pk")
                if position > 0 { key.append((position, name)) }
            }
            return Columns(names: names, primaryKey: key.sorted { $0.0 < $1.0 }.map(\.1))
        case .postgres:
            let names = try c.query("""
                SELECT column_name AS name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position
                """, [.text(table)]).map { r throws(StoreError) in try r.text("name") }
            let key = try c.query("""
                SELECT k.column_name AS name
                FROM information_schema.table_constraints AS t
                JOIN information_schema.key_column_usage AS k
                  ON k.constraint_schema = t.constraint_schema AND k.constraint_name = t.constraint_name
                 AND k.table_name = t.table_name
                WHERE t.table_schema = current_schema() AND t.table_name = ? AND t.constraint_type = 'PRIMARY KEY'
                ORDER BY k.ordinal_position
                """, [.text(table)]).map { r throws(StoreError) in try r.text("name") }
            return Columns(names: names, primaryKey: key)
        }
    }

    /// Every foreign key as child table → parent table.
    static func foreignKeys(_ c: Connection) throws(StoreError) -> [ForeignKey] {
        let sql = switch c.engine {
        case .sqlite: """
            SELECT m.name AS child, f."table" AS parent
            FROM sqlite_schema AS m JOIN pragma_foreign_key_list(m.name) AS f
            WHERE m.type = 'table'
            """
        case .postgres: """
            SELECT t.relname AS child, p.relname AS parent
            FROM pg_constraint AS k
            JOIN pg_class AS t ON t.oid = k.conrelid
            JOIN pg_class AS p ON p.oid = k.confrelid
            WHERE k.contype = 'f' AND t.relnamespace = current_schema()::regnamespace
            """
        }
        return try c.query(sql).map { r throws(StoreError) in ForeignKey(child: try r.text("child"), parent: try r.text("parent")) }
    }

    /// PostgreSQL's identity columns (`INTEGER PRIMARY KEY` after `Dialect`);
    /// SQLite has none: its rowid continues from the largest id by itself.
    static func identityColumns(_ c: Connection) throws(StoreError) -> [IdentityColumn] {
        guard c.engine == .postgres else { return [] }
        return try c.query("""
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND is_identity = 'YES'
            """).map { r throws(StoreError) in IdentityColumn(table: try r.text("table_name"), column: try r.text("column_name")) }
    }

    /// `name` as a quoted identifier (the same spelling on both engines), for
    /// the table and column names that come from the catalog into SQL text.
    static func quoted(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
