import CSQLite

/// The blob of one `rollup_days` row: a monitor's hourly roll-ups of one UTC
/// day (docs/storage.md, "Hourly roll-ups, a day to a row").
///
/// One row per hour cost 168 bytes on PostgreSQL, most of it the tuple
/// header, 8-byte integers, the key's B-tree entry and a TEXT histogram;
/// the numbers themselves are a dozen bytes. So the day's hours share one
/// row, and each hour is written as small variable-length integers:
///
///     version          1 byte (1)
///     hours present    3 bytes, bit h (little-endian) set when hour h of the day has a roll-up
///     per present hour, ascending:
///       flags          1 byte: 1 degraded, 2 down, 4 in_maintenance, 8 latency_sum,
///                      16 latency_count follow (each only when not zero; latency_count
///                      only when it differs from the histogram's total, which
///                      the retention job never makes it do); bits 32–128 must be 0
///       up             varint
///       degraded, down, in_maintenance, latency_sum (zigzag), latency_count
///                      varints, each when its flag is set
///       pairs          varint: the histogram's non-empty buckets
///       per pair       varint bucket − previous bucket − 1 (the first: the bucket), varint count
///
/// A varint is unsigned LEB128 (7 bits a byte, low first, at most 10 bytes).
/// A typical hour (60 checks, all up, latencies in 2–3 buckets) is 9–11
/// bytes. The histogram arrives and leaves in `RollupRecord`'s text form
/// (`LatencyHistogram.encoded`: `bucket:count` pairs, ascending), so callers
/// see exactly what they stored.
///
/// The bytes come from our own database, but a damaged page or a hand edit
/// must not crash the hub: `decode` checks every length and value and
/// throws `SQLITE_CORRUPT` naming the row. A later encoding takes the next
/// version number, `decode` keeps reading the old ones, and it ships with a
/// migration (an empty one will do): a binary that does not know the new
/// version then refuses the database rather than take its rows for damage
/// (`RollupDays.upsert` replaces a day it cannot decode).
enum RollupDayCodec {
    static let version: UInt8 = 1
    static let hour: Int64 = 3600
    static let day: Int64 = 86_400

    enum Flag {
        static let degraded: UInt8 = 1, down: UInt8 = 2, inMaintenance: UInt8 = 4, latencySum: UInt8 = 8, latencyCount: UInt8 = 16
        static let known: UInt8 = 31
    }

    /// Midnight (UTC) of the day `t` falls in, also before 1970; Int64.min
    /// for the first day Int64 can hold, whose midnight it cannot.
    static func dayStart(of t: Int64) -> Int64 {
        let (q, r) = (t / day, t % day)
        let (start, overflow) = (r < 0 ? q - 1 : q).multipliedReportingOverflow(by: day)
        return overflow ? Int64.min : start
    }

    /// The hour of the day a roll-up starts at, 0–23; throws unless it starts
    /// on a whole hour of `dayStart`'s day.
    static func hourIndex(_ bucketStart: Int64, dayStart: Int64) throws(StoreError) -> Int {
        let (offset, overflow) = bucketStart.subtractingReportingOverflow(dayStart)
        guard !overflow, offset >= 0, offset < day, offset % hour == 0 else {
            throw StoreError.misuse("an hourly roll-up must start on a whole UTC hour (bucket_start \(bucketStart))")
        }
        return Int(offset / hour)
    }

    /// `hours`: roll-ups of `dayStart`'s day, at most one per hour, in any
    /// order. Throws `misuse` for what cannot be stored: a negative count,
    /// a histogram not in `bucket:count` form.
    static func encode(_ hours: [RollupRecord], dayStart: Int64) throws(StoreError) -> [UInt8] {
        var seen = Set<Int>()
        for r in hours where !seen.insert(try hourIndex(r.bucketStart, dayStart: dayStart)).inserted {
            throw StoreError.misuse("two roll-ups of the hour \(r.bucketStart) for one day")
        }
        return try merge(nil, hours, monitorID: hours.first?.monitorID ?? 0, dayStart: dayStart)
    }

