import CSQLite

/// The inside of `DatabaseCopy`'s one target transaction: refuse a target
/// that is not empty, create the schema, copy each table in pages, move
/// the identity sequences, compare the counts. `source` is in its read
/// snapshot, `target` in its write transaction; both stay open throughout.
struct TableCopier {
    let source: Connection
    let target: Connection

    func run() throws(StoreError) -> [DatabaseCopy.TableCount] {
        let tables = try Catalog.tables(source)
        // Before the emptiness check, so a hub starting on the target waits
        // for the copy and then finds the migrations done.
        try Migrations.lockAgainstOtherHubs(target)
        try refuseNonEmptyTarget(tables)
        do {
            try Migrations.createSchema(Migrations.all, on: target)
        } catch {
            // Without the statement: it is a whole migration script.
            throw StoreError(code: error.code, extendedCode: error.extendedCode,
                             message: "creating the schema in the target: \(error.message)", sqlState: error.sqlState)
        }
        let created = try Catalog.tables(target)
        guard created == tables else {
            let onlySource = Set(tables).subtracting(created).sorted(), onlyTarget = Set(created).subtracting(tables).sorted()
            throw StoreError(code: SQLITE_SCHEMA, message: "the source's tables differ from this binary's schema (only in the source: "
                + "\(onlySource.joined(separator: ", ")); only in the new target: \(onlyTarget.joined(separator: ", ")))")
        }
        let order = try Self.order(tables, try Catalog.foreignKeys(source))
        for table in order {
            do {
                try copy(table)
            } catch {
                throw StoreError(code: error.code, extendedCode: error.extendedCode, message: "copying table \(table): \(error.message)",
                                 sqlState: error.sqlState)
            }
        }
        try moveIdentities(tables)
        return try compareCounts(order)
    }

    /// "Not empty" is any row in any of the hub's tables, `schema_migrations`
    /// among them: a database a hub has once migrated is not a fresh target.
    /// A SQLite target is a file created for the copy and always passes.
    private func refuseNonEmptyTarget(_ tables: [String]) throws(StoreError) {
        let ours = Set(tables)
        for table in try Catalog.tables(target) where ours.contains(table) {
            if try target.queryOne("SELECT 1 FROM \(Catalog.quoted(table)) LIMIT 1") != nil {
                throw StoreError(code: SQLITE_CONSTRAINT, message: "the target database is not empty (table \(table) has rows): "
                    + "migrate-db copies into an empty database only")
            }
        }
    }

    /// Parents before children, so every foreign key finds its row (on
    /// PostgreSQL the constraints cannot be deferred). Within one level, by
    /// name, so the order is the same on every run. A self-reference does not
    /// order anything (there is none in the schema); a cycle is refused.
    static func order(_ tables: [String], _ keys: [Catalog.ForeignKey]) throws(StoreError) -> [String] {
        var parents: [String: Set<String>] = [:]
        for t in tables { parents[t] = [] }
        for k in keys where k.child != k.parent && parents[k.child] != nil && parents[k.parent] != nil {
            parents[k.child]!.insert(k.parent)
        }
        var placed = Set<String>()
        var order: [String] = []
        while order.count < tables.count {
            let ready = tables.filter { !placed.contains($0) && parents[$0]!.isSubset(of: placed) }
            guard !ready.isEmpty else {
                let left = tables.filter { !placed.contains($0) }
                throw StoreError(code: SQLITE_SCHEMA, message: "foreign keys form a cycle among the tables \(left.joined(separator: ", "))")
            }
            order += ready
            placed.formUnion(ready)
        }
        return order
    }

    /// Columns by name: both sides were made by the same migrations, but the
    /// order of columns is not part of that promise.
    private func copy(_ table: String) throws(StoreError) {
        let columns = try Catalog.columns(source, table: table)
        let targetColumns = try Catalog.columns(target, table: table)
        guard Set(columns.names) == Set(targetColumns.names) else {
            throw StoreError(code: SQLITE_SCHEMA, message: "the columns differ (source: \(columns.names.joined(separator: ", ")); "
                + "target: \(targetColumns.names.joined(separator: ", ")))")
        }
        let names = columns.names.map(Catalog.quoted).joined(separator: ", ")
        let page = max(1, min(DatabaseCopy.pageRows, DatabaseCopy.pageParameters / max(1, columns.names.count)))
        let from = "SELECT \(names) FROM \(Catalog.quoted(table))"
        guard !columns.primaryKey.isEmpty else {
            // No key to page by (no table of the schema is like that): one read.
            for chunk in try source.query(from).chunked(page) { try insert(table, names, chunk) }
            return
        }
        let key = columns.primaryKey.map(Catalog.quoted).joined(separator: ", ")
        let keyIndexes = columns.primaryKey.map { k in columns.names.firstIndex(of: k)! }
        let marks = Array(repeating: "?", count: keyIndexes.count).joined(separator: ", ")
        // Keyset paging: each page starts after the last key seen, an index
        // probe, where OFFSET would rescan every earlier row.
        let first = "\(from) ORDER BY \(key) LIMIT \(page)"
        let next = "\(from) WHERE (\(key)) > (\(marks)) ORDER BY \(key) LIMIT \(page)"
        var rows = try source.query(first)
        while !rows.isEmpty {
            try insert(table, names, rows)
            guard rows.count == page, let last = rows.last else { break }
            rows = try source.query(next, keyIndexes.map { last.values[$0] })
        }
    }

    private func insert(_ table: String, _ names: String, _ rows: [Row]) throws(StoreError) {
        guard let width = rows.first?.values.count else { return }
        let tuple = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
        let sql = "INSERT INTO \(Catalog.quoted(table)) (\(names)) VALUES "
            + Array(repeating: tuple, count: rows.count).joined(separator: ", ")
        try target.execute(sql, rows.flatMap(\.values))
    }

    /// PostgreSQL: an identity column hands out ids from its sequence, which
    /// explicit ids do not advance; without this the first new row would get
    /// id 1 and collide. `setval` is strict, so an empty table (max NULL)
    /// leaves its sequence at the start.
    private func moveIdentities(_ tables: [String]) throws(StoreError) {
        let ours = Set(tables)
        for identity in try Catalog.identityColumns(target) where ours.contains(identity.table) {
            let table = Catalog.quoted(identity.table)
            try target.execute("SELECT setval(pg_get_serial_sequence(?, ?), (SELECT max(\(Catalog.quoted(identity.column))) FROM \(table)))",
                               [.text(table), .text(identity.column)])
        }
    }

    /// Counted again on both sides rather than trusting the pages: this is
    /// the check the operator reads, and a mismatch rolls the copy back.
    private func compareCounts(_ order: [String]) throws(StoreError) -> [DatabaseCopy.TableCount] {
        var counts: [DatabaseCopy.TableCount] = []
        for table in order {
            let sql = "SELECT count(*) FROM \(Catalog.quoted(table))"
            counts.append(DatabaseCopy.TableCount(table: table, source: try source.scalar(sql)?.integerValue ?? -1,
                                                  target: try target.scalar(sql)?.integerValue ?? -1))
        }
        let differ = counts.filter { $0.source != $0.target }
        guard differ.isEmpty else {
            throw StoreError(code: SQLITE_CORRUPT, message: "row counts differ after the copy, so nothing was written: "
                + differ.map { "\($0.table) \($0.source) in the source, \($0.target) in the target" }.joined(separator: "; "))
        }
        return counts
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    fileprivate func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
