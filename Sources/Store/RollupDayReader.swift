import CSQLite

/// Reads a `rollup_days` blob (`RollupDayCodec`) front to back; every read
/// checks what is left, so damaged bytes end in `SQLITE_CORRUPT` naming
/// the row, never in a trap or a huge allocation.
struct RollupDayReader {
    typealias Flag = RollupDayCodec.Flag

    /// One hour as stored.
    struct Fields {
        var up: Int64 = 0, degraded: Int64 = 0, down: Int64 = 0, inMaintenance: Int64 = 0
        var latencySum: Int64 = 0, latencyCount: Int64 = 0
        var pairs: [(bucket: Int64, count: Int64)] = []
    }

    let bytes: [UInt8]
    let monitorID: Int64
    let dayStart: Int64
    var position = 0

    init(bytes: [UInt8], monitorID: Int64, dayStart: Int64) {
        (self.bytes, self.monitorID, self.dayStart) = (bytes, monitorID, dayStart)
    }

    func expectEnd() throws(StoreError) {
        guard position == bytes.count else { throw corrupt("\(bytes.count - position) bytes after the last hour") }
    }

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

    /// One hour's numbers and histogram pairs, its bytes checked.
    mutating func fields(hourStart start: Int64) throws(StoreError) -> Fields {
        guard position < bytes.count else { throw corrupt("ends before the hour starting \(start)") }
        let flags = bytes[position]
        position += 1
        guard flags & ~Flag.known == 0 else { throw corrupt("unknown flags \(flags) in the hour starting \(start)") }
        var f = Fields()
        f.up = try count()
        if flags & Flag.degraded != 0 { f.degraded = try count() }
        if flags & Flag.down != 0 { f.down = try count() }
        if flags & Flag.inMaintenance != 0 { f.inMaintenance = try count() }
        if flags & Flag.latencySum != 0 { f.latencySum = RollupDayCodec.unzigzag(try varint()) }
        let explicitCount: Int64? = flags & Flag.latencyCount != 0 ? try count() : nil
        let n = try varint()
        // Each pair takes at least two bytes: a larger count is damage,
        // and must not become a huge allocation.
        guard n <= UInt64(bytes.count - position) / 2 else { throw corrupt("\(n) histogram buckets in too few bytes") }
        f.pairs.reserveCapacity(Int(n))
        var previous: Int64 = -1, total: Int64 = 0
        for _ in 0..<n {
            let gap = try count()
            let (next, o1) = previous.addingReportingOverflow(1)
            let (bucket, o2) = next.addingReportingOverflow(gap)
            let c = try count()
            let (sum, o3) = total.addingReportingOverflow(c)
            guard !o1, !o2, !o3 else { throw corrupt("a histogram bucket or total past 64 bits") }
            f.pairs.append((bucket, c))
            (previous, total) = (bucket, sum)
        }
        f.latencyCount = explicitCount ?? total
        return f
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
