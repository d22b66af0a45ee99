import Core

/// A row of `channels` (SPEC §6). `events`, `monitorIDs` and `config` are
/// JSON text in the table, decoded here (`Row+JSONColumns`); the Notify
/// module validates `config` for the channel's type.
public struct ChannelRecord: Sendable, Equatable {
    public var id: Int64 = 0
    public var name: String
    public var type: String
    public var enabled: Bool
    public var events: [EventKind]
    /// Empty = every monitor.
    public var monitorIDs: [Int64]
    public var reminderMinutes: Int64
    /// Notifications below this 0–10 priority are not sent here (SPEC §10).
    public var minPriority: Int64 = 0
    /// Per type.
    public var config: JSONObject
    public var createdAt: Int64 = 0
    public var updatedAt: Int64 = 0

    public init(name: String, type: String, enabled: Bool, events: [EventKind], monitorIDs: [Int64],
                reminderMinutes: Int64, config: JSONObject) {
        self.name = name
        self.type = type
        self.enabled = enabled
        self.events = events
        self.monitorIDs = monitorIDs
        self.reminderMinutes = reminderMinutes
        self.config = config
    }

    init(row r: Row) throws(StoreError) {
        self.init(name: try r.text("name"), type: try r.text("type"), enabled: try r.bool("enabled"),
                  events: try r.eventKinds("events", table: "channels"),
                  monitorIDs: try r.intArray("monitor_ids", table: "channels"),
                  reminderMinutes: try r.int("reminder_minutes"), config: try r.jsonObject("config", table: "channels"))
        id = try r.int("id")
        minPriority = try r.int("min_priority")
        createdAt = try r.int("created_at")
        updatedAt = try r.int("updated_at")
    }
}

/// Delivery counts of one channel's outbox rows.
public struct ChannelDelivery: Sendable, Equatable {
    public var sent: Int64 = 0
    public var failed: Int64 = 0
    /// Pending or being sent.
    public var pending: Int64 = 0
    public var lastError: String?
    public var lastSentAt: Int64?
    public init() {}
}

/// Queries on `channels`.
public enum Channels {
    enum SQL {
        static let insert = """
            INSERT INTO channels (name, type, enabled, events, monitor_ids, reminder_minutes, config, created_at, updated_at, min_priority)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *
            """
        static let find = "SELECT * FROM channels WHERE id = ?"
        static let all = "SELECT * FROM channels ORDER BY id"
        static let update = """
            UPDATE channels SET name = ?, type = ?, enabled = ?, events = ?, monitor_ids = ?, reminder_minutes = ?,
              config = ?, updated_at = ?, min_priority = ? WHERE id = ? RETURNING *
            """
        static let delete = "DELETE FROM channels WHERE id = ?"
        static let counts = "SELECT status, count(*) AS n FROM outbox WHERE channel_id = ? GROUP BY status"
        static let lastSent = "SELECT max(sent_at) AS t FROM outbox WHERE channel_id = ? AND status = 'sent'"
        static let lastError = """
            SELECT last_error FROM outbox WHERE channel_id = ? AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1
            """
    }

    public static func insert(_ c: Connection, _ ch: ChannelRecord, now: Int64) throws(StoreError) -> ChannelRecord {
        guard let row = try c.queryOne(SQL.insert, [.text(ch.name), .text(ch.type), SQLValue(ch.enabled), .json(ch.events),
                                                    .json(ch.monitorIDs), .integer(ch.reminderMinutes), .json(ch.config),
                                                    .integer(now), .integer(now), .integer(ch.minPriority)]) else {
            throw StoreError.misuse("INSERT … RETURNING gave no row")
        }
        return try ChannelRecord(row: row)
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> ChannelRecord? {
        try c.queryOne(SQL.find, [.integer(id)]).map { r throws(StoreError) in try ChannelRecord(row: r) }
    }

    /// Every channel, oldest first (a hub has a handful).
    public static func all(_ c: Connection) throws(StoreError) -> [ChannelRecord] {
        try c.query(SQL.all).map { r throws(StoreError) in try ChannelRecord(row: r) }
    }

    public static func update(_ c: Connection, _ ch: ChannelRecord, now: Int64) throws(StoreError) -> ChannelRecord? {
        try c.queryOne(SQL.update, [.text(ch.name), .text(ch.type), SQLValue(ch.enabled), .json(ch.events),
                                    .json(ch.monitorIDs), .integer(ch.reminderMinutes), .json(ch.config),
                                    .integer(now), .integer(ch.minPriority), .integer(ch.id)]).map { r throws(StoreError) in try ChannelRecord(row: r) }
    }

    /// Deletes the channel and (cascade) its outbox rows.
    public static func delete(_ c: Connection, id: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.delete, [.integer(id)])
        return c.changes > 0
    }

    public static func delivery(_ c: Connection, channelID: Int64) throws(StoreError) -> ChannelDelivery {
        var d = ChannelDelivery()
        for r in try c.query(SQL.counts, [.integer(channelID)]) {
            let n = try r.int("n")
            switch try r.text("status") {
            case "sent": d.sent += n
            case "failed": d.failed += n
            default: d.pending += n
            }
        }
        d.lastSentAt = try c.queryOne(SQL.lastSent, [.integer(channelID)]).flatMap { r throws(StoreError) in try r.optionalInt("t") }
        d.lastError = try c.queryOne(SQL.lastError, [.integer(channelID)]).flatMap { r throws(StoreError) in
            try r.optionalText("last_error")
        }
        return d
    }
}
