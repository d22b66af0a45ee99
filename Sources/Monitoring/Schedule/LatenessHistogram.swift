import Core
import Synchronization

/// A log-linear histogram of non-negative millisecond values: exact below
/// 16, then 8 buckets per power of two (a quantile is off by at most 12.5%).
/// Cumulative since creation, like a Prometheus histogram.
struct LatenessHistogram: Sendable {
    private static let linear = 16
    private static let subBuckets = 8
    private var counts = [Int](repeating: 0, count: 16 + 60 * 8)
    private(set) var count = 0
    private(set) var sum: Int64 = 0
    private(set) var maximum: Int64 = 0
    /// Counts per `fixedBounds` bucket (the last: above every bound), for
    /// the Prometheus histogram on `/metrics`: fixed `le` bounds let a
    /// scraper (or bench/scheduler.sh) take the lateness of a time window
    /// as the difference of two scrapes, which the cumulative quantiles
    /// cannot give.
    private(set) var fixed = [Int](repeating: 0, count: fixedBounds.count + 1)

    /// The `le` bounds of `fixed`, in ms.
    static let fixedBounds: [Int64] = [1, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000]

    static func bucket(_ v: Int64) -> Int {
        if v < Int64(linear) { return Int(v) }
        let e = 63 - v.leadingZeroBitCount  // floor(log2 v) >= 4
        let sub = Int(v >> Int64(e - 3)) & 7
        return linear + (e - 4) * subBuckets + sub
    }

    static func upperBound(_ bucket: Int) -> Int64 {
        if bucket < linear { return Int64(bucket) }
        let e = (bucket - linear) / subBuckets + 4
        let sub = Int64((bucket - linear) % subBuckets)
        let width = Int64(1) << Int64(e - 3)
        return (8 + sub) * width + width - 1
    }

    mutating func record(_ value: Int64) {
        let v = max(0, value)
        counts[Self.bucket(v)] += 1
        fixed[Self.fixedBounds.firstIndex { v <= $0 } ?? Self.fixedBounds.count] += 1
        count += 1
        sum &+= v
        maximum = max(maximum, v)
    }

    /// The value at `perMille`/1000 (e.g. 990 for p99): the upper bound of
    /// its bucket, capped at the largest value seen; 0 when empty.
    func percentile(perMille: Int) -> Int64 {
        guard count > 0 else { return 0 }
        let rank = max(1, (count * perMille + 999) / 1000)
        var seen = 0
        for (i, c) in counts.enumerated() where c > 0 {
            seen += c
            if seen >= rank { return min(Self.upperBound(i), maximum) }
        }
        return maximum
    }
}
