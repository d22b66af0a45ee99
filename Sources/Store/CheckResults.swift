/// One stored check result.
public struct CheckResultRecord: Sendable, Equatable {
    public var id: Int64 = 0
    public var monitorID: Int64
    public var atMs: Int64
    public var location: String
    /// "up", "degraded" or "down".
    public var status: String
    public var latencyMs: Int64?
    public var statusCode: Int64?
    public var error: String?
    public var inMaintenance: Bool
    /// Ping checks: 0–1 (SPEC §12); nil for other types.
    public var packetLoss: Double?

    public init(monitorID: Int64, atMs: Int64, location: String, status: String, latencyMs: Int64?,
                statusCode: Int64?, error: String?, inMaintenance: Bool, packetLoss: Double? = nil) {
        self.monitorID = monitorID
        self.atMs = atMs
        self.location = location
        self.status = status
        self.latencyMs = latencyMs
        self.statusCode = statusCode
        self.error = error
        self.inMaintenance = inMaintenance
        self.packetLoss = packetLoss
    }

    init(row r: Row) throws(StoreError) {
        self.init(monitorID: try r.int("monitor_id"), atMs: try r.int("at_ms"), location: try r.text("location"),
                  status: try r.text("status"), latencyMs: try r.optionalInt("latency_ms"),
                  statusCode: try r.optionalInt("status_code"), error: try r.optionalText("error"),
                  inMaintenance: try r.bool("in_maintenance"), packetLoss: try r.optionalDouble("packet_loss"))
        id = try r.int("id")
    }
}

/// One hourly or daily aggregate of a monitor's results. Daily ones are rows
/// of `result_rollups`; hourly ones are stored a day to a row
/// (`rollup_days`, `RollupDays`) and come back as one record per hour.
public struct RollupRecord: Sendable, Equatable {
    public var monitorID: Int64
    public var resolution: Int64
    public var bucketStart: Int64
    public var up: Int64
    public var degraded: Int64
    public var down: Int64
    public var inMaintenance: Int64
    public var latencySum: Int64
    public var latencyCount: Int64
    /// The latency histogram in its stored text form.
    public var histogram: String

    public init(monitorID: Int64, resolution: Int64, bucketStart: Int64, up: Int64, degraded: Int64, down: Int64,
                inMaintenance: Int64, latencySum: Int64, latencyCount: Int64, histogram: String) {
        self.monitorID = monitorID
        self.resolution = resolution
        self.bucketStart = bucketStart
        self.up = up
        self.degraded = degraded
        self.down = down
        self.inMaintenance = inMaintenance
        self.latencySum = latencySum
        self.latencyCount = latencyCount
        self.histogram = histogram
    }

    init(row r: Row) throws(StoreError) {
        self.init(monitorID: try r.int("monitor_id"), resolution: try r.int("resolution"),
                  bucketStart: try r.int("bucket_start"), up: try r.int("up"), degraded: try r.int("degraded"),
                  down: try r.int("down"), inMaintenance: try r.int("in_maintenance"),
                  latencySum: try r.int("latency_sum"), latencyCount: try r.int("latency_count"),
                  histogram: try r.text("histogram"))
    }
}

