/// One check result as the charts see it: when, how fast, and whether it
/// failed. Plain numbers so the drawing is testable without a database.
public struct ChartSample: Sendable, Equatable {
    /// Unix seconds.
    public var at: Int64
    public var latencyMs: Int64?
    public var down: Bool

    public init(at: Int64, latencyMs: Int64?, down: Bool) {
        self.at = at
        self.latencyMs = latencyMs
        self.down = down
    }
}

/// Server-drawn inline SVG for the pages (no script, no image requests, so it
/// works under `default-src 'self'` and without JavaScript). Pure: samples in,
/// markup out. Colours are SVG attributes, not `style`, because the CSP has no
/// `'unsafe-inline'` for styles. Every chart is `role="img"` with a text
/// summary, since a line alone says nothing to a screen reader.
public enum Charts {
    static let lineColour = "#2450b8"
    static let downColour = "#a3212a"

    // MARK: sparkline

    public static let sparkWidth = 120
    public static let sparkHeight = 28

    /// The dashboard's small latency line over the last results, oldest first,
    /// evenly spaced. Failed checks are red bars; the line breaks around them
    /// and around results without a latency.
    public static func sparkline(_ samples: [ChartSample]) -> String {
        let w = Double(sparkWidth), hgt = Double(sparkHeight), pad = 2.0
        let summary = sparklineSummary(samples)
        var out = "<svg class=\"spark\" role=\"img\" aria-label=\"\(HTML.escape(summary))\" viewBox=\"0 0 \(sparkWidth) \(sparkHeight)\" "
            + "width=\"\(sparkWidth)\" height=\"\(sparkHeight)\"><title>\(HTML.escape(summary))</title>"
        guard !samples.isEmpty else {
            out += "<line x1=\"0\" y1=\"\(fmt(hgt - pad))\" x2=\"\(fmt(w))\" y2=\"\(fmt(hgt - pad))\" stroke=\"#8a93a3\" "
                + "stroke-dasharray=\"3 3\"/></svg>"
            return out
        }
        let maxLatency = Double(max(1, samples.compactMap { $0.down ? nil : $0.latencyMs }.max() ?? 1))
        let step = samples.count > 1 ? (w - 2 * pad) / Double(samples.count - 1) : 0
        let x: (Int) -> Double = { samples.count > 1 ? pad + Double($0) * step : w / 2 }
        let y: (Int64) -> Double = { hgt - pad - Double($0) / maxLatency * (hgt - 2 * pad) }
        let barWidth = max(2, min(6, step))
        for (i, s) in samples.enumerated() where s.down {
            // Kept inside the box: the first and last bars would be half cut off.
            let left = min(max(0, x(i) - barWidth / 2), w - barWidth)
            out += "<rect x=\"\(fmt(left))\" y=\"0\" width=\"\(fmt(barWidth))\" height=\"\(fmt(hgt))\" fill=\"\(downColour)\"/>"
        }
        let points = samples.enumerated().map { i, s in
            s.down ? nil : s.latencyMs.map { (x(i), y($0)) }
        }
        out += polylines(segments(points), strokeWidth: 1.5)
        return out + "</svg>"
    }

    public static func sparklineSummary(_ samples: [ChartSample]) -> String {
        guard !samples.isEmpty else { return "No checks yet." }
        let latencies = samples.compactMap { $0.down ? nil : $0.latencyMs }
        let downs = samples.filter(\.down).count
        var text = "Last \(samples.count) check\(samples.count == 1 ? "" : "s")"
        if let last = latencies.last { text += ": latest \(last) ms, highest \(latencies.max()!) ms" }
        text += downs == 0 ? ", none failed." : ", \(downs) failed."
        return text
    }

    // MARK: history chart

    public static let historyWidth = 600
    public static let historyHeight = 160

    /// A failed stretch: from the first failed result to the next good one
    /// (or `to` while it lasts).
    public struct DownPeriod: Sendable, Equatable {
        public var from: Int64
        public var to: Int64
    }

