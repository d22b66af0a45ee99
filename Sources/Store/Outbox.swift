/// A row of `outbox`: one notification to one channel (or, for a Live
/// Activity, to one phone).
public struct OutboxRecord: Sendable, Equatable {
    public var id: Int64 = 0
    /// nil for Live Activity messages.
    public var channelID: Int64?
    public var eventID: Int64?
    /// `alert`, `reminder`, `test` or `liveactivity`.
    public var kind: String
    /// Who delivers it: `http`, `smtp` or `push`.
    public var transport: String = "http"
    /// The phone a `push` row is for.
    public var deviceID: Int64?
    /// What to send, as JSON: the built request (`http`), the message
    /// (`smtp`), or the relay message (`push`).
    public var payload: String
    public var status: String = "pending"
    public var attempts: Int64 = 0
    public var nextAttemptAt: Int64
    public var claimedUntil: Int64?
    public var lastError: String?
    public var createdAt: Int64 = 0
    public var sentAt: Int64?

    public init(channelID: Int64?, eventID: Int64?, kind: String, transport: String = "http", deviceID: Int64? = nil,
                payload: String, nextAttemptAt: Int64) {
        self.channelID = channelID
        self.eventID = eventID
        self.kind = kind
        self.transport = transport
        self.deviceID = deviceID
        self.payload = payload
        self.nextAttemptAt = nextAttemptAt
    }

    init(row r: Row) throws(StoreError) {
        self.init(channelID: try r.optionalInt("channel_id"), eventID: try r.optionalInt("event_id"), kind: try r.text("kind"),
                  transport: try r.text("transport"), deviceID: try r.optionalInt("device_id"),
                  payload: try r.text("payload"), nextAttemptAt: try r.int("next_attempt_at"))
        id = try r.int("id")
        status = try r.text("status")
        attempts = try r.int("attempts")
        claimedUntil = try r.optionalInt("claimed_until")
        lastError = try r.optionalText("last_error")
        createdAt = try r.int("created_at")
        sentAt = try r.optionalInt("sent_at")
    }
}

/// Queries on `outbox`. Claiming is a compare-and-set: a row moves to
/// `sending` only if it is still due, so two workers never both own it.
public enum Outbox {
    enum SQL {
        static let insert = """
            INSERT INTO outbox (channel_id, event_id, kind, transport, device_id, payload, status, attempts,
                                next_attempt_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) RETURNING id
            """
        static let setPayload = "UPDATE outbox SET payload = ? WHERE id = ?"
        static let find = "SELECT * FROM outbox WHERE id = ?"
        static let due = """
            SELECT id FROM outbox
            WHERE (status = 'pending' AND next_attempt_at <= ?1) OR (status = 'sending' AND claimed_until <= ?1)
            ORDER BY next_attempt_at, id LIMIT ?2
            """
        static let claim = """
            UPDATE outbox SET status = 'sending', claimed_until = ?2, attempts = attempts + 1, claimed_by = ?4
            WHERE id = ?3 AND ((status = 'pending' AND next_attempt_at <= ?1) OR (status = 'sending' AND claimed_until <= ?1))
            RETURNING *
            """
        static let claimEarlier = """
            UPDATE outbox SET status = 'sending', claimed_until = ?1, attempts = attempts + 1, claimed_by = ?4
            WHERE status = 'pending' AND device_id = ?2 AND id < ?3
            RETURNING *
            """
        static let markSent = """
            UPDATE outbox SET status = 'sent', sent_at = ?, claimed_until = NULL, last_error = NULL
            WHERE id = ? AND status = 'sending'
            """
        static let retry = """
            UPDATE outbox SET status = 'pending', next_attempt_at = ?, claimed_until = NULL, last_error = ?
            WHERE id = ? AND status = 'sending'
            """
        static let fail = """
            UPDATE outbox SET status = 'failed', claimed_until = NULL, last_error = ? WHERE id = ? AND status = 'sending'
            """
        static let nextDue = """
            SELECT min(CASE status WHEN 'pending' THEN next_attempt_at ELSE claimed_until END) AS t
            FROM outbox WHERE status IN ('pending', 'sending')
            """
        static let forChannel = "SELECT * FROM outbox WHERE channel_id = ? ORDER BY id"
    }

