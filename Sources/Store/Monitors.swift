import Core

/// A row of `monitors`: its configuration and its current state.
public struct MonitorRecord: Sendable, Equatable {
    public var id: Int64 = 0
    public var name: String
    public var type: String
    public var target: String?
    public var interval: Int64
    public var timeout: Int64
    public var retries: Int64
    public var paused: Bool = false
    /// Location names (JSON text in the table, as `settings`).
    public var locations: [String] = []
    /// Lowercase, sorted, no duplicates (Monitoring validates them). JSON
    /// text in `monitors.tags`, one row each in `monitor_tags` (the index).
    public var tags: [String] = []
    public var confirmLocations: Int64 = 1
    public var degradedAfterMs: Int64?
    public var certExpiryDays: Int64?
    /// The monitor's own 0–10 alert priority (SPEC §10); nil = the defaults
    /// per event.
    public var priority: Int64?
    /// The escalation policy its `down` incidents follow (SPEC §10).
    public var escalationPolicyID: Int64?
    /// Type-specific settings; Monitoring validates them per type.
    public var settings = JSONObject()
    public var pingKey: String?
    public var status: String = "pending"
    public var statusSince: Int64 = 0
    /// JSON of the state machine's counters, left as text: only the result
    /// path reads it (`MonitorStateCoding`), and it is a cache of counters
    /// that starts afresh when unreadable rather than stop the monitor's
    /// results (the status columns hold what a person sees).
    public var state: String = "{}"
    public var nextDueMs: Int64?
    public var lastAt: Int64?
    public var lastLocation: String?
    public var lastStatus: String?
    public var lastLatencyMs: Int64?
    public var lastStatusCode: Int64?
    public var lastError: String?
    /// The last ping check's packet loss, 0–1 (SPEC §12).
    public var lastPacketLoss: Double?
    public var certNotAfter: Int64?
    /// Whether the monitor depends on others / others depend on it
    /// (`Dependencies.replace` keeps them; see migration 0026). Read-only
    /// here: `Monitors.update` does not write them.
    public var hasParents = false
    public var hasChildren = false
    public var createdAt: Int64 = 0
    public var updatedAt: Int64 = 0

    public init(name: String, type: String, target: String?, interval: Int64, timeout: Int64, retries: Int64) {
        self.name = name
        self.type = type
        self.target = target
        self.interval = interval
        self.timeout = timeout
        self.retries = retries
    }

    init(row r: Row) throws(StoreError) {
        self.init(name: try r.text("name"), type: try r.text("type"), target: try r.optionalText("target"),
                  interval: try r.int("interval"), timeout: try r.int("timeout"), retries: try r.int("retries"))
        id = try r.int("id")
        paused = try r.bool("paused")
        locations = try r.stringArray("locations", table: "monitors")
        tags = try r.stringArray("tags", table: "monitors")
        confirmLocations = try r.int("confirm_locations")
        degradedAfterMs = try r.optionalInt("degraded_after_ms")
        certExpiryDays = try r.optionalInt("cert_expiry_days")
        priority = try r.optionalInt("priority")
        escalationPolicyID = try r.optionalInt("escalation_policy_id")
        settings = try r.jsonObject("settings", table: "monitors")
        pingKey = try r.optionalText("ping_key")
        status = try r.text("status")
        statusSince = try r.int("status_since")
        state = try r.text("state")
        nextDueMs = try r.optionalInt("next_due_ms")
        lastAt = try r.optionalInt("last_at")
        lastLocation = try r.optionalText("last_location")
        lastStatus = try r.optionalText("last_status")
        lastLatencyMs = try r.optionalInt("last_latency_ms")
        lastStatusCode = try r.optionalInt("last_status_code")
        lastError = try r.optionalText("last_error")
        lastPacketLoss = try r.optionalDouble("last_packet_loss")
        certNotAfter = try r.optionalInt("cert_not_after")
        hasParents = try r.bool("has_parents")
        hasChildren = try r.bool("has_children")
        createdAt = try r.int("created_at")
        updatedAt = try r.int("updated_at")
    }
}