    /// `stored` (nil: a new day) with `hours` written into it; a new hour
    /// replaces a stored one, the later of two new ones wins. Stored hours
    /// are checked but keep their bytes, not decoded into records and
    /// encoded again: the retention job does this for every monitor every
    /// hour, and the text histograms made that 18 times the cost of a
    /// plain row's upsert (53 against 3 µs on SQLite).
    static func merge(_ stored: [UInt8]?, _ hours: [RollupRecord], monitorID: Int64, dayStart: Int64) throws(StoreError) -> [UInt8] {
        var slots: [ArraySlice<UInt8>?] = Array(repeating: nil, count: 24)
        if let stored {
            var reader = RollupDayReader(bytes: stored, monitorID: monitorID, dayStart: dayStart)
            let mask = try reader.header()
            for h in 0..<24 where mask & (1 << UInt32(h)) != 0 {
                let start = reader.position
                _ = try reader.fields(hourStart: dayStart + Int64(h) * hour)
                slots[h] = stored[start..<reader.position]
            }
            try reader.expectEnd()
        }
        for r in hours {
            var segment: [UInt8] = []
            try append(r, to: &segment)
            slots[try hourIndex(r.bucketStart, dayStart: dayStart)] = segment[...]
        }
        var out: [UInt8] = [version, 0, 0, 0]
        out.reserveCapacity(4 + 12 * 24)
        for (h, slot) in slots.enumerated() {
            guard let slot else { continue }
            out[1 + h / 8] |= 1 << UInt8(h % 8)
            out += slot
        }
        return out
    }

    private static func append(_ r: RollupRecord, to out: inout [UInt8]) throws(StoreError) {
        for (name, v) in [("up", r.up), ("degraded", r.degraded), ("down", r.down), ("in_maintenance", r.inMaintenance),
                          ("latency_count", r.latencyCount)] where v < 0 {
            throw StoreError.misuse("roll-up of \(r.bucketStart): \(name) is negative (\(v))")
        }
        guard let pairs = HistogramText.pairs(r.histogram) else {
            throw StoreError.misuse("roll-up of \(r.bucketStart): the histogram is not in bucket:count form")
        }
        let total = pairs.reduce(0) { $0 + $1.count }  // fits: HistogramText.pairs checked
        let explicitCount = total != r.latencyCount
        var flags: UInt8 = 0
        if r.degraded != 0 { flags |= Flag.degraded }
        if r.down != 0 { flags |= Flag.down }
        if r.inMaintenance != 0 { flags |= Flag.inMaintenance }
        if r.latencySum != 0 { flags |= Flag.latencySum }
        if explicitCount { flags |= Flag.latencyCount }
        out.append(flags)
        putVarint(UInt64(r.up), &out)
        if r.degraded != 0 { putVarint(UInt64(r.degraded), &out) }
        if r.down != 0 { putVarint(UInt64(r.down), &out) }
        if r.inMaintenance != 0 { putVarint(UInt64(r.inMaintenance), &out) }
        if r.latencySum != 0 { putVarint(zigzag(r.latencySum), &out) }
        if explicitCount { putVarint(UInt64(r.latencyCount), &out) }
        putVarint(UInt64(pairs.count), &out)
        var previous: Int64 = -1
        for p in pairs {
            putVarint(UInt64(p.bucket - (previous + 1)), &out)
            putVarint(UInt64(p.count), &out)
            previous = p.bucket
        }
    }

    /// The roll-ups a blob holds, by hour, with `monitorID` and the day's
    /// hours as their keys.
    static func decode(_ bytes: [UInt8], monitorID: Int64, dayStart: Int64) throws(StoreError) -> [RollupRecord] {
        var reader = RollupDayReader(bytes: bytes, monitorID: monitorID, dayStart: dayStart)
        let mask = try reader.header()
        var out: [RollupRecord] = []
        out.reserveCapacity(mask.nonzeroBitCount)
        for h in 0..<24 where mask & (1 << UInt32(h)) != 0 {
            let start = dayStart + Int64(h) * hour
            let f = try reader.fields(hourStart: start)
            out.append(RollupRecord(monitorID: monitorID, resolution: hour, bucketStart: start, up: f.up, degraded: f.degraded,
                                    down: f.down, inMaintenance: f.inMaintenance, latencySum: f.latencySum,
                                    latencyCount: f.latencyCount, histogram: HistogramText.text(f.pairs)))
        }
        try reader.expectEnd()
        return out
    }

    /// How many hours a blob holds, from its header alone (retention counts
    /// what it deletes).
    static func hourCount(_ bytes: [UInt8], monitorID: Int64, dayStart: Int64) throws(StoreError) -> Int {
        var reader = RollupDayReader(bytes: bytes, monitorID: monitorID, dayStart: dayStart)
        return try reader.header().nonzeroBitCount
    }

    // MARK: varints

    static func putVarint(_ value: UInt64, _ out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    static func unzigzag(_ u: UInt64) -> Int64 { Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1))) }
}
