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
/// version number; `decode` keeps reading the old ones.
enum RollupDayCodec {
    static let version: UInt8 = 1
    static let hour: Int64 = 3600
    static let day: Int64 = 86_400

    private enum Flag {
        static let degraded: UInt8 = 1, down: UInt8 = 2, inMaintenance: UInt8 = 4, latencySum: UInt8 = 8, latencyCount: UInt8 = 16
        static let known: UInt8 = 31
    }

    /// Midnight (UTC) of the day `t` falls in, also before 1970.
    static func dayStart(of t: Int64) -> Int64 {
        let (q, r) = (t / day, t % day)
        return (r < 0 ? q - 1 : q) * day
    }

    /// The hour of the day a roll-up starts at, 0–23; throws unless it starts
    /// on a whole hour of `dayStart`'s day.
    static func hourIndex(_ bucketStart: Int64, dayStart: Int64) throws(StoreError) -> Int {
        let offset = bucketStart - dayStart
        guard offset >= 0, offset < day, offset % hour == 0 else {
            throw StoreError.misuse("an hourly roll-up must start on a whole UTC hour (bucket_start \(bucketStart))")
        }
        return Int(offset / hour)
    }

    /// `hours`: roll-ups of `dayStart`'s day, at most one per hour, in any
    /// order. Throws `misuse` for what cannot be stored: a negative count,
    /// a histogram not in `bucket:count` form.
    static func encode(_ hours: [RollupRecord], dayStart: Int64) throws(StoreError) -> [UInt8] {
        var byHour: [RollupRecord?] = Array(repeating: nil, count: 24)
        for r in hours {
            let h = try hourIndex(r.bucketStart, dayStart: dayStart)
            guard byHour[h] == nil else { throw StoreError.misuse("two roll-ups of the hour \(r.bucketStart) for one day") }
            byHour[h] = r
        }
        var out: [UInt8] = [version, 0, 0, 0]
        out.reserveCapacity(4 + 12 * hours.count)
        for (h, slot) in byHour.enumerated() {
            guard let r = slot else { continue }
            out[1 + h / 8] |= 1 << UInt8(h % 8)
            try append(r, to: &out)
        }
        return out
    }

    private static func append(_ r: RollupRecord, to out: inout [UInt8]) throws(StoreError) {
        for (name, v) in [("up", r.up), ("degraded", r.degraded), ("down", r.down), ("in_maintenance", r.inMaintenance),
                          ("latency_count", r.latencyCount)] where v < 0 {
            throw StoreError.misuse("roll-up of \(r.bucketStart): \(name) is negative (\(v))")
        }
        guard let pairs = histogramPairs(r.histogram) else {
            throw StoreError.misuse("roll-up of \(r.bucketStart): the histogram is not in bucket:count form")
        }
        let total = pairs.reduce(0) { $0 + $1.count }  // fits: histogramPairs checked
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
        var reader = Reader(bytes: bytes, monitorID: monitorID, dayStart: dayStart)
        let mask = try reader.header()
        var out: [RollupRecord] = []
        out.reserveCapacity(mask.nonzeroBitCount)
        for h in 0..<24 where mask & (1 << UInt32(h)) != 0 {
            out.append(try reader.hour(start: dayStart + Int64(h) * hour))
        }
        guard reader.atEnd else { throw reader.corrupt("\(bytes.count - reader.position) bytes after the last hour") }
        return out
    }

    /// How many hours a blob holds, from its header alone (retention counts
    /// what it deletes).
    static func hourCount(_ bytes: [UInt8], monitorID: Int64, dayStart: Int64) throws(StoreError) -> Int {
        var reader = Reader(bytes: bytes, monitorID: monitorID, dayStart: dayStart)
        return try reader.header().nonzeroBitCount
    }

    // MARK: histogram text