/// Filters for listing monitors.
public struct MonitorFilter: Sendable {
    public var status: String?
    public var type: String?
    /// Case-insensitive substring of name or target.
    public var query: String?
    /// Monitors that have every one of these (lowercase) tags.
    public var tags: [String]
    public init(status: String? = nil, type: String? = nil, query: String? = nil, tags: [String] = []) {
        self.status = status
        self.type = type
        self.query = query
        self.tags = tags
    }
}

/// Queries on `monitors`.
public enum Monitors {
    enum SQL {
        static let insert = """
            INSERT INTO monitors (name, type, target, interval, timeout, retries, paused, locations, confirm_locations,
                degraded_after_ms, cert_expiry_days, settings, ping_key, status, status_since, state, created_at, updated_at, priority,
                escalation_policy_id, tags, search)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, \(MonitorListing.searchOfParameters)) RETURNING *
            """
        static let find = "SELECT * FROM monitors WHERE id = ?"
        static let findByPingKey = "SELECT * FROM monitors WHERE ping_key = ?"
        static let list = """
            SELECT * FROM monitors WHERE id > ?1
              AND (CAST(?2 AS TEXT) IS NULL OR status = ?2) AND (CAST(?3 AS TEXT) IS NULL OR type = ?3)
              AND (CAST(?4 AS TEXT) IS NULL OR instr(search, lower(?4)) > 0)
            """
        /// SQLite walks the rows in id order and would read every wide row
        /// for a rare term; `(id, search)` is the same order a tenth as wide
        /// (migration 0027). PostgreSQL's planner chooses by statistics.
        static let listBySearch = list.replacing("FROM monitors WHERE", with: "FROM monitors INDEXED BY monitors_id_search WHERE")
        /// A status filter as an equality both engines can take to
        /// `monitors_status (status, id)`: behind `?2 IS NULL OR` neither
        /// planner uses the index, and `?status=down` walked half of 500,000
        /// rows to fill a page (bench/pages.sh).
        static let listByStatus = """
            SELECT * FROM monitors WHERE status = ?2 AND id > ?1
              AND (CAST(?3 AS TEXT) IS NULL OR type = ?3)
              AND (CAST(?4 AS TEXT) IS NULL OR instr(search, lower(?4)) > 0)
            """
        static let listEnd = " ORDER BY id LIMIT ?5"
        /// `?q=` on SQLite: FTS5's matches in rowid order, each a rowid
        /// lookup (MonitorSearch), filtered as `list` filters.
        static let listByTrigram = """
            SELECT monitors.* FROM \(MonitorSearch.ftsFrom)
            WHERE \(MonitorSearch.ftsMatch("?4")) AND monitors_fts.rowid > ?1
              AND (CAST(?2 AS TEXT) IS NULL OR status = ?2) AND (CAST(?3 AS TEXT) IS NULL OR type = ?3)
              AND instr(monitors.search, lower(?4)) > 0
            """
        static let listByTrigramEnd = " ORDER BY monitors_fts.rowid LIMIT ?5"
        /// Restricts `list`/`listByStatus` to the ids bound at `?n`
        /// (PostgreSQL, MonitorSearch.candidates).
        static func candidateIDs(_ n: Int) -> String { " AND " + MonitorSearch.idAmong("?\(n)") }
        /// The ids having every tag from ?6 on, found through the primary
        /// key (tag, monitor_id), one index range per tag.
        static func allTags(_ n: Int) -> String {
            " AND id IN (" + (0..<n).map { "SELECT monitor_id FROM monitor_tags WHERE tag = ?\($0 + 6)" }.joined(separator: " INTERSECT ") + ")"
        }
        static let all = "SELECT * FROM monitors ORDER BY id"
        static let updateConfig = """
            UPDATE monitors SET name = ?, target = ?, interval = ?, timeout = ?, retries = ?, locations = ?,
                confirm_locations = ?, degraded_after_ms = ?, cert_expiry_days = ?, settings = ?, updated_at = ?, priority = ?,
                escalation_policy_id = ?, tags = ?, search = \(MonitorListing.searchOfParameters)
            WHERE id = ? RETURNING *
            """
        static let updateState = """
            UPDATE monitors SET status = ?, status_since = ?, state = ?, paused = ? WHERE id = ?
            """
        static let updateStateAndLast = """
            UPDATE monitors SET status = ?, status_since = ?, state = ?, paused = ?,
                last_at = ?, last_location = ?, last_status = ?, last_latency_ms = ?,
                last_status_code = ?, last_error = ?, last_packet_loss = ?, cert_not_after = coalesce(?, cert_not_after) WHERE id = ?
            """
        /// `updateStateAndLast` without the status columns: SQLite rewrites
        /// the entries of every index on a column the SET names, even for
        /// an unchanged value (`monitors_status`), so the usual result of a
        /// steady monitor leaves them out.
        static let updateLast = """
            UPDATE monitors SET state = ?, last_at = ?, last_location = ?, last_status = ?, last_latency_ms = ?,
                last_status_code = ?, last_error = ?, last_packet_loss = ?, cert_not_after = coalesce(?, cert_not_after) WHERE id = ?
            """
        static let setNextDue = "UPDATE monitors SET next_due_ms = ? WHERE id = ?"
        static let stateForUpdate = """
            SELECT id, status, status_since, state, paused, last_at, has_parents, has_children FROM monitors WHERE id = ?
            """
        static let delete = "DELETE FROM monitors WHERE id = ?"
        static let count = "SELECT count(*) FROM monitors"
    }

