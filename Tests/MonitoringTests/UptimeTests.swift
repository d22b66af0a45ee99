import Testing
@testable import Monitoring

/// 2027-01-15T08:00:00Z, on the hour.
private let t0: Int64 = 1_800_000_000

private func raw(_ offset: Int64, _ outcome: SampleOutcome, _ ms: Int? = 100) -> UptimeSample {
    .result(at: t0 + offset, outcome: outcome, latencyMs: ms)
}

/// The documented error bound of `LatencyHistogram.percentile`.
private func bound(_ truth: Int) -> Double {
    truth <= 10 ? 2 : 0.364 * Double(truth)
}

/// Nearest-rank percentile of the exact values.
private func exactPercentile(_ values: [Int], _ p: Double) -> Int {
    let sorted = values.sorted()
    return sorted[max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
}

/// Deterministic test distributions (no randomness: reproducible failures).
private let distributions: [(name: String, values: [Int])] = [
    ("uniform 1…10000", Array(1...10000)),
    ("geometric 50 ms … 20 s", (0..<6000).map { i in
        var v = 50.0
        for _ in 0..<(i / 100) { v *= 1.105 }
        return Int(v * (1 + Double(i % 100) / 1000))
    }),
    ("bimodal 80 ms / 3 s", Array(repeating: 80, count: 900) + Array(repeating: 3000, count: 100)),
    ("small 0…12 ms", (0..<1300).map { $0 % 13 }),
    ("typical HTTP", (0..<2000).map { i in 40 + (i * 7919) % 250 + (i % 50 == 0 ? 4000 : 0) }),
]

@Suite("Uptime")
struct UptimeTests {
    @Test("mixed raw results: degraded counts as up, down latency left out, period is [from, to)")
    func mixedRaw() {
        var samples: [UptimeSample] = (0..<8).map { raw(Int64($0) * 60, .up, 100) }
        samples.append(raw(480, .degraded, 2500))
        samples.append(raw(540, .down, 10000))
        samples.append(raw(-1, .down))       // before the period
        samples.append(raw(3600, .down))     // at `to`: outside
        samples.append(raw(600, .up, nil))   // no latency
        let s = UptimeCalculator.summarize(samples: samples, maintenance: [], from: t0, to: t0 + 3600)
        #expect(s.checks == 11)
        #expect(s.uptime == 1000.0 / 11)
        #expect(s.avgLatencyMs == 367)  // (8·100 + 2500) / 9 = 366.7
        #expect(s.p95LatencyMs == 2500)  // exact nearest rank over raw samples
        #expect(s.maintenanceSeconds == 0)
    }

    @Test("results inside a maintenance window are excluded; the window's end is outside it")
    func maintenanceExclusion() {
        let samples = (0..<10).map { i -> UptimeSample in
            let at = Int64(i) * 60
            return raw(at, (120..<300).contains(at) ? .down : .up)
        } + [raw(300, .down)]
        let s = UptimeCalculator.summarize(samples: samples, maintenance: [(t0 + 100, t0 + 300)],
                                           from: t0, to: t0 + 3600)
        // 120, 180, 240 fall in the window; 300 (the end) counts.
        #expect(s.checks == 8)
        #expect(s.uptime == 700.0 / 8)
        #expect(s.maintenanceSeconds == 200)
        #expect(UptimeCalculator.inMaintenance(t0 + 100, windows: [(t0 + 100, t0 + 300)]))
        #expect(!UptimeCalculator.inMaintenance(t0 + 300, windows: [(t0 + 100, t0 + 300)]))
    }

    @Test("maintenance seconds: union of overlapping windows, clipped to the period", arguments: [
        ([(100, 200), (150, 300), (400, 500), (250, 260), (600, 700)], 120, 450, 230),
        ([(0, 1000)], 100, 200, 100),
        ([(100, 200), (200, 300)], 0, 1000, 200),
        ([(100, 200), (100, 200)], 0, 1000, 100),
        ([(300, 200), (50, 50)], 0, 1000, 0),
        ([(500, 600), (0, 50), (40, 45)], 0, 1000, 150),
        ([], 0, 1000, 0),
    ] as [([(Int64, Int64)], Int64, Int64, Int)])
    func maintenanceUnion(windows: [(Int64, Int64)], from: Int64, to: Int64, seconds: Int) {
        let w = windows.map { (start: t0 + $0.0, end: t0 + $0.1) }
        let s = UptimeCalculator.summarize(samples: [], maintenance: w, from: t0 + from, to: t0 + to)
        #expect(s.maintenanceSeconds == seconds)
    }

    @Test("overlapping windows exclude a result once; unsorted windows work")
    func unsortedWindows() {
        let samples = [raw(10, .down), raw(150, .down), raw(450, .down), raw(900, .up)]
        let s = UptimeCalculator.summarize(samples: samples, maintenance: [(t0 + 400, t0 + 500), (t0 + 0, t0 + 200),
                                                                           (t0 + 100, t0 + 160)],
                                           from: t0, to: t0 + 1000)
        #expect(s.checks == 1)
        #expect(s.uptime == 100)
        #expect(s.maintenanceSeconds == 300)
    }

    @Test("roll-up rows and raw results together")
    func rollupAndRaw() {
        var hour1 = UptimeRollup(start: t0)
        for _ in 0..<57 { hour1.record(.up, latencyMs: 100, inMaintenance: false) }
        for _ in 0..<3 { hour1.record(.down, latencyMs: 10000, inMaintenance: false) }
        for _ in 0..<10 { hour1.record(.down, latencyMs: 10000, inMaintenance: true) }
        #expect(hour1.upCount == 57 && hour1.downCount == 3 && hour1.maintenanceCount == 10)
        #expect(hour1.latencyCount == 57 && hour1.latencySum == 5700 && hour1.histogram.total == 57)
        var hour2 = UptimeRollup(start: t0 + 3600)
        for _ in 0..<60 { hour2.record(.up, latencyMs: 200, inMaintenance: false) }
        var outside = UptimeRollup(start: t0 - 3600)
        outside.record(.down, latencyMs: nil, inMaintenance: false)

        var samples: [UptimeSample] = [.rollup(hour1), .rollup(hour2), .rollup(outside)]
        samples += (0..<29).map { raw(7200 + Int64($0) * 60, .up, 300) }
        samples.append(raw(7200 + 29 * 60, .degraded, 2500))

        let s = UptimeCalculator.summarize(samples: samples, maintenance: [], from: t0, to: t0 + 3 * 3600)
        #expect(s.checks == 150)
        #expect(s.uptime == 98)
        #expect(s.avgLatencyMs == 197)  // 28900 / 147 = 196.6
        // True p95 (rank 140 of 147) is 300 ms; the histogram answers within its bucket (260, 350].
        let p95 = try! #require(s.p95LatencyMs)
        #expect(p95 > 260 && p95 <= 350)
        #expect(Double(abs(p95 - 300)) <= bound(300))
    }

    @Test("merging hourly rows into a daily row keeps the numbers")
    func rollupMerge() {
        var a = UptimeRollup(start: t0)
        a.record(.up, latencyMs: 100, inMaintenance: false)
        a.record(.degraded, latencyMs: 3000, inMaintenance: false)
        var b = UptimeRollup(start: t0 + 3600)
        b.record(.down, latencyMs: 5, inMaintenance: false)
        b.record(.up, latencyMs: 50, inMaintenance: true)
        var day = UptimeRollup(start: t0)
        day.merge(a)
        day.merge(b)
        #expect(day == UptimeRollup(start: t0, upCount: 1, downCount: 1, degradedCount: 1, latencySum: 3100,
                                    latencyCount: 2, histogram: a.histogram, maintenanceCount: 1))
        let split = UptimeCalculator.summarize(samples: [.rollup(a), .rollup(b)], maintenance: [], from: t0, to: t0 + 86400)
        let merged = UptimeCalculator.summarize(samples: [.rollup(day)], maintenance: [], from: t0, to: t0 + 86400)
        #expect(split == merged)
    }

    @Test("no checks → uptime nil")
    func empty() {
        #expect(UptimeCalculator.summarize(samples: [], maintenance: [], from: t0, to: t0 + 86400)
            == UptimeSummary(uptime: nil, checks: 0, avgLatencyMs: nil, p95LatencyMs: nil, maintenanceSeconds: 0))
        let allInMaintenance = UptimeCalculator.summarize(samples: [raw(10, .down), raw(20, .up)],
                                                          maintenance: [(t0, t0 + 60)], from: t0, to: t0 + 86400)
        #expect(allInMaintenance == UptimeSummary(uptime: nil, checks: 0, avgLatencyMs: nil, p95LatencyMs: nil,
                                                  maintenanceSeconds: 60))
        let onlyDown = UptimeCalculator.summarize(samples: [raw(10, .down)], maintenance: [], from: t0, to: t0 + 60)
        #expect(onlyDown == UptimeSummary(uptime: 0, checks: 1, avgLatencyMs: nil, p95LatencyMs: nil,
                                          maintenanceSeconds: 0))
    }

    @Test("histogram percentiles stay within the documented bound",
          arguments: distributions.map(\.name), [0.5, 0.9, 0.95, 0.99, 1.0])
    func histogramAccuracy(name: String, p: Double) {
        let values = distributions.first { $0.name == name }!.values
        var h = LatencyHistogram()
        for v in values { h.record(v) }
        let truth = exactPercentile(values, p)
        let estimate = try! #require(h.percentile(p))
        #expect(Double(abs(estimate - truth)) <= bound(truth), "\(name) p\(p): \(estimate) vs \(truth)")
        // Same bucket as the truth.
        #expect(LatencyHistogram.bucket(of: estimate) == LatencyHistogram.bucket(of: max(truth, 1)))
    }

    @Test("histogram buckets", arguments: [
        (-5, 0), (0, 0), (1, 0), (2, 1), (6, 5), (7, 5), (8, 6), (100, 15), (110, 15), (111, 16),
        (120_000, 41), (120_001, 42), (Int.max, 42),
    ])
    func buckets(ms: Int, bucket: Int) {
        #expect(LatencyHistogram.bucket(of: ms) == bucket)
    }

    @Test("histogram table: ascending, about 40 buckets, ratio ≤ 1.364 from 10 ms")
    func table() {
        let b = LatencyHistogram.bounds
        #expect(b.first == 1 && b.last == 120_000)
        #expect((38...44).contains(LatencyHistogram.bucketCount))
        for i in 1..<b.count {
            #expect(b[i] > b[i - 1])
            if b[i - 1] >= 10 { #expect(Double(b[i]) / Double(b[i - 1]) <= 1.364) }
            if b[i - 1] < 10 { #expect(b[i] - b[i - 1] <= 3) }
        }
    }

    @Test("histogram edge cases: empty, single value, overflow, p clamped")
    func histogramEdges() {
        #expect(LatencyHistogram().percentile(0.95) == nil)
        var one = LatencyHistogram()
        one.record(250)
        #expect(one.percentile(0) == 260 && one.percentile(0.5) == 260 && one.percentile(1) == 260)
        var slow = LatencyHistogram()
        slow.record(500_000, count: 3)
        #expect(slow.percentile(0.95) == 120_000)
        #expect(slow.total == 3)
        #expect(one.percentile(-1) == one.percentile(0))
        #expect(one.percentile(7) == one.percentile(1))
        #expect(one.percentile(.nan) == one.percentile(1))
    }

    @Test("histogram merge equals recording everything in one")
    func histogramMerge() {
        var a = LatencyHistogram(), b = LatencyHistogram(), all = LatencyHistogram()
        for v in [3, 40, 40, 900, 70_000] { a.record(v); all.record(v) }
        for v in [1, 40, 2200, 200_000] { b.record(v); all.record(v) }
        #expect(a + b == all)
        #expect((a + b).total == 9)
        var c = a
        c += b
        #expect(c == all)
        #expect(a + LatencyHistogram() == a)
    }

    @Test("histogram text and dense forms round-trip")
    func histogramSerialization() {
        var h = LatencyHistogram()
        for v in [0, 1, 40, 40, 41, 900, 120_000, 999_999] { h.record(v) }
        #expect(h.encoded == "0:2,11:2,12:1,23:1,41:1,42:1")
        #expect(LatencyHistogram(encoded: h.encoded) == h)
        #expect(LatencyHistogram(counts: h.counts) == h)
        #expect(h.counts.count == LatencyHistogram.bucketCount)
        #expect(LatencyHistogram(encoded: "") == LatencyHistogram())
        #expect(LatencyHistogram().encoded == "")
        #expect(LatencyHistogram(counts: [0, 2, 5]) == LatencyHistogram(encoded: "1:2,2:5"))
        #expect(LatencyHistogram(counts: Array(repeating: 0, count: LatencyHistogram.bucketCount + 1)) == nil)
        #expect(LatencyHistogram(counts: [1, -1]) == nil)
        #expect(LatencyHistogram(counts: [Int.max, 1]) == nil)
    }

    @Test("malformed histogram text is rejected", arguments: [
        "x", "1:", ":1", "1", "1:2,1:3", "3:1,2:1", "43:1", "1:-1", "1:2,", ",1:2", "1:2:3", " 1:2", "1:2 ", "+1:2",
        "0:9223372036854775807,1:1", "1:99999999999999999999",
    ])
    func malformedHistogram(text: String) {
        #expect(LatencyHistogram(encoded: text) == nil)
    }
}
