/// Bytes a table takes with its indexes, on either engine: for measuring
/// what a stored row costs (bench/storage.sh, docs/storage.md). SQLite
/// counts the pages of the table's b-trees (the `dbstat` table, in every
/// Debian/Ubuntu/Alpine build), PostgreSQL `pg_total_relation_size`
/// (heap, indexes, TOAST and free-space maps).
public enum StorageSize {
    public static func tableBytes(_ c: Connection, table: String) throws(StoreError) -> Int64 {
        let sql = switch c.engine {
        case .sqlite: """
            SELECT CAST(coalesce(sum(pgsize), 0) AS INTEGER) AS n FROM dbstat
            WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name = ?)
            """
        case .postgres: "SELECT CAST(pg_total_relation_size(CAST(? AS regclass)) AS BIGINT) AS n"
        }
        return try c.queryOne(sql, [.text(table)]).map { r throws(StoreError) in try r.int("n") } ?? 0
    }

    /// Bytes `table` would take holding only its live rows, inserted afresh
    /// in `order` (a column list): PostgreSQL keeps the versions an UPDATE
    /// replaced until vacuum, and `rollup_days` rows are rewritten every
    /// hour of their day, so `tableBytes` after a quick bench counts those
    /// too. Measured on a temporary copy with the same columns, key and
    /// storage settings, dropped again. SQLite updates rows in place: its
    /// `tableBytes` is already this. Inside a write transaction.
    public static func rewrittenBytes(_ c: Connection, table: String, order: String) throws(StoreError) -> Int64 {
        guard c.engine == .postgres else { return try tableBytes(c, table: table) }
        try checkName(table)
        guard order.utf8.allSatisfy({ $0 == 95 || $0 == 44 || $0 == 32 || (97...122).contains($0) || (48...57).contains($0) }) else {
            throw StoreError.misuse("not a column list: \(order)")
        }
        try c.execute("CREATE TEMPORARY TABLE storage_probe (LIKE \(table) INCLUDING ALL)")
        try c.execute("INSERT INTO storage_probe SELECT * FROM \(table) ORDER BY \(order)")
        let bytes = try c.queryOne("SELECT CAST(pg_total_relation_size('storage_probe') AS BIGINT) AS n")
            .map { r throws(StoreError) in try r.int("n") } ?? 0
        try c.execute("DROP TABLE storage_probe")
        return bytes
    }

    /// Rows in one of the hub's tables (an exact count, a full scan: for
    /// benches). The name must be a plain identifier: it is part of the SQL.
    public static func rowCount(_ c: Connection, table: String) throws(StoreError) -> Int64 {
        try checkName(table)
        return try c.queryOne("SELECT count(*) AS n FROM \(table)").map { r throws(StoreError) in try r.int("n") } ?? 0
    }

    /// Names become part of the SQL: plain identifiers only.
    private static func checkName(_ table: String) throws(StoreError) {
        guard !table.isEmpty, table.utf8.allSatisfy({ $0 == 95 || (97...122).contains($0) || (48...57).contains($0) }) else {
            throw StoreError.misuse("not a table name: \(table)")
        }
    }
}