    public static func insert(_ c: Connection, _ m: MonitorRecord, now: Int64) throws(StoreError) -> MonitorRecord {
        guard let row = try c.queryOne(SQL.insert, [
            .text(m.name), .text(m.type), SQLValue(m.target), .integer(m.interval), .integer(m.timeout),
            .integer(m.retries), SQLValue(m.paused), .json(m.locations), .integer(m.confirmLocations),
            SQLValue(m.degradedAfterMs), SQLValue(m.certExpiryDays), .json(m.settings), SQLValue(m.pingKey),
            .text(m.status), .integer(now), .text(m.state), .integer(now), .integer(now), SQLValue(m.priority),
            SQLValue(m.escalationPolicyID), .json(m.tags), .text(m.name), SQLValue(m.target),
        ]) else { throw StoreError.misuse("INSERT … RETURNING gave no row") }
        let record = try MonitorRecord(row: row)
        try MonitorTags.replace(c, monitorID: record.id, tags: record.tags, isNew: true)
        return record
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> MonitorRecord? {
        try c.queryOne(SQL.find, [.integer(id)]).map { r throws(StoreError) in try MonitorRecord(row: r) }
    }

    /// The monitor, its row locked until the transaction ends: what a state
    /// change reads first, so two hubs recording results for one monitor
    /// take turns instead of both opening an incident (PostgreSQL; SQLite's
    /// one writer already takes turns).
    public static func findForUpdate(_ c: Connection, id: Int64) throws(StoreError) -> MonitorRecord? {
        try c.queryOne(SQL.find + c.forUpdate, [.integer(id)]).map { r throws(StoreError) in try MonitorRecord(row: r) }
    }

    /// The columns a result changes or decides on, nothing else: the hot
    /// path's read (`ResultRecorder` with the configuration in hand). A
    /// whole `MonitorRecord` decodes about thirty columns by name and three
    /// JSON texts per result, none of which recording needs.
    public struct StateRow: Sendable, Equatable {
        public var id: Int64
        public var status: String
        public var statusSince: Int64
        public var state: String
        public var paused: Bool
        public var lastAt: Int64?
        public var hasParents: Bool
        public var hasChildren: Bool

        public init(_ m: MonitorRecord) {
            (id, status, statusSince, state, paused) = (m.id, m.status, m.statusSince, m.state, m.paused)
            (lastAt, hasParents, hasChildren) = (m.lastAt, m.hasParents, m.hasChildren)
        }

        init(row r: Row) throws(StoreError) {
            id = try r.int("id")
            status = try r.text("status")
            statusSince = try r.int("status_since")
            state = try r.text("state")
            paused = try r.bool("paused")
            lastAt = try r.optionalInt("last_at")
            hasParents = try r.bool("has_parents")
            hasChildren = try r.bool("has_children")
        }
    }

    /// `StateRow` of a monitor, locked until COMMIT like `findForUpdate`.
    public static func stateForUpdate(_ c: Connection, id: Int64) throws(StoreError) -> StateRow? {
        try c.queryOne(SQL.stateForUpdate + c.forUpdate, [.integer(id)]).map { r throws(StoreError) in try StateRow(row: r) }
    }

    /// Stored next due times of these monitors (a hub taking them over
    /// resumes their schedule where the previous owner left it).
    public static func nextDues(_ c: Connection) throws(StoreError) -> [Int64: Int64] {
        var out: [Int64: Int64] = [:]
        for r in try c.query("SELECT id, next_due_ms FROM monitors WHERE next_due_ms IS NOT NULL") {
            out[try r.int("id")] = try r.int("next_due_ms")
        }
        return out
    }

    public static func find(_ c: Connection, pingKey: String) throws(StoreError) -> MonitorRecord? {
        try c.queryOne(SQL.findByPingKey, [.text(pingKey)]).map { r throws(StoreError) in try MonitorRecord(row: r) }
    }

    public static func list(_ c: Connection, filter: MonitorFilter, afterID: Int64?, limit: Int) throws(StoreError) -> [MonitorRecord] {
        let term = filter.query.map(MonitorListing.term)
        let tags = filter.tags.isEmpty ? "" : SQL.allTags(filter.tags.count)
        var args: [SQLValue] = [.integer(afterID ?? 0), SQLValue(filter.status), SQLValue(filter.type), SQLValue(term),
                                .integer(Int64(limit))] + filter.tags.map { .text($0) }
        let sql: String
        if let term, MonitorSearch.usable(term), c.engine == .sqlite {
            sql = SQL.listByTrigram + tags + SQL.listByTrigramEnd
        } else {
            let bySearch = term != nil && filter.tags.isEmpty && c.engine == .sqlite
            var base = filter.status != nil ? SQL.listByStatus : bySearch ? SQL.listBySearch : SQL.list
            if let term, let ids = try MonitorSearch.candidates(c, term: term) {
                base += SQL.candidateIDs(args.count + 1)
                args.append(MonitorSearch.bind(c, ids))
            }
            sql = base + tags + SQL.listEnd
        }
        return try c.query(sql, args).map { r throws(StoreError) in try MonitorRecord(row: r) }
    }

    /// Every monitor, for the scheduler at start-up.
    public static func all(_ c: Connection) throws(StoreError) -> [MonitorRecord] {
        try c.query(SQL.all).map { r throws(StoreError) in try MonitorRecord(row: r) }
    }

    public static func count(_ c: Connection) throws(StoreError) -> Int {
        Int(try c.scalar(SQL.count)?.integerValue ?? 0)
    }

    /// Writes the configuration columns of `m` (not its state).
    public static func updateConfig(_ c: Connection, _ m: MonitorRecord, now: Int64) throws(StoreError) -> MonitorRecord? {
        guard let record = try c.queryOne(SQL.updateConfig, [
            .text(m.name), SQLValue(m.target), .integer(m.interval), .integer(m.timeout), .integer(m.retries),
            .json(m.locations), .integer(m.confirmLocations), SQLValue(m.degradedAfterMs), SQLValue(m.certExpiryDays),
            .json(m.settings), .integer(now), SQLValue(m.priority), SQLValue(m.escalationPolicyID), .json(m.tags),
            .text(m.name), SQLValue(m.target), .integer(m.id),
        ]).map({ r throws(StoreError) in try MonitorRecord(row: r) }) else { return nil }
        try MonitorTags.replace(c, monitorID: record.id, tags: record.tags)
        return record
    }

    public static func updateState(_ c: Connection, id: Int64, status: String, statusSince: Int64, state: String,
                                   paused: Bool) throws(StoreError) {
        try c.executeDeferred(SQL.updateState, [.text(status), .integer(statusSince), .text(state), SQLValue(paused), .integer(id)])
    }

    /// The last check's columns, for `updateState(_:last:)`.
    public struct LastCheck: Sendable {
        public var at: Int64
        public var location: String
        public var status: String
        public var latencyMs: Int64?
        public var statusCode: Int64?
        public var error: String?
        public var certNotAfter: Int64?
        public var packetLoss: Double?
        public init(at: Int64, location: String, status: String, latencyMs: Int64?, statusCode: Int64?, error: String?,
                    certNotAfter: Int64?, packetLoss: Double? = nil) {
            self.at = at
            self.location = location
            self.status = status
            self.latencyMs = latencyMs
            self.statusCode = statusCode
            self.error = error
            self.certNotAfter = certNotAfter
            self.packetLoss = packetLoss
        }
    }

    /// New state and, in the same UPDATE, the last check (one statement per
    /// result on the hot path instead of two).
    public static func updateState(_ c: Connection, id: Int64, status: String, statusSince: Int64, state: String,
                                   paused: Bool, last l: LastCheck) throws(StoreError) {
        try c.executeDeferred(SQL.updateStateAndLast, [.text(status), .integer(statusSince), .text(state), SQLValue(paused),
                                               .integer(l.at), .text(l.location), .text(l.status), SQLValue(l.latencyMs),
                                               SQLValue(l.statusCode), SQLValue(l.error), SQLValue(l.packetLoss),
                                               SQLValue(l.certNotAfter), .integer(id)])
    }

    /// New state and the last check when status, status_since and paused
    /// stay as stored (the hot path's usual case; see `SQL.updateLast`).
    public static func updateState(_ c: Connection, id: Int64, state: String, last l: LastCheck) throws(StoreError) {
        try c.executeDeferred(SQL.updateLast, [.text(state), .integer(l.at), .text(l.location), .text(l.status), SQLValue(l.latencyMs),
                                               SQLValue(l.statusCode), SQLValue(l.error), SQLValue(l.packetLoss),
                                               SQLValue(l.certNotAfter), .integer(id)])
    }

    public static func setNextDue(_ c: Connection, id: Int64, ms: Int64?) throws(StoreError) {
        try c.execute(SQL.setNextDue, [SQLValue(ms), .integer(id)])
    }

    public static func delete(_ c: Connection, id: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.delete, [.integer(id)])
        return c.changes > 0
    }
}

