/// A row of `status_pages`.
public struct StatusPageRecord: Sendable, Hashable {
    public var id: Int64 = 0
    public var slug: String
    public var title: String
    public var description: String
    /// In display order (JSON text in the table).
    public var monitorIDs: [Int64]
    /// Tags whose monitors the page lists after `monitorIDs`, resolved when
    /// drawn (`MonitorSelection`), so a monitor tagged later appears.
    public var tags: [String] = []
    public var createdAt: Int64 = 0
    public var updatedAt: Int64 = 0

    public init(slug: String, title: String, description: String, monitorIDs: [Int64]) {
        self.slug = slug
        self.title = title
        self.description = description
        self.monitorIDs = monitorIDs
    }

    init(row r: Row) throws(StoreError) {
        self.init(slug: try r.text("slug"), title: try r.text("title"), description: try r.text("description"),
                  monitorIDs: try r.intArray("monitor_ids", table: "status_pages"))
        id = try r.int("id")
        tags = try r.stringArray("tags", table: "status_pages")
        createdAt = try r.int("created_at")
        updatedAt = try r.int("updated_at")
    }
}

/// Queries on `status_pages`. A duplicate slug surfaces as a
/// `StoreError` with `isUniqueViolation` (the caller answers 409).
public enum StatusPages {
    enum SQL {
        static let insert = """
            INSERT INTO status_pages (slug, title, description, monitor_ids, created_at, updated_at, tags)
            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *
            """
        static let find = "SELECT * FROM status_pages WHERE id = ?"
        static let findSlug = "SELECT * FROM status_pages WHERE slug = ?"
        static let list = "SELECT * FROM status_pages WHERE (CAST(?1 AS INTEGER) IS NULL OR id > ?1) ORDER BY id LIMIT ?2"
        static let update = """
            UPDATE status_pages SET slug = ?, title = ?, description = ?, monitor_ids = ?, updated_at = ?, tags = ?
            WHERE id = ? RETURNING *
            """
        static let delete = "DELETE FROM status_pages WHERE id = ?"
    }

    public static func insert(_ c: Connection, _ p: StatusPageRecord, now: Int64) throws(StoreError) -> StatusPageRecord {
        guard let row = try c.queryOne(SQL.insert, [.text(p.slug), .text(p.title), .text(p.description), .json(p.monitorIDs),
                                                    .integer(now), .integer(now), .json(p.tags)]) else {
            throw StoreError.misuse("INSERT … RETURNING gave no row")
        }
        return try StatusPageRecord(row: row)
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> StatusPageRecord? {
        try c.queryOne(SQL.find, [.integer(id)]).map { r throws(StoreError) in try StatusPageRecord(row: r) }
    }

    public static func find(_ c: Connection, slug: String) throws(StoreError) -> StatusPageRecord? {
        try c.queryOne(SQL.findSlug, [.text(slug)]).map { r throws(StoreError) in try StatusPageRecord(row: r) }
    }

    /// In id order; `afterID` pages forwards.
    public static func list(_ c: Connection, afterID: Int64?, limit: Int) throws(StoreError) -> [StatusPageRecord] {
        try c.query(SQL.list, [SQLValue(afterID), .integer(Int64(limit))]).map { r throws(StoreError) in
            try StatusPageRecord(row: r)
        }
    }

    /// Writes every field but `created_at`; nil when the page is gone.
    public static func update(_ c: Connection, _ p: StatusPageRecord, now: Int64) throws(StoreError) -> StatusPageRecord? {
        try c.queryOne(SQL.update, [.text(p.slug), .text(p.title), .text(p.description), .json(p.monitorIDs),
                                    .integer(now), .json(p.tags), .integer(p.id)]).map { r throws(StoreError) in try StatusPageRecord(row: r) }
    }

    public static func delete(_ c: Connection, id: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.delete, [.integer(id)])
        return c.changes > 0
    }
}
