/// The text form of a roll-up's latency histogram, `RollupRecord.histogram`:
/// `bucket:count` pairs, comma-separated, buckets ascending (`"3:5,12:40"`,
/// empty for none). It is `LatencyHistogram.encoded`'s form; Monitoring owns
/// the buckets, the Store only turns the text into numbers for the hourly
/// blobs (`RollupDayCodec`) and back, so callers get their text unchanged.
/// Both directions run for every stored hour a status page or the retention
/// job touches: one pass over the bytes, no intermediate strings.
enum HistogramText {
    /// The pairs; nil unless every pair is `digits:digits`, buckets strictly
    /// ascend, and the numbers and their total fit 63 bits (the rules of
    /// `LatencyHistogram(encoded:)`).
    static func pairs(_ text: String) -> [(bucket: Int64, count: Int64)]? {
        var pairs: [(bucket: Int64, count: Int64)] = []
        guard !text.isEmpty else { return pairs }
        let bytes = Array(text.utf8)
        var i = 0, total: Int64 = 0
        while true {
            guard let bucket = number(bytes, &i), i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard let count = number(bytes, &i), bucket > (pairs.last?.bucket ?? -1) else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(count)
            guard !overflow else { return nil }
            pairs.append((bucket, count))
            total = sum
            if i == bytes.count { return pairs }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    /// The digits at `i` (at least one), moving `i` past them.
    private static func number(_ bytes: [UInt8], _ i: inout Int) -> Int64? {
        let start = i
        var n: Int64 = 0
        while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
            let (times, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(bytes[i] - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            n = sum
            i += 1
        }
        return i > start ? n : nil
    }

    /// The text of pairs whose numbers are not negative.
    static func text(_ pairs: [(bucket: Int64, count: Int64)]) -> String {
        guard !pairs.isEmpty else { return "" }
        var out: [UInt8] = []
        out.reserveCapacity(pairs.count * 8)
        for (i, p) in pairs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            digits(p.bucket, &out)
            out.append(UInt8(ascii: ":"))
            digits(p.count, &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func digits(_ value: Int64, _ out: inout [UInt8]) {
        let start = out.count
        var v = value
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(v % 10))
            v /= 10
        } while v > 0
        out[start...].reverse()
    }
}
