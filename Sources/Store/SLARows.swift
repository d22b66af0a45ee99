/// One monitor's check count over a range, read from the three layers of
/// history without overlap (`Reports.checkCounts`).
public struct SLACheckRow: Sendable, Equatable {
    public var monitorID: Int64
    public var name: String
    public var createdAt: Int64
    public var checks: Int64
}

/// A `down` incident's interval; `closedAt` nil while it is open.
public struct DownInterval: Sendable, Equatable {
    public var monitorID: Int64
    public var openedAt: Int64
    public var closedAt: Int64?
}

/// The reads behind SLA reports (SPEC §13). None of them walks raw results
/// except for the part of the range the roll-ups do not cover yet (the last
/// hour or so): a 400-day report costs the same as a 1-day one.
public enum Reports {
    /// The layers as half-open ranges: daily roll-ups and hourly roll-ups by
    /// `bucket_start` (seconds), raw results by `at_ms`. The caller picks them
    /// so they do not overlap.
    public struct Layers: Sendable {
        public var daily: Range<Int64>
        /// Hours before the daily part and after it (either may be empty).
        public var hourlyHead: Range<Int64>
        public var hourlyTail: Range<Int64>
        public var rawMs: Range<Int64>
        public init(daily: Range<Int64>, hourlyHead: Range<Int64>, hourlyTail: Range<Int64>, rawMs: Range<Int64>) {
            (self.daily, self.hourlyHead, self.hourlyTail, self.rawMs) = (daily, hourlyHead, hourlyTail, rawMs)
        }
    }

    // Correlated subqueries: each is a range of an index that starts with
    // monitor_id (the roll-ups' primary key, check_results_monitor_at), so
    // one statement answers for every monitor without scanning either table.
    // Hours are packed a day to a row (`RollupDays`), which SQL cannot sum:
    // they are read and added up apart, `hourlyChecks`.
    static let counts = """
        SELECT m.id, m.name, m.created_at,
          (SELECT CAST(coalesce(sum(r.up + r.degraded + r.down + r.in_maintenance), 0) AS INTEGER) FROM result_rollups r
            WHERE r.monitor_id = m.id AND r.resolution = 86400 AND r.bucket_start >= ?1 AND r.bucket_start < ?2) AS daily,
          (SELECT count(*) FROM check_results x WHERE x.monitor_id = m.id AND x.at_ms >= ?3 AND x.at_ms < ?4) AS raw
        FROM monitors m
        """

    static func bounds(_ l: Layers) -> [SQLValue] {
        [.integer(l.daily.lowerBound), .integer(l.daily.upperBound), .integer(l.rawMs.lowerBound), .integer(l.rawMs.upperBound)]
    }

    /// Check counts of one monitor (`monitorID`) or of every monitor (nil), by id.
    public static func checkCounts(_ c: Connection, monitorID: Int64?, layers: Layers) throws(StoreError) -> [SLACheckRow] {
        let rows: [Row]
        if let monitorID {
            rows = try c.query(counts + " WHERE m.id = ?5", bounds(layers) + [.integer(monitorID)])
        } else {
            rows = try c.query(counts + " ORDER BY m.id", bounds(layers))
        }
        let ids = try rows.map { r throws(StoreError) in try r.int("id") }
        let hourly = try hourlyChecks(c, ids: ids, ranges: [layers.hourlyHead, layers.hourlyTail])
        return try rows.map { r throws(StoreError) in
            let id = try r.int("id")
            return SLACheckRow(monitorID: id, name: try r.text("name"), createdAt: try r.int("created_at"),
                               checks: try r.int("daily") + r.int("raw") + (hourly[id] ?? 0))
        }
    }

    /// The checks of the hours starting in each range, per monitor: one
    /// monitor's days are a range of the key; many monitors' are read a
    /// chunk of ids at a time, each id a range of the key as well.
    static func hourlyChecks(_ c: Connection, ids: [Int64], ranges: [Range<Int64>]) throws(StoreError) -> [Int64: Int64] {
        var out: [Int64: Int64] = [:]
        for range in ranges where !range.isEmpty && !ids.isEmpty {
            let hours = ids.count == 1
                ? [ids[0]: try RollupDays.hours(c, monitorID: ids[0], from: range.lowerBound, to: range.upperBound)]
                : try RollupDays.hours(c, monitorIDs: ids, from: range.lowerBound, to: range.upperBound)
            for (id, records) in hours {
                out[id, default: 0] += records.reduce(0) { $0 + $1.up + $1.degraded + $1.down + $1.inMaintenance }
            }
        }
        return out
    }

    static let downSQL = """
        SELECT monitor_id, opened_at, closed_at FROM incidents
        WHERE kind = 'down' AND opened_at < ?1 AND (closed_at IS NULL OR closed_at >= ?2)
        """

    /// The `down` incidents that overlap [from, to) (closed exactly at `from`
    /// included, for MTTR), of one monitor or of all, in opening order.
    public static func downIntervals(_ c: Connection, monitorID: Int64?, from: Int64, to: Int64) throws(StoreError) -> [DownInterval] {
        let rows: [Row]
        if let monitorID {
            rows = try c.query(downSQL + " AND monitor_id = ?3 ORDER BY opened_at, id", [.integer(to), .integer(from), .integer(monitorID)])
        } else {
            rows = try c.query(downSQL + " ORDER BY monitor_id, opened_at, id", [.integer(to), .integer(from)])
        }
        return try rows.map { r throws(StoreError) in
            DownInterval(monitorID: try r.int("monitor_id"), openedAt: try r.int("opened_at"), closedAt: try r.optionalInt("closed_at"))
        }
    }
}
