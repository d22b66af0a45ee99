/// A row of `quiet_hours`: one user's quiet hours as they saved them
/// (SPEC §10). Notify validates and decides; this only stores.
public struct QuietHoursRecord: Sendable, Equatable {
    public var userID: Int64
    public var enabled: Bool
    /// `HH:MM`, local wall-clock time in `timezone`.
    public var start: String
    public var end: String
    /// An IANA time zone name.
    public var timezone: String
    public var minPriority: Int64
    public var updatedAt: Int64 = 0

    public init(userID: Int64, enabled: Bool, start: String, end: String, timezone: String, minPriority: Int64) {
        self.userID = userID
        self.enabled = enabled
        self.start = start
        self.end = end
        self.timezone = timezone
        self.minPriority = minPriority
    }

    init(row r: Row) throws(StoreError) {
        self.init(userID: try r.int("user_id"), enabled: try r.bool("enabled"), start: try r.text("start_time"),
                  end: try r.text("end_time"), timezone: try r.text("timezone"), minPriority: try r.int("min_priority"))
        updatedAt = try r.int("updated_at")
    }
}

/// Queries on `quiet_hours`.
public enum UserQuietHours {
    enum SQL {
        static let find = "SELECT * FROM quiet_hours WHERE user_id = ?"
        static let save = """
            INSERT INTO quiet_hours (user_id, enabled, start_time, end_time, timezone, min_priority, updated_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT (user_id) DO UPDATE SET enabled = ?2, start_time = ?3, end_time = ?4, timezone = ?5,
                min_priority = ?6, updated_at = ?7
            RETURNING *
            """
        /// Every phone whose user has quiet hours turned on, with them.
        static let byDevice = """
            SELECT d.id AS device_id, q.* FROM mobile_devices d JOIN quiet_hours q ON q.user_id = d.user_id
            WHERE q.enabled = 1
            """
    }

    public static func find(_ c: Connection, userID: Int64) throws(StoreError) -> QuietHoursRecord? {
        try c.queryOne(SQL.find, [.integer(userID)]).map { r throws(StoreError) in try QuietHoursRecord(row: r) }
    }

    /// Replaces the user's quiet hours (a `PUT` replaces the whole object).
    public static func save(_ c: Connection, _ q: QuietHoursRecord, now: Int64) throws(StoreError) -> QuietHoursRecord {
        guard let row = try c.queryOne(SQL.save, [.integer(q.userID), SQLValue(q.enabled), .text(q.start), .text(q.end),
                                                  .text(q.timezone), .integer(q.minPriority), .integer(now)]) else {
            throw StoreError.misuse("upsert into quiet_hours returned nothing")
        }
        return try QuietHoursRecord(row: row)
    }

    /// The quiet hours that apply to each phone (only phones whose user
    /// turned them on): what the push sender reads once per batch.
    public static func enabledByDevice(_ c: Connection) throws(StoreError) -> [Int64: QuietHoursRecord] {
        var out: [Int64: QuietHoursRecord] = [:]
        for r in try c.query(SQL.byDevice) { out[try r.int("device_id")] = try QuietHoursRecord(row: r) }
        return out
    }
}
