/// A fixed, mergeable latency histogram for hourly/daily roll-up rows.
///
/// Buckets: 42 "nice" log-scale upper bounds from 1 ms to 120 s (each bound at
/// most ×1.43 the previous, ×1.364 from 10 ms up), plus one overflow bucket for
/// anything slower — 43 counts. Bucket `i` holds latencies in
/// `(bounds[i-1], bounds[i]]` (bucket 0: `≤ 1 ms`, negatives included). The
/// table is frozen: stored histograms depend on it, so changing it needs a new
/// encoding.
///
/// `percentile(p)` uses the nearest rank `⌈p·n⌉`, finds its bucket and
/// interpolates linearly inside it (assuming values spread evenly over the
/// bucket), rounding up to whole milliseconds.
///
/// **Error bound**: the estimate always lies in the same bucket as the true
/// nearest-rank percentile, so the error is less than that bucket's width:
/// at most 2 ms below 10 ms, and less than 36.4 % of the true value above
/// (`(upper − lower) / lower ≤ 0.364`). Latencies above 120 s are reported
/// as 120000.
public struct LatencyHistogram: Sendable, Equatable {
    /// Upper bounds (ms, inclusive) of the buckets but the last (overflow).
    public static let bounds: [Int] = [
        1, 2, 3, 4, 5, 7, 10, 13, 17, 22, 30, 40, 50, 65, 85, 110, 150, 200, 260, 350, 450,
        600, 800, 1000, 1300, 1700, 2200, 3000, 4000, 5000, 6500, 8500, 11000, 15000, 20000,
        26000, 35000, 45000, 60000, 80000, 100000, 120000,
    ]
    public static let bucketCount = bounds.count + 1

    /// Dense counts, `bucketCount` long.
    public private(set) var counts: [Int]
    /// Number of recorded latencies.
    public private(set) var total: Int

    public init() {
        counts = Array(repeating: 0, count: Self.bucketCount)
        total = 0
    }

    /// From dense counts (as stored); a shorter array is padded with zeros.
    /// nil when longer than `bucketCount` or a count is negative.
    public init?(counts: [Int]) {
        guard counts.count <= Self.bucketCount, counts.allSatisfy({ $0 >= 0 }) else { return nil }
        self.counts = counts + Array(repeating: 0, count: Self.bucketCount - counts.count)
        var sum = 0
        for c in counts {
            let (s, overflow) = sum.addingReportingOverflow(c)
            guard !overflow else { return nil }
            sum = s
        }
        total = sum
    }

    /// The bucket index of a latency.
    public static func bucket(of ms: Int) -> Int {
        var lo = 0, hi = bounds.count  // first bound ≥ ms, or bounds.count (overflow)
        while lo < hi {
            let mid = (lo + hi) / 2
            if bounds[mid] >= ms { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    public mutating func record(_ ms: Int, count: Int = 1) {
        guard count > 0 else { return }
        counts[Self.bucket(of: ms)] += count
        total += count
    }

    public static func + (a: LatencyHistogram, b: LatencyHistogram) -> LatencyHistogram {
        var r = a
        r += b
        return r
    }

    public static func += (a: inout LatencyHistogram, b: LatencyHistogram) {
        for i in 0..<bucketCount { a.counts[i] += b.counts[i] }
        a.total += b.total
    }

    /// The `p` percentile (`p` a fraction, clamped to 0…1: 0.95 = p95) in ms;
    /// nil when empty. See the error bound above.
    public func percentile(_ p: Double) -> Int? {
        guard total > 0 else { return nil }
        let fraction = p.isNaN ? 1 : min(1, max(0, p))
        let rank = min(total, max(1, Int((fraction * Double(total)).rounded(.up))))
        var before = 0
        for (i, c) in counts.enumerated() where c > 0 {
            if before + c >= rank {
                guard i < Self.bounds.count else { return Self.bounds[Self.bounds.count - 1] }
                let lower = i == 0 ? 0 : Self.bounds[i - 1]
                let upper = Self.bounds[i]
                let position = Double(rank - before) / Double(c)  // (0, 1]
                return min(upper, max(lower + 1, lower + Int((Double(upper - lower) * position).rounded(.up))))
            }
            before += c
        }
        return nil  // unreachable: counts sum to total
    }

    /// Compact text for a database column: `index:count` for the non-empty
    /// buckets, comma-separated, ascending (`"12:5,13:40"`; empty histogram: `""`).
    public var encoded: String {
        counts.enumerated().filter { $0.element > 0 }.map { "\($0.offset):\($0.element)" }.joined(separator: ",")
    }

    /// Parses `encoded`; nil when malformed (bad number, index out of range,
    /// repeated or descending index).
    public init?(encoded text: String) {
        self.init()
        guard !text.isEmpty else { return }
        var last = -1
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2,
                  parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }),
                  let index = Int(parts[0]), let count = Int(parts[1]),
                  index > last, index < Self.bucketCount
            else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(count)
            guard !overflow else { return nil }
            counts[index] = count
            total = sum
            last = index
        }
    }
}