    /// Inserts a row; the payload may mention the row's own id (an
    /// idempotency key), so `build` gets the id and the row is updated with
    /// its result in the same transaction.
    public static func insert(_ c: Connection, _ o: OutboxRecord, now: Int64,
                              build: ((Int64) -> String)? = nil) throws(StoreError) -> Int64 {
        let id = try c.insertReturningID(SQL.insert, [SQLValue(o.channelID), SQLValue(o.eventID), .text(o.kind), .text(o.transport),
                                                     SQLValue(o.deviceID), .text(o.payload), .integer(o.nextAttemptAt), .integer(now)])
        if let build {
            try c.execute(SQL.setPayload, [.text(build(id)), .integer(id)])
        }
        return id
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> OutboxRecord? {
        try c.queryOne(SQL.find, [.integer(id)]).map { r throws(StoreError) in try OutboxRecord(row: r) }
    }

    /// Claims up to `limit` due rows (pending and due, or sending with an
    /// expired claim) until `claimUntil`. Call inside a write transaction.
    /// `node`: the claiming hub, so its claims can be released when it dies.
    /// Several hubs claim at once: on PostgreSQL the due rows are locked and
    /// rows another hub is claiming are skipped (`SKIP LOCKED`) rather than
    /// waited for; the conditional UPDATE is what decides either way.
    public static func claim(_ c: Connection, now: Int64, claimUntil: Int64, limit: Int, node: String = "") throws(StoreError) -> [OutboxRecord] {
        let ids = try c.query(SQL.due + c.forUpdateSkipLocked, [.integer(now), .integer(Int64(limit))])
            .map { r throws(StoreError) in try r.int("id") }
        var out: [OutboxRecord] = []
        for id in ids {
            if let r = try c.queryOne(SQL.claim, [.integer(now), .integer(claimUntil), .integer(id), .text(node)]) {
                out.append(try OutboxRecord(row: r))
            }
        }
        // A phone gets its messages in order: a due row takes the phone's
        // earlier rows that still wait for their retry along (after a relay
        // outage, "API is up" must not arrive before "API is down").
        var latest: [Int64: Int64] = [:]
        for r in out { if let d = r.deviceID { latest[d] = max(latest[d] ?? 0, r.id) } }
        for (device, upTo) in latest.sorted(by: { $0.key < $1.key }) {
            let earlier = try c.query(SQL.claimEarlier, [.integer(claimUntil), .integer(device), .integer(upTo), .text(node)])
            out.append(contentsOf: try earlier.map { r throws(StoreError) in try OutboxRecord(row: r) })
        }
        return out.sorted { $0.id < $1.id }
    }

    @discardableResult
    public static func markSent(_ c: Connection, id: Int64, now: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.markSent, [.integer(now), .integer(id)])
        return c.changes > 0
    }

    @discardableResult
    public static func scheduleRetry(_ c: Connection, id: Int64, at: Int64, error: String) throws(StoreError) -> Bool {
        try c.execute(SQL.retry, [.integer(at), .text(error), .integer(id)])
        return c.changes > 0
    }

    @discardableResult
    public static func markFailed(_ c: Connection, id: Int64, error: String) throws(StoreError) -> Bool {
        try c.execute(SQL.fail, [.text(error), .integer(id)])
        return c.changes > 0
    }

    /// When the next row becomes due (nil: nothing outstanding).
    public static func nextDue(_ c: Connection) throws(StoreError) -> Int64? {
        try c.queryOne(SQL.nextDue).flatMap { r throws(StoreError) in try r.optionalInt("t") }
    }

    /// Rows left in `sending` by a hub that died mid-send are due at once,
    /// so a crash costs no claim wait; they go out again with the same id
    /// (the idempotency key receivers see). Released: claims of `node`
    /// itself (at its start, they are from its previous life) and of every
    /// hub not seen since `liveSince` (on SQLite `hub_nodes` is empty: one
    /// hub per file, so every claim is its own).
    @discardableResult
    public static func releaseClaims(_ c: Connection, now: Int64, node: String = "", liveSince: Int64 = Int64.max) throws(StoreError) -> Int {
        try c.execute("""
            UPDATE outbox SET status = 'pending', next_attempt_at = ?1, claimed_until = NULL, claimed_by = NULL
            WHERE status = 'sending' AND (claimed_by IS NULL OR claimed_by = ?2
                OR claimed_by NOT IN (SELECT id FROM hub_nodes WHERE seen_at >= ?3))
            """, [.integer(now), .text(node), .integer(liveSince)])
        return c.changes
    }

    /// Deletes settled rows (`sent`, `failed`) created before `before`.
    @discardableResult
    public static func prune(_ c: Connection, before: Int64, limit: Int = 10_000) throws(StoreError) -> Int {
        try c.execute("""
            DELETE FROM outbox WHERE id IN (
                SELECT id FROM outbox WHERE created_at < ? AND status IN ('sent', 'failed') LIMIT ?)
            """, [.integer(before), .integer(Int64(limit))])
        return c.changes
    }

    /// A phone is gone: its undelivered rows fail with `reason`.
    @discardableResult
    public static func failPending(_ c: Connection, deviceID: Int64, reason: String) throws(StoreError) -> Int {
        try c.execute("""
            UPDATE outbox SET status = 'failed', claimed_until = NULL, last_error = ?
            WHERE device_id = ? AND status IN ('pending', 'sending')
            """, [.text(reason), .integer(deviceID)])
        return c.changes
    }

    public static func forChannel(_ c: Connection, channelID: Int64) throws(StoreError) -> [OutboxRecord] {
        try c.query(SQL.forChannel, [.integer(channelID)]).map { r throws(StoreError) in try OutboxRecord(row: r) }
    }
}
