import Testing
import CSQLite
@testable import Store

/// `RollupDayCodec`, the blob of a `rollup_days` row: what goes in comes
/// out (counts, sums, histogram text, which hours), version 1's bytes stay
/// what they are, and damaged bytes are a `SQLITE_CORRUPT` error, never a
/// crash or a wrong answer.
@Suite struct RollupDayCodecTests {
    static let day: Int64 = 20_000 * 86_400

    /// Deterministic xorshift: every run checks the same records.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        mutating func below(_ n: UInt64) -> Int64 { Int64(next() % n) }
    }

    /// A histogram with about `density` of the 43 buckets used.
    static func histogram(_ rng: inout Random, density: UInt64) -> (text: String, total: Int64) {
        var pairs: [String] = []
        var total: Int64 = 0
        for bucket in 0..<43 where rng.below(100) < density {
            let count = [1, 59, 128, 70_000, 1 << 40][Int(rng.below(5))] as Int64
            pairs.append("\(bucket):\(count)")
            total += count
        }
        return (pairs.joined(separator: ","), total)
    }

    static func record(_ rng: inout Random, hour: Int64, density: UInt64) -> RollupRecord {
        let h = histogram(&rng, density: density)
        let big = rng.below(10) == 0
        return RollupRecord(monitorID: 7, resolution: 3600, bucketStart: day + hour * 3600,
                            up: big ? Int64.max : rng.below(200), degraded: rng.below(3) == 0 ? rng.below(40) : 0,
                            down: rng.below(2) == 0 ? rng.below(60) : 0, inMaintenance: rng.below(4) == 0 ? 60 : 0,
                            latencySum: [0, 1, -1, 12_345, -99_999, Int64.max, Int64.min][Int(rng.below(7))],
                            // Mostly the histogram's total, as the retention job writes it.
                            latencyCount: rng.below(3) == 0 ? rng.below(1000) : h.total, histogram: h.text)
    }

    @Test func randomDaysComeBackAsTheyWent() throws {
        var rng = Random(state: 0x2545_F491_4F6C_DD1D)
        for round in 0..<400 {
            // Which hours: none, all 24, or a random subset.
            let hours: [Int64] = round == 0 ? [] : round % 5 == 1 ? Array(0..<24) : (0..<24).filter { _ in rng.below(3) == 0 }
            let density: UInt64 = [0, 5, 30, 100][round % 4]
            let records = hours.map { Self.record(&rng, hour: $0, density: density) }
            let blob = try RollupDayCodec.encode(records.shuffled(), dayStart: Self.day)
            let back = try RollupDayCodec.decode(blob, monitorID: 7, dayStart: Self.day)
            #expect(back == records, "round \(round)")
            #expect(try RollupDayCodec.hourCount(blob, monitorID: 7, dayStart: Self.day) == records.count)
        }
    }

    /// What the retention job's read-modify-write does: stored hours keep
    /// their bytes, a new hour replaces a stored one, the later of two new
    /// ones wins, and a damaged stored day is an error.
    @Test func mergeKeepsStoredHoursAndReplacesNewOnes() throws {
        var rng = Random(state: 7)
        let stored = [1, 4, 9, 23].map { Self.record(&rng, hour: $0, density: 20) }
        let new = [4, 0, 12, 12].map { Self.record(&rng, hour: $0, density: 20) }
        let blob = try RollupDayCodec.merge(try RollupDayCodec.encode(stored, dayStart: Self.day), new, monitorID: 7, dayStart: Self.day)
        let want = [new[1], stored[0], new[0], stored[2], new[3], stored[3]]
        #expect(try RollupDayCodec.decode(blob, monitorID: 7, dayStart: Self.day) == want)
        #expect(blob == (try RollupDayCodec.encode(want, dayStart: Self.day)), "the same bytes as encoding the result")
        #expect(try RollupDayCodec.merge(nil, [], monitorID: 7, dayStart: Self.day) == [1, 0, 0, 0])
        var damaged = try RollupDayCodec.encode(stored, dayStart: Self.day)
        damaged.removeLast()
        #expect(throws: StoreError.self) { try RollupDayCodec.merge(damaged, new, monitorID: 7, dayStart: Self.day) }
    }

    @Test func histogramTextIsKeptExactlyAndRefusedWhenMalformed() throws {
        for text in ["", "0:1", "42:3", "0:0,1:5,42:9223372036854775802", "3:5,12:40,13:1"] {
            let r = RollupRecord(monitorID: 1, resolution: 3600, bucketStart: Self.day, up: 1, degraded: 0, down: 0, inMaintenance: 0,
                                 latencySum: 5, latencyCount: 1, histogram: text)
            let back = try RollupDayCodec.decode(try RollupDayCodec.encode([r], dayStart: Self.day), monitorID: 1, dayStart: Self.day)
            #expect(back.map(\.histogram) == [text])
        }
        for text in ["[1,2,3]", "1:2,", ",1:2", "1:2,1:3", "5:1,4:1", "1", "1:2:3", "-1:2", "1:-2", "a:1", "1:99999999999999999999", "1:9223372036854775807,2:1"] {
            #expect(HistogramText.pairs(text) == nil, "\(text)")
            let r = RollupRecord(monitorID: 1, resolution: 3600, bucketStart: Self.day, up: 1, degraded: 0, down: 0, inMaintenance: 0,
                                 latencySum: 0, latencyCount: 0, histogram: text)
            #expect(throws: StoreError.self) { try RollupDayCodec.encode([r], dayStart: Self.day) }
        }
    }

    @Test func whatCannotBeStoredIsRefused() {
        let ok = RollupRecord(monitorID: 1, resolution: 3600, bucketStart: Self.day + 3600, up: 1, degraded: 0, down: 0,
                              inMaintenance: 0, latencySum: 0, latencyCount: 0, histogram: "")
        var negative = ok
        negative.down = -1
        var offTheHour = ok
        offTheHour.bucketStart += 60
        var otherDay = ok
        otherDay.bucketStart += 86_400
        for bad in [[negative], [offTheHour], [otherDay], [ok, ok]] {
            #expect(throws: StoreError.self) { try RollupDayCodec.encode(bad, dayStart: Self.day) }
        }
    }

    /// Version 1 is on disk in every database: its bytes must not change.
    /// (bench/pages.sh writes the same bytes by hand.)
    @Test func versionOneBytesAreFixed() throws {
        let hours = (0..<3).map { h in
            RollupRecord(monitorID: 1, resolution: 3600, bucketStart: Self.day + Int64(h) * 3600, up: 60, degraded: 0, down: 0,
                         inMaintenance: 0, latencySum: 2400, latencyCount: 60, histogram: "11:60")
        }
        let hex = try RollupDayCodec.encode(hours, dayStart: Self.day).map { b in
            String(b, radix: 16).count == 1 ? "0" + String(b, radix: 16) : String(b, radix: 16)
        }.joined()
        #expect(hex == "01070000" + String(repeating: "083cc025010b3c", count: 3))
        let mixed = RollupRecord(monitorID: 1, resolution: 3600, bucketStart: Self.day + 23 * 3600, up: 1, degraded: 2, down: 3,
                                 inMaintenance: 4, latencySum: -3, latencyCount: 9, histogram: "0:1,2:300")
        #expect(try RollupDayCodec.encode([mixed], dayStart: Self.day)
            == [1, 0, 0, 0x80, 31, 1, 2, 3, 4, 5, 9, 2, 0, 1, 1, 0xAC, 0x02])
    }

    @Test func dayStartsAreUTCMidnightsAlsoBefore1970() {
        #expect(RollupDayCodec.dayStart(of: 0) == 0)
        #expect(RollupDayCodec.dayStart(of: 86_399) == 0)
        #expect(RollupDayCodec.dayStart(of: 86_400) == 86_400)
        #expect(RollupDayCodec.dayStart(of: -1) == -86_400)
        #expect(RollupDayCodec.dayStart(of: -86_400) == -86_400)
    }

    // MARK: damage

    /// A blob with every field used, to cut and spoil.
    static func sample() throws -> [UInt8] {
        var rng = Random(state: 99)
        return try RollupDayCodec.encode([0, 5, 23].map { record(&rng, hour: $0, density: 30) }, dayStart: day)
    }

    /// Decoding either works or throws SQLITE_CORRUPT naming the row.
    static func decodeOrCorrupt(_ bytes: [UInt8]) -> Bool {
        do {
            _ = try RollupDayCodec.decode(bytes, monitorID: 7, dayStart: day)
            return true
        } catch {
            #expect(error.code == SQLITE_CORRUPT && error.message.contains("monitor 7"), "\(error)")
            return false
        }
    }

    @Test func everyTruncationIsRejected() throws {
        let blob = try Self.sample()
        for n in 0..<blob.count {
            #expect(!Self.decodeOrCorrupt(Array(blob.prefix(n))), "cut to \(n) of \(blob.count) bytes")
        }
        #expect(!Self.decodeOrCorrupt(blob + [0]), "a byte after the last hour")
    }

    @Test func damagedHeadersAndNumbersAreRejected() throws {
        let one = try RollupDayCodec.encode([RollupRecord(monitorID: 7, resolution: 3600, bucketStart: Self.day, up: 1, degraded: 0,
                                                          down: 0, inMaintenance: 0, latencySum: 0, latencyCount: 0, histogram: "")],
                                            dayStart: Self.day)
        #expect(one == [1, 1, 0, 0, 0, 1, 0])
        let damaged: [(String, [UInt8])] = [
            ("version 0", [0, 1, 0, 0, 0, 1, 0]),
            ("version 2", [2, 1, 0, 0, 0, 1, 0]),
            ("unknown flag", [1, 1, 0, 0, 32, 1, 0]),
            ("a 65-bit number", [1, 1, 0, 0, 0] + Array(repeating: 0xFF, count: 9) + [0x02, 0]),
            ("an endless number", [1, 1, 0, 0, 0] + Array(repeating: 0x80, count: 11)),
            ("a count past 63 bits", [1, 1, 0, 0, 0] + Array(repeating: 0xFF, count: 9) + [0x01, 0]),
            ("more pairs than bytes", [1, 1, 0, 0, 0, 1, 0x7F, 0, 1]),
            ("a huge pair count", [1, 1, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
            // The first bucket Int64.max − 1, the second two further.
            ("a bucket past 64 bits", [1, 1, 0, 0, 0, 1, 2, 0xFE] + Array(repeating: 0xFF, count: 7) + [0x7F, 1, 1, 1]),
            ("a histogram total past 63 bits", [1, 1, 0, 0, 0, 1, 2, 0] + Array(repeating: 0xFF, count: 8) + [0x7F, 0, 2]),
            ("a second hour missing", [1, 3, 0, 0, 0, 1, 0]),
        ]
        for (why, bytes) in damaged {
            #expect(!Self.decodeOrCorrupt(bytes), "\(why)")
        }
        #expect(throws: StoreError.self) { try RollupDayCodec.hourCount([1, 2], monitorID: 7, dayStart: Self.day) }
    }

    /// Random garbage, and the sample with random bytes overwritten: never
    /// a crash, and what decodes is well-formed.
    @Test func garbageNeverCrashes() throws {
        var rng = Random(state: 0xDEAD_BEEF)
        let blob = try Self.sample()
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(rng.below(64))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                if !bytes.isEmpty && round % 4 == 0 { bytes[0] = 1 }
            } else {
                bytes = blob
                for _ in 0..<(1 + rng.below(3)) { bytes[Int(rng.below(UInt64(bytes.count)))] = UInt8(truncatingIfNeeded: rng.next()) }
            }
            if Self.decodeOrCorrupt(bytes) {
                for r in try RollupDayCodec.decode(bytes, monitorID: 7, dayStart: Self.day) {
                    #expect(HistogramText.pairs(r.histogram) != nil && r.up >= 0 && r.latencyCount >= 0)
                }
            }
        }
    }
}
