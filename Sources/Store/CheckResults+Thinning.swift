/// The few columns of a stored result that thinning decides on.
public struct ResultStatusRow: Sendable, Equatable {
    public var id: Int64
    public var atMs: Int64
    public var location: String
    public var status: String

    public init(id: Int64, atMs: Int64, location: String, status: String) {
        (self.id, self.atMs, self.location, self.status) = (id, atMs, location, status)
    }
}

/// What the retention job needs to thin rolled-up raw results: a light
/// read of one monitor's hour (no error text, latency or code: thinning
/// looks at status and time only) and deletes by row id.
extension CheckResults {
    static let statusesSQL = """
        SELECT id, at_ms, location, status FROM check_results WHERE monitor_id = ? AND at_ms >= ? AND at_ms < ?
        ORDER BY at_ms, id
        """

    /// One monitor's results in `[fromMs, toMs)`, oldest first (ties by the
    /// order recorded), through the (monitor_id, at_ms) index.
    public static func statuses(_ c: Connection, monitorID: Int64, fromMs: Int64, toMs: Int64) throws(StoreError) -> [ResultStatusRow] {
        try c.query(statusesSQL, [.integer(monitorID), .integer(fromMs), .integer(toMs)]).map { r throws(StoreError) in
            ResultStatusRow(id: try r.int("id"), atMs: try r.int("at_ms"), location: try r.text("location"),
                            status: try r.text("status"))
        }
    }

    /// Ids per statement: far below SQLite's 32,766 and PostgreSQL's 65,535
    /// parameters, and one monitor's hour (60 results at 60 s) is one statement.
    static let deleteChunk = 500

    /// Deletes the results with these ids (by primary key); returns how many went.
    public static func delete(_ c: Connection, ids: [Int64]) throws(StoreError) -> Int {
        var deleted = 0
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(ids.count, start + deleteChunk)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            try c.execute("DELETE FROM check_results WHERE id IN (\(marks))", chunk.map { .integer($0) })
            deleted += c.changes
            start += deleteChunk
        }
        return deleted
    }
}
