/// Edits SQLite tables' stored definitions in place, for changes that leave
/// every stored row valid (a CHECK widened or said another way), as
/// SQLite's documentation allows ("Making Other Kinds Of Table Schema
/// Changes", lang_altertable.html): `writable_schema`, the text replaced,
/// then a new `schema_version` so every connection re-reads the schema.
/// Rebuilding such a table instead is not an option: with foreign keys on,
/// dropping it would cascade into every row that refers to it, and they
/// cannot be turned off inside a migration's transaction. SQLite only; the
/// caller says what PostgreSQL does instead.
enum StoredDefinition {
    struct Edit {
        let table: String
        let old: String
        let new: String
    }

    /// Applies every edit under one `schema_version` bump, inside the
    /// caller's transaction; throws, leaving the transaction to roll back,
    /// when a table's definition does not contain its `old` text once.
    static func replace(_ c: Connection, _ edits: [Edit], migration: String) throws(StoreError) {
        guard case .integer(let version)? = try c.scalar("PRAGMA schema_version") else {
            throw StoreError.misuse("PRAGMA schema_version gave no number")
        }
        try c.executeScript("PRAGMA writable_schema = ON")
        var failed: Edit?
        for edit in edits {
            guard case .text(let sql)? = try c.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?",
                                                      [.text(edit.table)]),
                  sql.ranges(of: edit.old).count == 1 else { failed = edit; break }
            try c.execute("UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?",
                          [.text(edit.old), .text(edit.new), .text(edit.table)])
        }
        try c.executeScript("PRAGMA schema_version = \(version + 1); PRAGMA writable_schema = OFF")
        if let failed {
            throw StoreError.misuse("\(migration): the \(failed.table) table does not have \(failed.old) once")
        }
    }
}
