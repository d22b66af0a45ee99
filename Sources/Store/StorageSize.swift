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

    /// Rows in one of the hub's tables (an exact count, a full scan: for
    /// benches). The name must be a plain identifier: it is part of the SQL.
    public static func rowCount(_ c: Connection, table: String) throws(StoreError) -> Int64 {
        guard !table.isEmpty, table.utf8.allSatisfy({ $0 == 95 || (97...122).contains($0) || (48...57).contains($0) }) else {
            throw StoreError.misuse("not a table name: \(table)")
        }
        return try c.queryOne("SELECT count(*) AS n FROM \(table)").map { r throws(StoreError) in try r.int("n") } ?? 0
    }
}
