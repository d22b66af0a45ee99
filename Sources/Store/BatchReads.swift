/// Reads for many monitors at once (a status page's 1,000, an API page's
/// 500): one statement per chunk of ids (`BulkRows.chunks`, so few distinct
/// texts) instead of one or more per monitor, which on PostgreSQL was one
/// round trip each (issue 20, bench/pages.sh).
public enum BatchReads {
    /// Runs `sql(placeholders)` for each chunk of `ids` and collects the rows.
    static func chunked(_ c: Connection, _ ids: [Int64], before: [SQLValue] = [], after: [SQLValue] = [],
                        _ sql: (String) -> String) throws(StoreError) -> [Row] {
        var rows: [Row] = []
        var start = 0
        for size in BulkRows.chunks(ids.count) {
            let marks = Array(repeating: "?", count: size).joined(separator: ", ")
            rows += try c.query(sql(marks), before + ids[start..<(start + size)].map { .integer($0) } + after)
            start += size
        }
        return rows
    }

    /// `monitors` for the monitors among `ids` that exist, with only the
    /// columns a public status page needs.
    public static func publicMonitors(_ c: Connection, ids: [Int64]) throws(StoreError) -> [Int64: PublicMonitorRow] {
        var out: [Int64: PublicMonitorRow] = [:]
        for r in try chunked(c, Array(Set(ids)), { "SELECT \(PublicMonitorRow.columns) FROM monitors WHERE id IN (\($0))" }) {
            let m = try PublicMonitorRow(row: r)
            out[m.id] = m
        }
        return out
    }

    /// Each monitor's open incidents, by incident id (as `Incidents.openFor`);
    /// monitors without any are absent.
    public static func openIncidents(_ c: Connection, monitorIDs: [Int64]) throws(StoreError) -> [Int64: [IncidentRecord]] {
        var out: [Int64: [IncidentRecord]] = [:]
        let rows = try chunked(c, Array(Set(monitorIDs))) {
            "SELECT * FROM incidents WHERE status = 'open' AND monitor_id IN (\($0)) ORDER BY id"
        }
        for r in rows {
            let i = try IncidentRecord(row: r)
            out[i.monitorID, default: []].append(i)
        }
        for (k, v) in out { out[k] = v.sorted { $0.id < $1.id } }
        return out
    }

    /// Roll-up rows of one resolution in `[from, to)`, per monitor, by bucket
    /// (hourly ones decoded from their days' rows, `RollupDays`).
    public static func rollups(_ c: Connection, monitorIDs: [Int64], resolution: Int64, from: Int64,
                               to: Int64) throws(StoreError) -> [Int64: [RollupRecord]] {
        if resolution == RollupDayCodec.hour { return try RollupDays.hours(c, monitorIDs: monitorIDs, from: from, to: to) }
        var out: [Int64: [RollupRecord]] = [:]
        let rows = try chunked(c, Array(Set(monitorIDs)), before: [.integer(resolution), .integer(from), .integer(to)]) {
            "SELECT * FROM result_rollups WHERE resolution = ? AND bucket_start >= ? AND bucket_start < ? AND monitor_id IN (\($0))"
                + " ORDER BY monitor_id, bucket_start"
        }
        for r in rows {
            let x = try RollupRecord(row: r)
            out[x.monitorID, default: []].append(x)
        }
        return out
    }

    /// Raw results in `[fromMs, toMs)` counted per monitor, UTC day (days
    /// since `dayZero`, Unix seconds at midnight), status and maintenance
    /// flag: what daily bars need, without moving every result.
    public struct DayCount: Sendable, Equatable {
        public var monitorID: Int64
        public var day: Int
        public var status: String
        public var inMaintenance: Bool
        public var count: Int
    }

    public static func dailyCounts(_ c: Connection, monitorIDs: [Int64], dayZero: Int64, fromMs: Int64,
                                   toMs: Int64) throws(StoreError) -> [DayCount] {
        let rows = try chunked(c, Array(Set(monitorIDs)), before: [.integer(dayZero), .integer(fromMs), .integer(toMs)]) {
            """
            SELECT monitor_id, (at_ms / 1000 - ?) / 86400 AS d, status, in_maintenance, count(*) AS n FROM check_results
            WHERE at_ms >= ? AND at_ms < ? AND monitor_id IN (\($0)) GROUP BY monitor_id, d, status, in_maintenance
            """
        }
        return try rows.map { r throws(StoreError) in
            DayCount(monitorID: try r.int("monitor_id"), day: Int(try r.int("d")), status: try r.text("status"),
                     inMaintenance: try r.bool("in_maintenance"), count: Int(try r.int("n")))
        }
    }
}
