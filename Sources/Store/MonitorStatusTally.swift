/// Monitors per status, from the deltas migration 0031's triggers append
/// to `monitor_status_tally`, so a dashboard page reads a few rows instead
/// of counting every monitor. Exact in every transaction: the deltas are
/// written in the transaction that changes the monitor.
public enum MonitorStatusTally {
    /// The counts and how many delta rows made them (what a fold would
    /// shrink to one row per status).
    public struct Reading: Sendable, Equatable {
        /// Statuses nobody has are absent.
        public var counts: [String: Int]
        public var rows: Int
    }

    /// Above this many rows a reader asks for a fold (`MonitoringService`):
    /// a few hundred rows sum in well under a millisecond; a mass outage
    /// appends two per monitor.
    public static let foldAbove = 512

    public static func read(_ c: Connection) throws(StoreError) -> Reading {
        var out = Reading(counts: [:], rows: 0)
        let sql = "SELECT status, CAST(sum(n) AS BIGINT) AS n, count(*) AS k FROM monitor_status_tally GROUP BY status"
        for r in try c.query(sql) {
            out.rows += Int(try r.int("k"))
            let n = Int(try r.int("n"))
            if n > 0 { out.counts[try r.text("status")] = n }
        }
        return out
    }

    /// Replaces the deltas by one row per status with their sum; returns
    /// the rows removed. In a write transaction.
    ///
    /// On PostgreSQL one statement: the DELETE takes the rows committed
    /// before it started and the INSERT writes their sums, while deltas
    /// that other transactions append meanwhile are neither deleted nor
    /// summed, so they still count once. Two hubs folding at once: the
    /// second's DELETE waits for the first's rows, finds them gone and
    /// skips them. On SQLite the write transaction is the only writer.
    @discardableResult
    public static func fold(_ c: Connection) throws(StoreError) -> Int {
        switch c.engine {
        case .postgres:
            let r = try c.queryOne("""
                WITH d AS (DELETE FROM monitor_status_tally RETURNING status, n),
                     s AS (INSERT INTO monitor_status_tally (status, n)
                           SELECT status, sum(n) FROM d GROUP BY status HAVING sum(n) <> 0 RETURNING 1)
                SELECT (SELECT count(*) FROM d) - (SELECT count(*) FROM s) AS removed
                """)
            return Int(try r?.int("removed") ?? 0)
        case .sqlite:
            let sums = try c.query("SELECT status, sum(n) AS n, count(*) AS k FROM monitor_status_tally GROUP BY status")
            try c.execute("DELETE FROM monitor_status_tally")
            var removed = 0
            for r in sums {
                let n = try r.int("n")
                removed += Int(try r.int("k"))
                if n != 0 {
                    try c.execute("INSERT INTO monitor_status_tally (status, n) VALUES (?, ?)", [.text(try r.text("status")), .integer(n)])
                    removed -= 1
                }
            }
            return removed
        }
    }
}