extension Monitors {
    /// What the heartbeat fast path needs of a locked monitor row.
    public struct LockedStatus: Sendable, Equatable {
        public var status: String
        /// A parent's quiet ping still goes through the recorder: a child's
        /// held alert may be waiting for exactly that result.
        public var hasChildren: Bool
    }

    /// The status of each of `ids` that exists (one statement per chunk),
    /// each row locked until COMMIT (`forUpdate`) in id order, so two
    /// writers locking overlapping sets cannot deadlock.
    public static func statusesForUpdate(_ c: Connection, ids: [Int64]) throws(StoreError) -> [Int64: LockedStatus] {
        let sorted = Array(Set(ids)).sorted()
        var out: [Int64: LockedStatus] = [:]
        var start = 0
        for size in BulkRows.chunks(sorted.count) {
            let chunk = sorted[start..<(start + size)]
            start += size
            let sql = "SELECT id, status, has_children FROM monitors WHERE id IN ("
                + Array(repeating: "?", count: size).joined(separator: ", ") + ") ORDER BY id" + c.forUpdate
            for r in try c.query(sql, chunk.map { .integer($0) }) {
                out[try r.int("id")] = LockedStatus(status: try r.text("status"), hasChildren: try r.bool("has_children"))
            }
        }
        return out
    }

