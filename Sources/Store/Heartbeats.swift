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
        static let insertPing = "INSERT INTO heartbeat_pings (monitor_id, at_ms, kind, exit_code, body, client) VALUES (?, ?, ?, ?, ?, ?)"
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

    /// Stores a ping and folds it into the monitor's last-ping state.
    public static func record(_ c: Connection, monitorID: Int64, atMs: Int64, kind: String, exitCode: Int64?,
                              body: [UInt8], client: String?) throws(StoreError) {
        try c.execute(SQL.insertPing, [.integer(monitorID), .integer(atMs), .text(kind), SQLValue(exitCode),
                                       body.isEmpty ? .null : .blob(body), SQLValue(client)])
        let at = atMs / 1000
        switch kind {
        case "success": try c.execute(SQL.upsertSuccess, [.integer(monitorID), .integer(at)])
        case "start": try c.execute(SQL.upsertStart, [.integer(monitorID), .integer(at)])
        default: try c.execute(SQL.upsertFailure, [.integer(monitorID), .integer(at), SQLValue(exitCode)])
        }
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
    /// Monitors that have stored pings (for pruning).
    /// Monitors pinged after ping `afterID`, and the newest ping id: how the
    /// hub that judges a heartbeat learns of pings another hub received.
    public static func pingedSince(_ c: Connection, afterID: Int64) throws(StoreError) -> (monitors: [Int64], lastID: Int64) {
        let rows = try c.query("SELECT monitor_id, max(id) AS last FROM heartbeat_pings WHERE id > ? GROUP BY monitor_id",
                               [.integer(afterID)])
        var last = afterID
        var monitors: [Int64] = []
        for r in rows {
            monitors.append(try r.int("monitor_id"))
            last = max(last, try r.int("last"))
        }
        return (monitors, last)
    }

    public static func newestPingID(_ c: Connection) throws(StoreError) -> Int64 {
        try c.scalar("SELECT coalesce(max(id), 0) FROM heartbeat_pings")?.integerValue ?? 0
    }

    public static func monitorsWithPings(_ c: Connection) throws(StoreError) -> [Int64] {
        try c.query("SELECT DISTINCT monitor_id FROM heartbeat_pings").map { r throws(StoreError) in try r.int("monitor_id") }
    }
}
