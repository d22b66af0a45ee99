/// A row of `maintenance_windows`.
public struct MaintenanceRecord: Sendable, Equatable {
    public var id: Int64 = 0
    public var title: String
    /// Empty means every monitor (JSON text in the table).
    public var monitorIDs: [Int64]
    /// Tags whose monitors the window covers too, resolved when read
    /// (`MonitorSelection`); empty ids and empty tags = every monitor.
    public var tags: [String] = []
    /// A one-off window's start, or a series' first possible occurrence.
    public var startsAt: Int64
    /// A one-off window's end, or the series' end; nil = a series without
    /// end (only with a recurrence).
    public var endsAt: Int64?
    /// nil for a one-off window.
    public var recurrence: Recurrence?
    public var createdBy: String?
    public var createdAt: Int64 = 0

    /// How a recurring window repeats (SPEC §12), as stored; Monitoring's
    /// `MaintenanceSchedule` evaluates it.
    public struct Recurrence: Sendable, Equatable {
        public var cron: String
        public var timezone: String
        public var durationMinutes: Int64
        public init(cron: String, timezone: String, durationMinutes: Int64) {
            self.cron = cron
            self.timezone = timezone
            self.durationMinutes = durationMinutes
        }
    }

    public init(title: String, monitorIDs: [Int64], startsAt: Int64, endsAt: Int64?, createdBy: String?,
                recurrence: Recurrence? = nil) {
        self.title = title
        self.monitorIDs = monitorIDs
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.createdBy = createdBy
        self.recurrence = recurrence
    }

    init(row r: Row) throws(StoreError) {
        self.init(title: try r.text("title"), monitorIDs: try r.intArray("monitor_ids", table: "maintenance_windows"),
                  startsAt: try r.int("starts_at"), endsAt: try r.optionalInt("ends_at"), createdBy: try r.optionalText("created_by"))
        id = try r.int("id")
        tags = try r.stringArray("tags", table: "maintenance_windows")
        createdAt = try r.int("created_at")
        if let cron = try r.optionalText("recurrence_cron") {
            recurrence = Recurrence(cron: cron, timezone: try r.optionalText("recurrence_timezone") ?? "UTC",
                                    durationMinutes: try r.optionalInt("recurrence_minutes") ?? 0)
        }
    }
}

/// Queries on `maintenance_windows`.
public enum MaintenanceWindows {
    enum SQL {
        static let insert = """
            INSERT INTO maintenance_windows (title, monitor_ids, starts_at, ends_at, created_by, created_at, tags,
                                             recurrence_cron, recurrence_timezone, recurrence_minutes)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *
            """
        static let find = "SELECT * FROM maintenance_windows WHERE id = ?"
        static let list = "SELECT * FROM maintenance_windows WHERE (CAST(?1 AS INTEGER) IS NULL OR id < ?1) ORDER BY id DESC LIMIT ?2"
        // A series' occurrences all lie inside [starts_at, ends_at) (they are
        // cut at its end), so the bounds select recurring windows too.
        static let overlapping = """
            SELECT * FROM maintenance_windows WHERE starts_at < ? AND (ends_at IS NULL OR ends_at > ?) ORDER BY starts_at, id
            """
        static let update = """
            UPDATE maintenance_windows SET title = ?, monitor_ids = ?, starts_at = ?, ends_at = ?, tags = ?,
                recurrence_cron = ?, recurrence_timezone = ?, recurrence_minutes = ? WHERE id = ? RETURNING *
            """
        static let delete = "DELETE FROM maintenance_windows WHERE id = ?"
    }

    public static func insert(_ c: Connection, _ w: MaintenanceRecord, now: Int64) throws(StoreError) -> MaintenanceRecord {
        guard let row = try c.queryOne(SQL.insert, [.text(w.title), .json(w.monitorIDs), .integer(w.startsAt),
                                                    SQLValue(w.endsAt), SQLValue(w.createdBy), .integer(now), .json(w.tags)]
                                           + recurrenceValues(w)) else {
            throw StoreError.misuse("INSERT … RETURNING gave no row")
        }
        return try MaintenanceRecord(row: row)
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> MaintenanceRecord? {
        try c.queryOne(SQL.find, [.integer(id)]).map { r throws(StoreError) in try MaintenanceRecord(row: r) }
    }

    /// Newest first; `beforeID` pages backwards.
    public static func list(_ c: Connection, beforeID: Int64?, limit: Int) throws(StoreError) -> [MaintenanceRecord] {
        try c.query(SQL.list, [SQLValue(beforeID), .integer(Int64(limit))]).map { r throws(StoreError) in
            try MaintenanceRecord(row: r)
        }
    }

    /// Windows whose bounds overlap [from, to) (a series: its whole span).
    public static func overlapping(_ c: Connection, from: Int64, to: Int64) throws(StoreError) -> [MaintenanceRecord] {
        try c.query(SQL.overlapping, [.integer(to), .integer(from)]).map { r throws(StoreError) in
            try MaintenanceRecord(row: r)
        }
    }

    public static func update(_ c: Connection, _ w: MaintenanceRecord) throws(StoreError) -> MaintenanceRecord? {
        try c.queryOne(SQL.update, [.text(w.title), .json(w.monitorIDs), .integer(w.startsAt), SQLValue(w.endsAt),
                                    .json(w.tags)] + recurrenceValues(w) + [.integer(w.id)]).map { r throws(StoreError) in try MaintenanceRecord(row: r) }
    }

    static func recurrenceValues(_ w: MaintenanceRecord) -> [SQLValue] {
        [SQLValue(w.recurrence?.cron), SQLValue(w.recurrence?.timezone), SQLValue(w.recurrence?.durationMinutes)]
    }

    public static func delete(_ c: Connection, id: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.delete, [.integer(id)])
        return c.changes > 0
    }
}
