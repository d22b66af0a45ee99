import Testing
@testable import Monitoring

/// A small deterministic PRNG for test data.
struct SchedulerTestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int64) -> Int64 { Int64(next() % UInt64(n)) }
}

/// Largest gap between consecutive phases around the circle of one interval.
private func maxGap(_ phases: [Int64], interval: Int64) -> Int64 {
    let sorted = phases.sorted()
    var gap = sorted[0] + interval - sorted[sorted.count - 1]
    for (a, b) in zip(sorted, sorted.dropFirst()) { gap = max(gap, b - a) }
    return gap
}

@Suite struct SchedulePlanTests {
    @Test func phaseIsDeterministicAndInRange() {
        for interval: Int64 in [1, 7, 10_000, 60_000, 86_400_000] {
            for id: Int64 in [0, 1, 2, 42, -5, Int64.max, Int64.min] {
                let p = SchedulePlan.phase(id: id, intervalMs: interval)
                #expect(p >= 0 && p < interval)
                #expect(p == SchedulePlan.phase(id: id, intervalMs: interval))
            }
        }
    }

    @Test func thousandConsecutiveIdsSpreadEvenly() {
        let interval: Int64 = 60_000
        let phases = (1...1000).map { SchedulePlan.phase(id: Int64($0), intervalMs: interval) }
        #expect(Set(phases).count == 1000)
        // Even spacing would be 60 ms; golden-ratio hashing keeps every gap under 2.7× that.
        #expect(maxGap(phases, interval: interval) <= interval * 27 / 10 / 1000)
        // No clump: at most 3 monitors start in any 60 ms window.
        var buckets = [Int](repeating: 0, count: 1000)
        for p in phases { buckets[Int(p * 1000 / interval)] += 1 }
        #expect(buckets.max()! <= 3)
    }

    @Test func scatteredIdsStillSpread() {
        // Ids with holes (deleted monitors): still no thundering herd.
        var rng = SchedulerTestRandom(seed: 7)
        var ids = Set<Int64>()
        while ids.count < 1000 { ids.insert(1 + rng.below(SchedulePlan.soloIDs - 1)) }
        let interval: Int64 = 300_000
        let phases = ids.map { SchedulePlan.phase(id: $0, intervalMs: interval) }
        #expect(Set(phases).count >= 999)
        #expect(maxGap(phases, interval: interval) <= interval * 12 / 1000)
        var buckets = [Int](repeating: 0, count: 100)  // 1% of the interval each
        for p in phases { buckets[Int(p * 100 / interval)] += 1 }
        #expect(buckets.max()! <= 25)  // 10 expected
    }

    @Test func largeHubsRunConsecutiveIdsTogetherAndRunsSpreadEvenly() {
        let interval: Int64 = 60_000, runs = 3_000
        let first = SchedulePlan.soloIDs
        var starts: [Int64] = []
        for r in 0..<Int64(runs) {
            let ids = (0..<SchedulePlan.runLength).map { first + r * SchedulePlan.runLength + $0 }
            let phases = ids.map { SchedulePlan.phase(id: $0, intervalMs: interval) }
            #expect(phases.allSatisfy { $0 >= 0 && $0 < interval })
            // One run starts within 1/1024 of the interval (58 ms at 60 s), in id order around the circle.
            let spread = zip(phases, phases.dropFirst()).map { (($1 - $0) % interval + interval) % interval }
            #expect(spread.reduce(0, +) < interval / 1024 && spread.allSatisfy { $0 <= interval / 65_536 + 1 })
            starts.append(phases[0])
        }
        // The runs' starts are a golden-ratio sequence: gaps under 2.7× the even spacing.
        #expect(maxGap(starts, interval: interval) <= interval * 27 / 10 / Int64(runs))
        // Load stays level: no 1% of the interval holds more than twice its share of checks.
        var buckets = [Int](repeating: 0, count: 100)
        for r in 0..<Int64(runs) {
            for m in 0..<SchedulePlan.runLength {
                buckets[Int(SchedulePlan.phase(id: first + r * SchedulePlan.runLength + m, intervalMs: interval) * 100 / interval)] += 1
            }
        }
        #expect(buckets.max()! <= 2 * runs * Int(SchedulePlan.runLength) / 100)
    }

    @Test func slotsAreOnTheGrid() {
        let interval: Int64 = 60_000
        for id: Int64 in [1, 2, 99] {
            let phase = SchedulePlan.phase(id: id, intervalMs: interval)
            for now: Int64 in [0, 1, 1_800_000_000_000, 1_800_000_000_001, -123_456] {
                let s = SchedulePlan.slot(atOrAfter: now, id: id, intervalMs: interval)
                #expect(s >= now && s < now + interval)
                #expect(((s - phase) % interval + interval) % interval == 0)
            }
            let exact = 1_800_000_000_000 / interval * interval + phase
            #expect(SchedulePlan.slot(atOrAfter: exact, id: id, intervalMs: interval) == exact)
        }
    }

