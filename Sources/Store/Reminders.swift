/// A row of `channel_reminders`: when a channel next repeats an open incident.
public struct ReminderRecord: Sendable, Equatable {
    public var channelID: Int64
    public var incidentID: Int64
    public var nextAt: Int64
    /// How many reminders this channel has had for the incident.
    public var sent: Int64

    public init(channelID: Int64, incidentID: Int64, nextAt: Int64, sent: Int64 = 0) {
        self.channelID = channelID
        self.incidentID = incidentID
        self.nextAt = nextAt
        self.sent = sent
    }

    init(row r: Row) throws(StoreError) {
        self.init(channelID: try r.int("channel_id"), incidentID: try r.int("incident_id"), nextAt: try r.int("next_at"),
                  sent: try r.int("sent"))
    }
}

/// Queries on `channel_reminders` (the only SQL that touches the table).
/// Rows of deleted channels and incidents go with them (ON DELETE CASCADE).
public enum Reminders {
    enum SQL {
        static let forIncident = "SELECT * FROM channel_reminders WHERE incident_id = ? ORDER BY channel_id"
        static let all = "SELECT * FROM channel_reminders ORDER BY incident_id, channel_id"
        /// `sent` grows by the given 0 or 1, so one statement both schedules
        /// a first slot and records a reminder that went out.
        static let upsert = """
            INSERT INTO channel_reminders (channel_id, incident_id, next_at, sent) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (channel_id, incident_id) DO UPDATE SET next_at = excluded.next_at, sent = channel_reminders.sent + excluded.sent
            """
        static let delete = "DELETE FROM channel_reminders WHERE channel_id = ? AND incident_id = ?"
        /// Walks the (small) reminders table with a primary-key lookup per
        /// row, not the whole incident history.
        static let deleteSettled = """
            DELETE FROM channel_reminders WHERE EXISTS (
                SELECT 1 FROM incidents i WHERE i.id = channel_reminders.incident_id
                  AND (i.status <> 'open' OR i.acknowledged_at IS NOT NULL))
            """
    }

    /// The rows of one incident, by channel id.
    public static func forIncident(_ c: Connection, incidentID: Int64) throws(StoreError) -> [ReminderRecord] {
        try c.query(SQL.forIncident, [.integer(incidentID)]).map { r throws(StoreError) in try ReminderRecord(row: r) }
    }

    public static func all(_ c: Connection) throws(StoreError) -> [ReminderRecord] {
        try c.query(SQL.all).map { r throws(StoreError) in try ReminderRecord(row: r) }
    }

    /// Sets the channel's next slot for the incident (creating the row);
    /// `countSent` when a reminder was just queued.
    public static func schedule(_ c: Connection, channelID: Int64, incidentID: Int64, nextAt: Int64,
                                countSent: Bool = false) throws(StoreError) {
        try c.execute(SQL.upsert, [.integer(channelID), .integer(incidentID), .integer(nextAt), .integer(countSent ? 1 : 0)])
    }

    /// The channel no longer reminds about the incident (filters changed,
    /// disabled, `reminder_minutes` set to 0).
    @discardableResult
    public static func delete(_ c: Connection, channelID: Int64, incidentID: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.delete, [.integer(channelID), .integer(incidentID)])
        return c.changes > 0
    }

    /// Drops the rows of incidents that closed or were acknowledged: nothing
    /// more is sent for them.
    @discardableResult
    public static func deleteSettled(_ c: Connection) throws(StoreError) -> Int {
        try c.execute(SQL.deleteSettled)
        return c.changes
    }
}
