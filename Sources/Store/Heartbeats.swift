/// The last pings of a heartbeat monitor (`heartbeat_state`).
public struct HeartbeatStateRecord: Sendable, Equatable {
    public var lastSuccess: Int64?
    public var lastStart: Int64?
    public var lastFailure: Int64?
    public var lastExitCode: Int64?
    public init(lastSuccess: Int64? = nil, lastStart: Int64? = nil, lastFailure: Int64? = nil, lastExitCode: Int64? = nil) {
        self.lastSuccess = lastSuccess
        self.lastStart = lastStart
        self.lastFailure = lastFailure
        self.lastExitCode = lastExitCode
    }
}

/// A stored ping.
public struct PingRecord: Sendable, Equatable {
    public var atMs: Int64
    public var kind: String
    public var exitCode: Int64?
    public var body: [UInt8]
    public var client: String?
}

/// Queries on `heartbeat_pings` and `heartbeat_state`.
public enum Heartbeats {
    enum SQL {
        static let state = "SELECT * FROM heartbeat_state WHERE monitor_id = ?"
        static let upsertSuccess = """
            INSERT INTO heartbeat_state (monitor_id, last_success) VALUES (?1, ?2)
            ON CONFLICT (monitor_id) DO UPDATE SET last_success = CASE WHEN coalesce(heartbeat_state.last_success, 0) > ?2
                THEN heartbeat_state.last_success ELSE ?2 END
            """
        static let upsertStart = """
            INSERT INTO heartbeat_state (monitor_id, last_start) VALUES (?1, ?2)
            ON CONFLICT (monitor_id) DO UPDATE SET last_start = CASE WHEN coalesce(heartbeat_state.last_start, 0) > ?2
                THEN heartbeat_state.last_start ELSE ?2 END
            """
        static let upsertFailure = """
            INSERT INTO heartbeat_state (monitor_id, last_failure, last_exit_code) VALUES (?1, ?2, ?3)
            ON CONFLICT (monitor_id) DO UPDATE SET last_failure = ?2, last_exit_code = ?3
            """
        static let recent = "SELECT at_ms, kind, exit_code, body, client FROM heartbeat_pings WHERE monitor_id = ? ORDER BY id DESC LIMIT ?"
        static let prune = """
            DELETE FROM heartbeat_pings WHERE monitor_id = ?1 AND id <= (
                SELECT id FROM heartbeat_pings WHERE monitor_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)
            """
    }

    /// One ping to store with `insertMany`.
    public struct NewPing: Sendable {
        public var monitorID: Int64
        public var atMs: Int64
        public var kind: String
        public var exitCode: Int64?
        public var body: [UInt8]
        public var client: String?
        public var userAgent: String?
        public init(monitorID: Int64, atMs: Int64, kind: String, exitCode: Int64?, body: [UInt8], client: String?,
                    userAgent: String? = nil) {
            (self.monitorID, self.atMs, self.kind, self.exitCode, self.body, self.client) = (monitorID, atMs, kind, exitCode, body, client)
            self.userAgent = userAgent
        }
    }

    /// Stores a group of pings, in order (ids follow arrival). Takes no row
    /// lock but the foreign key's share lock on each monitor.
    public static func insertMany(_ c: Connection, _ pings: [NewPing]) throws(StoreError) {
        try BulkRows.run(c, pings, insertRows) { p, args in
            args.append(.integer(p.monitorID)); args.append(.integer(p.atMs)); args.append(.text(p.kind))
            args.append(SQLValue(p.exitCode)); args.append(p.body.isEmpty ? .null : .blob(p.body))
            args.append(SQLValue(p.client)); args.append(SQLValue(p.userAgent))
        }
    }

    private static let insertRows = BulkRows.Insert(
        "INSERT INTO heartbeat_pings (monitor_id, at_ms, kind, exit_code, body, client, user_agent)", columns: 7)

    /// Folds a group of pings into each monitor's last-ping state with one
    /// upsert per monitor and kind: the newest success and start, the last
    /// failure, which is what folding them one by one leaves.
    public static func fold(_ c: Connection, _ pings: [NewPing]) throws(StoreError) {
        var success: [Int64: Int64] = [:], start: [Int64: Int64] = [:], failure: [Int64: (Int64, Int64?)] = [:]
        var order: [Int64] = []
        for p in pings {
            if success[p.monitorID] == nil && start[p.monitorID] == nil && failure[p.monitorID] == nil { order.append(p.monitorID) }
            let at = p.atMs / 1000
            switch p.kind {
            case "success": success[p.monitorID] = max(success[p.monitorID] ?? at, at)
            case "start": start[p.monitorID] = max(start[p.monitorID] ?? at, at)
            default: failure[p.monitorID] = (at, p.exitCode)
            }
        }
        for id in order {
            if let at = success[id] { try c.executeDeferred(SQL.upsertSuccess, [.integer(id), .integer(at)]) }
            if let at = start[id] { try c.executeDeferred(SQL.upsertStart, [.integer(id), .integer(at)]) }
            if let (at, code) = failure[id] { try c.executeDeferred(SQL.upsertFailure, [.integer(id), .integer(at), SQLValue(code)]) }
        }
    }

