import Core

/// Hourly roll-ups a UTC day to a row (docs/storage.md, "Hourly roll-ups,
/// a day to a row").
///
/// An hourly row of `result_rollups` cost 168.6 bytes on PostgreSQL (tuple
/// header, 8-byte integers, the key's B-tree entry, a TEXT histogram), and
/// 100 days of them for 500,000 monitors were 202 GB of a year's 315. One
/// row per monitor and day, its hours in `RollupDayCodec`'s blob, pays the
/// overhead once a day instead of 24 times. Daily roll-ups stay in
/// `result_rollups`: one row a day already.
///
/// The step packs the existing hourly rows into days and deletes them from
/// `result_rollups`, all in the migration's one transaction, a monitor at a
/// time (memory holds one monitor's rows). One pass is acceptable because
/// the databases this upgrades are small, but a hub does not start until it
/// is done (docs/storage.md has its speed). It encodes with the version the
/// codec writes when it runs; the codec keeps reading every version it
/// ever wrote.
enum Schema0032 {
    static let migration = Migration(name: "0032_rollup_days", sql: """
        CREATE TABLE rollup_days (
            monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
            day_start INTEGER NOT NULL,       -- midnight UTC, Unix seconds
            hours BLOB NOT NULL,              -- the day's hourly roll-ups (RollupDayCodec)
            PRIMARY KEY (monitor_id, day_start)
        ) WITHOUT ROWID;
        """, step: moveHourlyRows)

    static let insertDays = BulkRows.Insert("INSERT INTO rollup_days (monitor_id, day_start, hours)", columns: 3)

    @Sendable static func moveHourlyRows(_ c: Connection) throws(StoreError) {
        // Monitors that no longer exist have no rows: the foreign key cascades.
        let monitors = try c.query("SELECT DISTINCT monitor_id FROM result_rollups WHERE resolution = 3600 ORDER BY monitor_id")
            .map { r throws(StoreError) in try r.int("monitor_id") }
        var moved = 0, repaired = 0
        for id in monitors {
            let rows = try c.query("""
                SELECT * FROM result_rollups WHERE monitor_id = ? AND resolution = 3600 ORDER BY bucket_start
                """, [.integer(id)])
            var days: [(dayStart: Int64, hours: [Int64: RollupRecord])] = []
            for row in rows {
                var r = try RollupRecord(row: row)
                if repair(&r) { repaired += 1 }
                let day = RollupDayCodec.dayStart(of: r.bucketStart)
                if days.last?.dayStart != day { days.append((day, [:])) }
                // Two rows of one hour only after a repair: the later one stays.
                days[days.count - 1].hours[r.bucketStart] = r
                moved += 1
            }
            let encoded = try days.map { d throws(StoreError) in
                (d.dayStart, try RollupDayCodec.encode(Array(d.hours.values), dayStart: d.dayStart))
            }
            try BulkRows.run(c, encoded, Self.insertDays) { d, args in
                args.append(.integer(id)); args.append(.integer(d.0)); args.append(.blob(d.1))
            }
        }
        try c.execute("DELETE FROM result_rollups WHERE resolution = 3600")
        if repaired > 0 {
            Log.shared.warn("hourly roll-ups moved with repairs", ["moved": "\(moved)", "repaired": "\(repaired)",
                                                                   "why": "not on a whole hour, a negative count or an unreadable histogram"])
        }
    }

    /// What the hub never wrote but a hand edit could have: a bucket off
    /// the hour (moved to its hour), a negative count (0), a histogram not
    /// in `bucket:count` form (empty: the uptime API skipped such an hour
    /// before, it now counts its checks without latencies). True when
    /// anything changed.
    static func repair(_ r: inout RollupRecord) -> Bool {
        var changed = false
        let start = RollupDayCodec.dayStart(of: r.bucketStart) + (r.bucketStart - RollupDayCodec.dayStart(of: r.bucketStart))
            / RollupDayCodec.hour * RollupDayCodec.hour
        if start != r.bucketStart { (r.bucketStart, changed) = (start, true) }
        for path in [\RollupRecord.up, \.degraded, \.down, \.inMaintenance, \.latencyCount] where r[keyPath: path] < 0 {
            (r[keyPath: path], changed) = (0, true)
        }
        if HistogramText.pairs(r.histogram) == nil { (r.histogram, changed) = ("", true) }
        return changed
    }
}