    /// `"3:5,12:40"` as pairs; nil unless every pair is `digits:digits`
    /// with buckets strictly ascending, and the numbers and their total fit
    /// 63 bits. The rules are `LatencyHistogram(encoded:)`'s (Monitoring
    /// owns the buckets themselves).
    static func histogramPairs(_ text: String) -> [(bucket: Int64, count: Int64)]? {
        var pairs: [(bucket: Int64, count: Int64)] = []
        guard !text.isEmpty else { return pairs }
        var total: Int64 = 0
        for item in text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let parts = item.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard parts.count == 2, let bucket = number(parts[0]), let count = number(parts[1]),
                  bucket > (pairs.last?.bucket ?? -1)
            else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(count)
            guard !overflow else { return nil }
            pairs.append((bucket, count))
            total = sum
        }
        return pairs
    }

    private static func number(_ digits: Substring.UTF8View) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var n: Int64 = 0
        for d in digits {
            guard d >= 48, d <= 57 else { return nil }
            let (times, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(d - 48))
            guard !o1, !o2 else { return nil }
            n = sum
        }
        return n
    }

    static func histogramText(_ pairs: [(bucket: Int64, count: Int64)]) -> String {
        var s = ""
        for (i, p) in pairs.enumerated() {
            if i > 0 { s += "," }
            s += "\(p.bucket):\(p.count)"
        }
        return s
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

    /// Reads one blob front to back; every read checks what is left.
    private struct Reader {
        let bytes: [UInt8]
        let monitorID: Int64
        let dayStart: Int64
        var position = 0

        init(bytes: [UInt8], monitorID: Int64, dayStart: Int64) {
            (self.bytes, self.monitorID, self.dayStart) = (bytes, monitorID, dayStart)
        }

        var atEnd: Bool { position == bytes.count }

        func corrupt(_ why: String) -> StoreError {
            StoreError(code: SQLITE_CORRUPT, message: "corrupt hourly roll-ups of monitor \(monitorID), day \(dayStart) "
                + "(rollup_days.hours, \(bytes.count) bytes): \(why)")
        }

        /// The version byte and the mask of hours present.
        mutating func header() throws(StoreError) -> UInt32 {
            guard bytes.count >= 4 else { throw corrupt("shorter than its 4-byte header") }
            guard bytes[0] == RollupDayCodec.version else { throw corrupt("unknown encoding version \(bytes[0])") }
            position = 4
            return UInt32(bytes[1]) | UInt32(bytes[2]) << 8 | UInt32(bytes[3]) << 16
        }

        mutating func hour(start: Int64) throws(StoreError) -> RollupRecord {
            guard position < bytes.count else { throw corrupt("ends before the hour starting \(start)") }
            let flags = bytes[position]
            position += 1
            guard flags & ~Flag.known == 0 else { throw corrupt("unknown flags \(flags) in the hour starting \(start)") }
            let up = try count()
            let degraded = flags & Flag.degraded != 0 ? try count() : 0
            let down = flags & Flag.down != 0 ? try count() : 0
            let inMaintenance = flags & Flag.inMaintenance != 0 ? try count() : 0
            let latencySum = flags & Flag.latencySum != 0 ? unzigzag(try varint()) : 0
            let explicitCount: Int64? = flags & Flag.latencyCount != 0 ? try count() : nil
            let n = try varint()
            // Each pair takes at least two bytes: a larger count is damage,
            // and must not become a huge allocation.
            guard n <= UInt64(bytes.count - position) / 2 else { throw corrupt("\(n) histogram buckets in too few bytes") }
            var pairs: [(bucket: Int64, count: Int64)] = []
            pairs.reserveCapacity(Int(n))
            var previous: Int64 = -1, total: Int64 = 0
            for _ in 0..<n {
                let gap = try count()
                let (next, o1) = previous.addingReportingOverflow(1)
                let (bucket, o2) = next.addingReportingOverflow(gap)
                let c = try count()
                let (sum, o3) = total.addingReportingOverflow(c)
                guard !o1, !o2, !o3 else { throw corrupt("a histogram bucket or total past 64 bits") }
                pairs.append((bucket, c))
                (previous, total) = (bucket, sum)
            }
            return RollupRecord(monitorID: monitorID, resolution: RollupDayCodec.hour, bucketStart: start, up: up, degraded: degraded,
                                down: down, inMaintenance: inMaintenance, latencySum: latencySum, latencyCount: explicitCount ?? total,
                                histogram: RollupDayCodec.histogramText(pairs))
        }

        /// A varint that must fit a non-negative Int64.
        mutating func count() throws(StoreError) -> Int64 {
            let v = try varint()
            guard v <= UInt64(Int64.max) else { throw corrupt("a count past 63 bits") }
            return Int64(v)
        }

        mutating func varint() throws(StoreError) -> UInt64 {
            var v: UInt64 = 0
            for shift in stride(from: UInt64(0), to: 70, by: 7) {
                guard position < bytes.count else { throw corrupt("ends inside a number") }
                let b = bytes[position]
                position += 1
                // The tenth byte may only hold bit 63.
                guard shift < 63 || b <= 1 else { throw corrupt("a number longer than 64 bits") }
                v |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return v }
            }
            throw corrupt("a number longer than 64 bits")
        }
    }
}
