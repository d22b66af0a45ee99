import CSQLite
import Core

/// Hourly roll-ups, stored a UTC day to a row (`rollup_days`, migration
/// 0032; the blob is `RollupDayCodec`'s). Callers never see the days:
/// `CheckResults` and `BatchReads` hand them in and out as the same
/// per-hour `RollupRecord`s the hourly rows of `result_rollups` were.
enum RollupDays {
    enum SQL {
        static let day = "SELECT hours FROM rollup_days WHERE monitor_id = ? AND day_start = ?"
        static let upsert = """
            INSERT INTO rollup_days (monitor_id, day_start, hours) VALUES (?, ?, ?)
            ON CONFLICT (monitor_id, day_start) DO UPDATE SET hours = excluded.hours
            """
        static let range = """
            SELECT monitor_id, day_start, hours FROM rollup_days WHERE monitor_id = ? AND day_start >= ? AND day_start < ?
            ORDER BY day_start
            """
        static let all = """
            SELECT monitor_id, day_start, hours FROM rollup_days WHERE day_start >= ? AND day_start < ?
            ORDER BY monitor_id, day_start
            """
        // Only the 4-byte header comes back: it says how many hours went.
        static let deleteMonitorBefore = """
            DELETE FROM rollup_days WHERE monitor_id = ? AND day_start < ? RETURNING monitor_id, day_start, substr(hours, 1, 4) AS head
            """
        static let deleteBefore = "DELETE FROM rollup_days WHERE day_start < ? RETURNING monitor_id, day_start, substr(hours, 1, 4) AS head"
    }

    /// Writes each roll-up into its day: per day touched, the day's row is
    /// read (locked on PostgreSQL), the hours merged (a later roll-up of an
    /// hour replaces the stored one) and the row written back, deferred. A
    /// day whose bytes do not decode is replaced by the new hours (logged).
    /// Only the retention job writes hours, on one hub at a time (its
    /// lease), so a day row has one writer; the lock is for safety's sake.
    static func upsert(_ c: Connection, _ hours: [RollupRecord]) throws(StoreError) {
        var order: [DayKey] = []
        var groups: [DayKey: [RollupRecord]] = [:]
        for r in hours {
            let key = DayKey(monitorID: r.monitorID, dayStart: RollupDayCodec.dayStart(of: r.bucketStart))
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(r)
        }
        for key in order {
            let args: [SQLValue] = [.integer(key.monitorID), .integer(key.dayStart)]
            let stored = try c.queryOne(SQL.day + c.forUpdate, args).map { r throws(StoreError) in try r.blob("hours") }
            let new = groups[key] ?? []
            let blob: [UInt8]
            do {
                blob = try RollupDayCodec.merge(stored, new, monitorID: key.monitorID, dayStart: key.dayStart)
            } catch where error.code == SQLITE_CORRUPT {
                // Throwing would fail the retention job's transaction at
                // this day every hour, and with it the whole pass (raw
                // results would pile up). The stored hours are unreadable
                // anyway: the new ones replace them, and the log says so.
                Log.shared.error("replacing damaged hourly roll-ups", ["monitor_id": "\(key.monitorID)", "day_start": "\(key.dayStart)",
                                                                      "error": error.message])
                blob = try RollupDayCodec.merge(nil, new, monitorID: key.monitorID, dayStart: key.dayStart)
            }
            try c.executeDeferred(SQL.upsert, args + [.blob(blob)])
        }
    }

    private struct DayKey: Hashable {
        var monitorID: Int64
        var dayStart: Int64
    }

    /// The first `day_start` that can hold an hour at or after `from`.
    private static func firstDay(_ from: Int64) -> Int64 { RollupDayCodec.dayStart(of: from) }

    /// The hours in `[from, to)` of the day rows read, in row order.
    private static func hours(_ rows: [Row], from: Int64, to: Int64) throws(StoreError) -> [RollupRecord] {
        var out: [RollupRecord] = []
        for row in rows {
            let monitorID = try row.int("monitor_id"), dayStart = try row.int("day_start")
            for r in try RollupDayCodec.decode(try row.blob("hours"), monitorID: monitorID, dayStart: dayStart)
            where r.bucketStart >= from && r.bucketStart < to {
                out.append(r)
            }
        }
        return out
    }

    /// One monitor's hours starting in `[from, to)`, oldest first: a range of
    /// the primary key.
    static func hours(_ c: Connection, monitorID: Int64, from: Int64, to: Int64) throws(StoreError) -> [RollupRecord] {
        guard from < to else { return [] }
        return try hours(try c.query(SQL.range, [.integer(monitorID), .integer(firstDay(from)), .integer(to)]), from: from, to: to)
    }

    /// Several monitors' hours in `[from, to)`, per monitor, oldest first:
    /// one statement per chunk of ids, each a set of key ranges.
    static func hours(_ c: Connection, monitorIDs: [Int64], from: Int64, to: Int64) throws(StoreError) -> [Int64: [RollupRecord]] {
        guard from < to else { return [:] }
        let rows = try BatchReads.chunked(c, Array(Set(monitorIDs)), before: [.integer(firstDay(from)), .integer(to)]) {
            "SELECT monitor_id, day_start, hours FROM rollup_days WHERE day_start >= ? AND day_start < ? AND monitor_id IN (\($0))"
                + " ORDER BY monitor_id, day_start"
        }
        var out: [Int64: [RollupRecord]] = [:]
        for r in try hours(rows, from: from, to: to) { out[r.monitorID, default: []].append(r) }
        return out
    }

    /// Every monitor's hours in `[from, to)`, by monitor, then time (reads
    /// the whole table: for tools and tests).
    static func all(_ c: Connection, from: Int64, to: Int64) throws(StoreError) -> [RollupRecord] {
        guard from < to else { return [] }
        return try hours(try c.query(SQL.all, [.integer(firstDay(from)), .integer(to)]), from: from, to: to)
    }

    /// Deletes the days of one monitor that end at or before `before`: whole
    /// days only, so up to a day more than asked for is kept (the day that
    /// `before` falls in). Returns the hours deleted.
    static func deleteBefore(_ c: Connection, monitorID: Int64, before: Int64) throws(StoreError) -> Int {
        try hourCount(try c.query(SQL.deleteMonitorBefore, [.integer(monitorID), .integer(firstDay(before))]))
    }

    static func deleteBefore(_ c: Connection, before: Int64) throws(StoreError) -> Int {
        try hourCount(try c.query(SQL.deleteBefore, [.integer(firstDay(before))]))
    }

    /// A damaged header counts as no hour: the row is gone all the same,
    /// which is the best that can happen to it.
    private static func hourCount(_ deleted: [Row]) throws(StoreError) -> Int {
        var n = 0
        for row in deleted {
            n += (try? RollupDayCodec.hourCount(try row.blob("head"), monitorID: row.int("monitor_id"),
                                                dayStart: row.int("day_start"))) ?? 0
        }
        return n
    }
}