    /// Just the status column (the heartbeat fast path's check).
    public static func status(_ c: Connection, id: Int64) throws(StoreError) -> String? {
        if case .text(let s)? = try c.scalar("SELECT status FROM monitors WHERE id = ?", [.integer(id)]) { return s }
        return nil
    }

    /// The last-check columns only, for a result that changes no state.
    public static func touchLast(_ c: Connection, id: Int64, at: Int64, location: String, status: String) throws(StoreError) {
        try c.executeDeferred("""
            UPDATE monitors SET last_at = ?, last_location = ?, last_status = ?, last_latency_ms = NULL,
                last_status_code = NULL, last_error = NULL, last_packet_loss = NULL WHERE id = ? AND coalesce(last_at, 0) <= ?
            """, [.integer(at), .text(location), .text(status), .integer(id), .integer(at)])
    }

    /// When the oldest monitor was created (nil when there are none).
    public static func oldestCreatedAt(_ c: Connection) throws(StoreError) -> Int64? {
        try c.scalar("SELECT min(created_at) FROM monitors")?.integerValue
    }

    /// Every monitor id, ascending (for jobs that walk all monitors).
    public static func ids(_ c: Connection) throws(StoreError) -> [Int64] {
        try c.query("SELECT id FROM monitors ORDER BY id").map { r throws(StoreError) in try r.int("id") }
    }
}
