/// One kept ping as the ping log shows it, with the time of the start ping
/// just before it (nil when the previous kept ping is not a start).
public struct PingLogEntry: Sendable, Equatable {
    public var id: Int64
    public var atMs: Int64
    public var kind: String
    public var exitCode: Int64?
    public var body: [UInt8]
    public var client: String?
    public var userAgent: String?
    public var startAtMs: Int64?
}

extension Heartbeats {
    // The previous ping is one probe of heartbeat_pings_monitor (monitor_id,
    // id) per row of the page, so a page costs the same whatever the log's size.
    static let logPage = """
        SELECT p.id, p.at_ms, p.kind, p.exit_code, p.body, p.client, p.user_agent,
          (SELECT CASE WHEN s.kind = 'start' THEN s.at_ms END FROM heartbeat_pings s
            WHERE s.monitor_id = p.monitor_id AND s.id < p.id ORDER BY s.id DESC LIMIT 1) AS start_ms
        FROM heartbeat_pings p
        WHERE p.monitor_id = ?1 AND (CAST(?2 AS INTEGER) IS NULL OR p.id < ?2)
        ORDER BY p.id DESC LIMIT ?3
        """

    /// A monitor's kept pings, newest first; `beforeID` pages backwards.
    public static func log(_ c: Connection, monitorID: Int64, beforeID: Int64?, limit: Int) throws(StoreError) -> [PingLogEntry] {
        try c.query(logPage, [.integer(monitorID), SQLValue(beforeID), .integer(Int64(limit))]).map { r throws(StoreError) in
            let body: [UInt8]
            if case .blob(let b)? = r["body"] { body = b } else { body = [] }
            return PingLogEntry(id: try r.int("id"), atMs: try r.int("at_ms"), kind: try r.text("kind"),
                                exitCode: try r.optionalInt("exit_code"), body: body, client: try r.optionalText("client"),
                                userAgent: try r.optionalText("user_agent"), startAtMs: try r.optionalInt("start_ms"))
        }
    }
}