/// Queries on `check_results`, `result_rollups` and (through `RollupDays`)
/// `rollup_days`.
public enum CheckResults {
    enum SQL {
        static let insert = """
            INSERT INTO check_results (monitor_id, at_ms, location, status, latency_ms, status_code, error, in_maintenance,
                packet_loss) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        static let list = """
            SELECT * FROM check_results WHERE monitor_id = ?1 AND at_ms >= ?2 AND at_ms < ?3
              AND (CAST(?4 AS TEXT) IS NULL OR location = ?4) AND (CAST(?5 AS INTEGER) IS NULL OR id < ?5)
            ORDER BY at_ms DESC, id DESC LIMIT ?6
            """
        static let exists = "SELECT 1 FROM check_results WHERE monitor_id = ? AND at_ms = ? AND location = ? LIMIT 1"
        static let range = "SELECT * FROM check_results WHERE monitor_id = ? AND at_ms >= ? AND at_ms < ? ORDER BY at_ms"
        static let deleteBefore = "DELETE FROM check_results WHERE monitor_id = ? AND at_ms < ?"
        static let upsertRollup = """
            INSERT INTO result_rollups (monitor_id, resolution, bucket_start, up, degraded, down,
                in_maintenance, latency_sum, latency_count, histogram) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (monitor_id, resolution, bucket_start) DO UPDATE SET up = excluded.up, degraded = excluded.degraded,
                down = excluded.down, in_maintenance = excluded.in_maintenance, latency_sum = excluded.latency_sum,
                latency_count = excluded.latency_count, histogram = excluded.histogram
            """
        static let rollups = """
            SELECT * FROM result_rollups WHERE monitor_id = ? AND resolution = ? AND bucket_start >= ? AND bucket_start < ?
            ORDER BY bucket_start
            """
        static let rollupsAll = """
            SELECT * FROM result_rollups WHERE resolution = ? AND bucket_start >= ? AND bucket_start < ?
            ORDER BY monitor_id, bucket_start
            """
        static let deleteRollupsBefore = "DELETE FROM result_rollups WHERE resolution = ? AND bucket_start < ?"
        static let deleteMonitorRollupsBefore = """
            DELETE FROM result_rollups WHERE monitor_id = ? AND resolution = ? AND bucket_start < ?
            """
    }

    /// Several results in multi-row statements (a group of heartbeat pings).
    public static func insertMany(_ c: Connection, _ rows: [CheckResultRecord]) throws(StoreError) {
        try BulkRows.run(c, rows, insertRows) { r, args in
            args.append(.integer(r.monitorID)); args.append(.integer(r.atMs)); args.append(.text(r.location))
            args.append(.text(r.status)); args.append(SQLValue(r.latencyMs)); args.append(SQLValue(r.statusCode))
            args.append(SQLValue(r.error)); args.append(SQLValue(r.inMaintenance)); args.append(SQLValue(r.packetLoss))
        }
    }

    private static let insertRows = BulkRows.Insert(
        "INSERT INTO check_results (monitor_id, at_ms, location, status, latency_ms, status_code, error, in_maintenance, packet_loss)",
        columns: 9)

    public static func insert(_ c: Connection, _ r: CheckResultRecord) throws(StoreError) {
        try c.executeDeferred(SQL.insert, [.integer(r.monitorID), .integer(r.atMs), .text(r.location), .text(r.status),
                                   SQLValue(r.latencyMs), SQLValue(r.statusCode), SQLValue(r.error), SQLValue(r.inMaintenance),
                                   SQLValue(r.packetLoss)])
    }

    /// The row id of the monitor's newest result (by time, then by the order
    /// recorded); served by the (monitor_id, at_ms) index. Dependencies
    /// compare these ids: "recorded after" is finer than a second.
    public static func newestID(_ c: Connection, monitorID: Int64) throws(StoreError) -> Int64? {
        try c.queryOne("SELECT id FROM check_results WHERE monitor_id = ? ORDER BY at_ms DESC, id DESC LIMIT 1",
                       [.integer(monitorID)]).map { r throws(StoreError) in try r.int("id") }
    }

    /// Whether that location's result of that millisecond is stored: agents
    /// retry uploads after a timeout, and a retried result must not count twice.
    /// Served by the (monitor_id, at_ms) index.
    public static func exists(_ c: Connection, monitorID: Int64, location: String, atMs: Int64) throws(StoreError) -> Bool {
        try c.queryOne(SQL.exists, [.integer(monitorID), .integer(atMs), .text(location)]) != nil
    }

    /// Newest first, for the history API: `beforeID` pages backwards.
    public static func list(_ c: Connection, monitorID: Int64, sinceMs: Int64, untilMs: Int64, location: String?,
                            beforeID: Int64?, limit: Int) throws(StoreError) -> [CheckResultRecord] {
        try c.query(SQL.list, [.integer(monitorID), .integer(sinceMs), .integer(untilMs), SQLValue(location),
                               SQLValue(beforeID), .integer(Int64(limit))]).map { r throws(StoreError) in
            try CheckResultRecord(row: r)
        }
    }

    /// Oldest first, for uptime and roll-ups.
    public static func range(_ c: Connection, monitorID: Int64, fromMs: Int64, toMs: Int64) throws(StoreError) -> [CheckResultRecord] {
        try c.query(SQL.range, [.integer(monitorID), .integer(fromMs), .integer(toMs)]).map { r throws(StoreError) in
            try CheckResultRecord(row: r)
        }
    }

    /// Deletes one monitor's results older than `ms` (retention, per monitor
    /// so it uses the monitor/time index).
    public static func deleteBefore(_ c: Connection, monitorID: Int64, ms: Int64) throws(StoreError) -> Int {
        try c.execute(SQL.deleteBefore, [.integer(monitorID), .integer(ms)])
        return c.changes
    }

    /// Deferred: the retention job writes many in a transaction, and on
    /// PostgreSQL each would otherwise wait for its own round trip. An
    /// hourly roll-up (resolution 3600) goes into its day's row of
    /// `rollup_days` (`RollupDays`): a read of that row, then the deferred
    /// write. It must start on a whole UTC hour.
    public static func upsertRollup(_ c: Connection, _ r: RollupRecord) throws(StoreError) {
        if r.resolution == RollupDayCodec.hour { return try RollupDays.upsert(c, [r]) }
        try c.executeDeferred(SQL.upsertRollup, [.integer(r.monitorID), .integer(r.resolution), .integer(r.bucketStart),
                                         .integer(r.up), .integer(r.degraded), .integer(r.down), .integer(r.inMaintenance),
                                         .integer(r.latencySum), .integer(r.latencyCount), .text(r.histogram)])
    }

    /// Several roll-ups at once: the hourly ones of one day cost one
    /// read and one write of its row, however many they are.
    public static func upsertRollups(_ c: Connection, _ rs: [RollupRecord]) throws(StoreError) {
        try RollupDays.upsert(c, rs.filter { $0.resolution == RollupDayCodec.hour })
        for r in rs where r.resolution != RollupDayCodec.hour { try upsertRollup(c, r) }
    }

    /// Roll-ups whose bucket starts in `[from, to)`, oldest first. Hourly
    /// ones come from their days' rows, as the same per-hour records.
    public static func rollups(_ c: Connection, monitorID: Int64, resolution: Int64, from: Int64, to: Int64) throws(StoreError) -> [RollupRecord] {
        if resolution == RollupDayCodec.hour { return try RollupDays.hours(c, monitorID: monitorID, from: from, to: to) }
        return try c.query(SQL.rollups, [.integer(monitorID), .integer(resolution), .integer(from), .integer(to)]).map { r throws(StoreError) in
            try RollupRecord(row: r)
        }
    }

    public static func rollupsAll(_ c: Connection, resolution: Int64, from: Int64, to: Int64) throws(StoreError) -> [RollupRecord] {
        if resolution == RollupDayCodec.hour { return try RollupDays.all(c, from: from, to: to) }
        return try c.query(SQL.rollupsAll, [.integer(resolution), .integer(from), .integer(to)]).map { r throws(StoreError) in
            try RollupRecord(row: r)
        }
    }

    /// One monitor's roll-ups of a resolution older than `before`: a range of
    /// the primary key (monitor_id, resolution, bucket_start). Without the
    /// monitor the delete scans the whole table. Hourly roll-ups go a whole
    /// day at a time (`RollupDays.deleteBefore`: the day `before` falls in
    /// is kept); the count is of hours.
    public static func deleteRollupsBefore(_ c: Connection, monitorID: Int64, resolution: Int64, before: Int64) throws(StoreError) -> Int {
        if resolution == RollupDayCodec.hour { return try RollupDays.deleteBefore(c, monitorID: monitorID, before: before) }
        try c.execute(SQL.deleteMonitorRollupsBefore, [.integer(monitorID), .integer(resolution), .integer(before)])
        return c.changes
    }

    public static func deleteRollupsBefore(_ c: Connection, resolution: Int64, before: Int64) throws(StoreError) -> Int {
        if resolution == RollupDayCodec.hour { return try RollupDays.deleteBefore(c, before: before) }
        try c.execute(SQL.deleteRollupsBefore, [.integer(resolution), .integer(before)])
        return c.changes
    }
}
