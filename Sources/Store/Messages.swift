import Core

/// One row of `messages` (SPEC §15): what a person sent through the channels.
public struct MessageRecord: Sendable, Equatable {
    public var id: Int64 = 0
    public var eventID: Int64
    public var title: String
    public var body: String
    public var priority: Int64
    public var url: String?
    public var monitorID: Int64?
    /// The channels it was queued for.
    public var channelIDs: [Int64]
    public var createdBy: Int64?
    public var createdAt: Int64

    public init(eventID: Int64, title: String, body: String, priority: Int64, url: String?, monitorID: Int64?,
                channelIDs: [Int64], createdBy: Int64?, createdAt: Int64) {
        self.eventID = eventID
        self.title = title
        self.body = body
        self.priority = priority
        self.url = url
        self.monitorID = monitorID
        self.channelIDs = channelIDs
        self.createdBy = createdBy
        self.createdAt = createdAt
    }

    init(row r: Row) throws(StoreError) {
        self.init(eventID: try r.int("event_id"), title: try r.text("title"), body: try r.text("body"),
                  priority: try r.int("priority"), url: try r.optionalText("url"), monitorID: try r.optionalInt("monitor_id"),
                  channelIDs: try r.intArray("channel_ids", table: "messages"), createdBy: try r.optionalInt("created_by"),
                  createdAt: try r.int("created_at"))
        id = try r.int("id")
    }
}

/// Queries on `messages`.
public enum Messages {
    public static func insert(_ c: Connection, _ m: MessageRecord) throws(StoreError) -> Int64 {
        try c.insertReturningID("""
            INSERT INTO messages (event_id, title, body, priority, url, monitor_id, channel_ids, created_by, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
            """, [.integer(m.eventID), .text(m.title), .text(m.body), .integer(m.priority), SQLValue(m.url), SQLValue(m.monitorID),
                  .json(.array(m.channelIDs.map { .int($0) })), SQLValue(m.createdBy), .integer(m.createdAt)])
    }

    /// The message that raised event `eventID`.
    public static func find(_ c: Connection, eventID: Int64) throws(StoreError) -> MessageRecord? {
        try c.queryOne("SELECT * FROM messages WHERE event_id = ?", [.integer(eventID)]).map { r throws(StoreError) in
            try MessageRecord(row: r)
        }
    }
}