    @Test func firstDue() {
        let now: Int64 = 1_800_000_000_000, interval: Int64 = 60_000
        let aligned = SchedulePlan.slot(atOrAfter: now, id: 5, intervalMs: interval)
        // stored in the future: kept
        #expect(SchedulePlan.firstDue(id: 5, intervalMs: interval, now: now, storedNextDue: now + 12_345) == now + 12_345)
        // stored in the past (downtime): next grid slot, not a catch-up burst
        #expect(SchedulePlan.firstDue(id: 5, intervalMs: interval, now: now, storedNextDue: now - 3_600_000) == aligned)
        #expect(SchedulePlan.firstDue(id: 5, intervalMs: interval, now: now, storedNextDue: now) == aligned)
        // never stored
        #expect(SchedulePlan.firstDue(id: 5, intervalMs: interval, now: now, storedNextDue: nil) == aligned)
        // implausibly far (interval shortened since): grid slot
        #expect(SchedulePlan.firstDue(id: 5, intervalMs: interval, now: now, storedNextDue: now + 10 * interval) == aligned)
    }

    @Test func nextDue() {
        let interval: Int64 = 60_000
        let prev: Int64 = 1_800_000_000_000
        // on time, or a slow check: previous + interval, whenever it finished
        #expect(SchedulePlan.nextDue(previousDue: prev, intervalMs: interval, now: prev + 10) == prev + interval)
        #expect(SchedulePlan.nextDue(previousDue: prev, intervalMs: interval, now: prev + 59_999) == prev + interval)
        #expect(SchedulePlan.nextDue(previousDue: prev, intervalMs: interval, now: prev + 60_000) == prev + interval)
        // fell behind by 3.5 intervals: the first slot of the same grid at/after now
        let next = SchedulePlan.nextDue(previousDue: prev, intervalMs: interval, now: prev + 210_000)
        #expect(next == prev + 240_000)
        #expect(SchedulePlan.skippedSlots(previousDue: prev, intervalMs: interval, next: next) == 3)
        #expect(SchedulePlan.skippedSlots(previousDue: prev, intervalMs: interval, next: prev + interval) == 0)
    }
}

@Suite struct SchedulerDueQueueTests {
    @Test func ordersByDueThenId() {
        var q = DueQueue()
        q.set(id: 3, due: 100)
        q.set(id: 1, due: 100)
        q.set(id: 2, due: 50)
        #expect(q.first == .init(due: 50, id: 2))
        #expect(q.popFirst() == .init(due: 50, id: 2))
        #expect(q.popFirst() == .init(due: 100, id: 1))
        #expect(q.popFirst() == .init(due: 100, id: 3))
        #expect(q.popFirst() == nil)
        #expect(q.isEmpty)
    }

    @Test func updateAndRemove() {
        var q = DueQueue()
        for i: Int64 in 1...10 { q.set(id: i, due: i * 10) }
        q.set(id: 10, due: 1)       // move up
        q.set(id: 1, due: 1000)     // move down
        #expect(q.remove(id: 5) == 50)
        #expect(q.remove(id: 5) == nil)
        #expect(q.count == 9 && q.contains(10) && !q.contains(5))
        #expect(q.due(of: 1) == 1000)
        var order: [Int64] = []
        while let e = q.popFirst() { order.append(e.id) }
        #expect(order == [10, 2, 3, 4, 6, 7, 8, 9, 1])
    }

    @Test func matchesAReferenceModelUnderRandomOperations() {
        var rng = SchedulerTestRandom(seed: 42)
        var q = DueQueue()
        var model: [Int64: Int64] = [:]
        for _ in 0..<20_000 {
            let id = rng.below(300)
            switch rng.below(4) {
            case 0, 1:
                let due = rng.below(1_000_000)
                q.set(id: id, due: due)
                model[id] = due
            case 2:
                #expect(q.remove(id: id) == model.removeValue(forKey: id))
            default:
                let expected = model.min { ($0.value, $0.key) < ($1.value, $1.key) }
                let got = q.popFirst()
                #expect(got?.id == expected?.key && got?.due == expected?.value)
                if let got { model[got.id] = nil }
            }
        }
        #expect(q.isValid())
        #expect(q.count == model.count)
    }
}

@Suite struct SchedulerLatenessHistogramTests {
    @Test func percentilesAreExactBelow16AndWithinAnEighthAbove() {
        var h = LatenessHistogram()
        #expect(h.percentile(perMille: 500) == 0)
        for v: Int64 in 0..<10 { h.record(v) }
        #expect(h.percentile(perMille: 500) == 4)
        #expect(h.percentile(perMille: 990) == 9)
        var big = LatenessHistogram()
        for v: Int64 in 1...10_000 { big.record(v) }
        let p50 = big.percentile(perMille: 500), p99 = big.percentile(perMille: 990)
        #expect(p50 >= 5000 && p50 <= 5000 + 5000 / 8)
        #expect(p99 >= 9900 && p99 <= 10_000)
        #expect(big.count == 10_000 && big.sum == 50_005_000)
        var negative = LatenessHistogram()
        negative.record(-5)
        #expect(negative.percentile(perMille: 990) == 0)
    }

    @Test func bucketsAreContiguous() {
        var previousUpper: Int64 = -1
        for b in 0..<(16 + 8 * 40) {
            let upper = LatenessHistogram.upperBound(b)
            #expect(LatenessHistogram.bucket(previousUpper + 1) == b)
            #expect(LatenessHistogram.bucket(upper) == b)
            previousUpper = upper
        }
    }
}