    /// Merges consecutive failed results (oldest first) into periods.
    public static func downPeriods(_ samples: [ChartSample], until to: Int64) -> [DownPeriod] {
        var out: [DownPeriod] = []
        var start: Int64?
        for s in samples {
            if s.down {
                if start == nil { start = s.at }
            } else if let from = start {
                out.append(DownPeriod(from: from, to: s.at))
                start = nil
            }
        }
        if let from = start { out.append(DownPeriod(from: from, to: max(from, to))) }
        return out
    }

    /// Latency over `from…to` (Unix seconds), samples oldest first. The line
    /// breaks where two results are more than `gapSeconds` apart (the hub was
    /// stopped, the monitor paused); failed periods are red bands. Many
    /// samples are averaged into `buckets` columns so the markup stays small
    /// whatever the interval.
    public static func history(_ samples: [ChartSample], from: Int64, to: Int64, gapSeconds: Int64,
                               buckets: Int = 200) -> String {
        let w = Double(historyWidth), hgt = Double(historyHeight)
        let left = 48.0, right = 8.0, top = 8.0, bottom = 22.0
        let plotW = w - left - right, plotH = hgt - top - bottom
        let span = Double(max(1, to - from))
        let inRange = samples.filter { $0.at >= from && $0.at <= to }
        let summary = historySummary(inRange, from: from, to: to)
        let highest = inRange.compactMap { $0.down ? nil : $0.latencyMs }.max()
        let maxLatency = max(1, highest ?? 1)
        let x: (Int64) -> Double = { left + Double($0 - from) / span * plotW }
        let y: (Double) -> Double = { top + plotH - $0 / Double(maxLatency) * plotH }

        var out = "<svg class=\"chart\" role=\"img\" aria-label=\"\(HTML.escape(summary))\" viewBox=\"0 0 \(historyWidth) \(historyHeight)\" "
            + "><title>\(HTML.escape(summary))</title>"
        // Axes and labels: 0 and the highest latency on the left, the time span below.
        out += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(top + plotH))\" x2=\"\(fmt(w - right))\" y2=\"\(fmt(top + plotH))\" stroke=\"#8a93a3\"/>"
        out += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(top))\" x2=\"\(fmt(w - right))\" y2=\"\(fmt(top))\" stroke=\"#e3e6ec\"/>"
        if let highest { out += label("\(highest) ms", x: left - 4, y: top + 4, anchor: "end") }
        out += label("0 ms", x: left - 4, y: top + plotH + 4, anchor: "end")
        out += label(ago(to - from), x: left, y: hgt - 4, anchor: "start")
        out += label("now", x: w - right, y: hgt - 4, anchor: "end")
        for p in downPeriods(inRange, until: to) {
            let x0 = x(p.from), width = max(2, x(p.to) - x0)
            out += "<rect x=\"\(fmt(x0))\" y=\"\(fmt(top))\" width=\"\(fmt(width))\" height=\"\(fmt(plotH))\" fill=\"\(downColour)\" "
                + "fill-opacity=\"0.35\"/>"
        }
        guard !inRange.isEmpty else {
            out += label("No checks in this period", x: left + plotW / 2, y: top + plotH / 2, anchor: "middle")
            return out + "</svg>"
        }
        // Average the good results per column; a column keeps the time of its
        // last result so gaps are measured between real results.
        let n = max(1, buckets)
        var sums = [Int64](repeating: 0, count: n), counts = [Int](repeating: 0, count: n)
        var lastAt = [Int64](repeating: 0, count: n)
        for s in inRange {
            guard !s.down, let latency = s.latencyMs else { continue }
            let b = min(n - 1, Int(Double(s.at - from) / span * Double(n)))
            sums[b] += latency
            counts[b] += 1
            lastAt[b] = s.at
        }
        // Failed results break the line too: latency is not meaningful there.
        let downTimes = inRange.filter(\.down).map(\.at)
        var points: [(Double, Double)?] = []
        var previous: Int64?
        for b in 0..<n where counts[b] > 0 {
            let at = lastAt[b]
            if let p = previous, at - p > max(gapSeconds, Int64(span) / Int64(n) * 2) || downTimes.contains(where: { $0 > p && $0 < at }) {
                points.append(nil)
            }
            points.append((x(at), y(Double(sums[b]) / Double(counts[b]))))
            previous = at
        }
        out += polylines(segments(points), strokeWidth: 2)
        return out + "</svg>"
    }

    public static func historySummary(_ samples: [ChartSample], from: Int64, to: Int64) -> String {
        let period = duration(to - from)
        guard !samples.isEmpty else { return "Latency over the last \(period): no checks in this period." }
        let latencies = samples.compactMap { $0.down ? nil : $0.latencyMs }
        var text = "Latency over the last \(period): \(samples.count) check\(samples.count == 1 ? "" : "s")"
        if !latencies.isEmpty {
            let avg = latencies.reduce(0, +) / Int64(latencies.count)
            text += ", average \(avg) ms, highest \(latencies.max()!) ms"
        }
        let periods = downPeriods(samples, until: to)
        if periods.isEmpty {
            text += ", no failures."
        } else {
            let total = periods.reduce(Int64(0)) { $0 + ($1.to - $1.from) }
            text += ", down \(periods.count) time\(periods.count == 1 ? "" : "s") (\(duration(total)) in total)."
        }
        return text
    }

    // MARK: drawing helpers

    /// Splits points at nil into runs of consecutive points.
    static func segments(_ points: [(Double, Double)?]) -> [[(Double, Double)]] {
        var out: [[(Double, Double)]] = []
        var current: [(Double, Double)] = []
        for p in points {
            if let p { current.append(p) } else if !current.isEmpty { out.append(current); current = [] }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// A run of one point is a dot (a one-point polyline draws nothing).
    static func polylines(_ runs: [[(Double, Double)]], strokeWidth: Double) -> String {
        runs.map { run in
            if run.count == 1 {
                return "<circle cx=\"\(fmt(run[0].0))\" cy=\"\(fmt(run[0].1))\" r=\"\(fmt(strokeWidth + 0.5))\" fill=\"\(lineColour)\"/>"
            }
            let pts = run.map { "\(fmt($0.0)),\(fmt($0.1))" }.joined(separator: " ")
            return "<polyline points=\"\(pts)\" fill=\"none\" stroke=\"\(lineColour)\" stroke-width=\"\(fmt(strokeWidth))\" "
                + "stroke-linejoin=\"round\"/>"
        }.joined()
    }

    static func label(_ text: String, x: Double, y: Double, anchor: String) -> String {
        "<text x=\"\(fmt(x))\" y=\"\(fmt(y))\" text-anchor=\"\(anchor)\" font-size=\"11\" fill=\"#4a5262\">\(HTML.escape(text))</text>"
    }

    /// "24 h ago", "30 min ago", "2 d ago".
    static func ago(_ seconds: Int64) -> String {
        duration(seconds) + " ago"
    }

    static func duration(_ seconds: Int64) -> String {
        if seconds >= 2 * 86_400 && seconds % 86_400 == 0 { return "\(seconds / 86_400) d" }
        if seconds >= 3600 { return seconds % 3600 == 0 ? "\(seconds / 3600) h" : "\(seconds / 3600) h \(seconds % 3600 / 60) min" }
        if seconds >= 60 { return "\(seconds / 60) min" }
        return "\(max(0, seconds)) s"
    }

    /// One decimal, no exponent: Swift's `Double.description` can print
    /// `1e-05`, which is not a valid SVG number in every renderer.
    static func fmt(_ d: Double) -> String {
        let tenths = Int64((d * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let a = abs(tenths)
        return a % 10 == 0 ? "\(sign)\(a / 10)" : "\(sign)\(a / 10).\(a % 10)"
    }
}