    /// Stores one ping and folds it into the monitor's last-ping state.
    public static func record(_ c: Connection, monitorID: Int64, atMs: Int64, kind: String, exitCode: Int64?,
                              body: [UInt8], client: String?) throws(StoreError) {
        let ping = [NewPing(monitorID: monitorID, atMs: atMs, kind: kind, exitCode: exitCode, body: body, client: client)]
        try insertMany(c, ping)
        try fold(c, ping)
    }

    public static func state(_ c: Connection, monitorID: Int64) throws(StoreError) -> HeartbeatStateRecord {
        guard let r = try c.queryOne(SQL.state, [.integer(monitorID)]) else { return HeartbeatStateRecord() }
        return HeartbeatStateRecord(lastSuccess: try r.optionalInt("last_success"), lastStart: try r.optionalInt("last_start"),
                                    lastFailure: try r.optionalInt("last_failure"), lastExitCode: try r.optionalInt("last_exit_code"))
    }

    public static func recent(_ c: Connection, monitorID: Int64, limit: Int) throws(StoreError) -> [PingRecord] {
        try c.query(SQL.recent, [.integer(monitorID), .integer(Int64(limit))]).map { r throws(StoreError) in
            let body: [UInt8]
            if case .blob(let b)? = r["body"] { body = b } else { body = [] }
            return PingRecord(atMs: try r.int("at_ms"), kind: try r.text("kind"), exitCode: try r.optionalInt("exit_code"),
                              body: body, client: try r.optionalText("client"))
        }
    }

    /// Keeps the newest `keep` pings of a monitor.
    public static func prune(_ c: Connection, monitorID: Int64, keep: Int) throws(StoreError) {
        try c.execute(SQL.prune, [.integer(monitorID), .integer(Int64(keep))])
    }
}

extension Heartbeats {
    /// What one read of the pings since a cursor found: the monitors pinged,
    /// and how to move the cursor (`CommitCursor.take(upTo:holes:appeared:now:)`).
    public struct PingedSince: Sendable, Equatable {
        public var monitors: [Int64]
        /// The newest ping id seen (the cursor's `after` when none is newer).
        public var last: Int64
        /// Ids between the cursor and `last` not committed (yet), ascending;
        /// at most one more than a cursor awaits, which is enough for the
        /// cursor to overflow.
        public var holes: [Int64]
        /// Awaited ids that are there now.
        public var appeared: [Int64]
        /// More holes than a cursor awaits: taking this read overflows it,
        /// and the reader starts again from `last` and judges everything.
        public var tooManyHoles: Bool { holes.count > CommitCursor.maxAwaited }
    }

    /// Monitors pinged since `cursor`: how the hub that judges a heartbeat
    /// learns of pings another hub received. Run in one read (a snapshot on
    /// both engines). Ping ids are handed out at INSERT and become visible
    /// at COMMIT, so with several hubs on PostgreSQL a smaller id can appear
    /// after a larger one. When the new rows are fewer than the ids they
    /// span, the missing ones are found (each row whose predecessor is not
    /// the id before it, over the index) and awaited by the cursor, rather
    /// than every id being read.
    public static func pingedSince(_ c: Connection, cursor: CommitCursor) throws(StoreError) -> PingedSince {
        let after = cursor.after
        var out = PingedSince(monitors: [], last: after, holes: [], appeared: [])
        var monitors = Set<Int64>()
        var count: Int64 = 0
        for r in try c.query("SELECT monitor_id, max(id) AS last, count(*) AS n FROM heartbeat_pings WHERE id > ? GROUP BY monitor_id",
                             [.integer(after)]) {
            monitors.insert(try r.int("monitor_id"))
            out.last = max(out.last, try r.int("last"))
            count += try r.int("n")
        }
        if count < out.last - after {
            let gaps = try c.query("""
                SELECT id, prev FROM (
                    SELECT id, lag(id) OVER (ORDER BY id) AS prev FROM heartbeat_pings WHERE id > ? AND id <= ?
                ) AS t WHERE prev IS NULL OR prev < id - 1 ORDER BY id
                """, [.integer(after), .integer(out.last)])
            let room = CommitCursor.maxAwaited + 1
            for r in gaps where out.holes.count < room {
                let from = try r.optionalInt("prev") ?? after
                let id = try r.int("id")
                guard from + 1 < id else { continue }
                out.holes += Array((from + 1)..<min(id, from + 1 + Int64(room - out.holes.count)))
            }
        }
        for r in try BulkRows.rows(c, "SELECT id, monitor_id FROM heartbeat_pings WHERE id", in: cursor.awaited) {
            out.appeared.append(try r.int("id"))
            monitors.insert(try r.int("monitor_id"))
        }
        out.monitors = monitors.sorted()
        return out
    }

    public static func newestPingID(_ c: Connection) throws(StoreError) -> Int64 {
        try c.scalar("SELECT coalesce(max(id), 0) FROM heartbeat_pings")?.integerValue ?? 0
    }

    /// Monitors that have stored pings (for pruning).
    public static func monitorsWithPings(_ c: Connection) throws(StoreError) -> [Int64] {
        try c.query("SELECT DISTINCT monitor_id FROM heartbeat_pings").map { r throws(StoreError) in try r.int("monitor_id") }
    }
}
