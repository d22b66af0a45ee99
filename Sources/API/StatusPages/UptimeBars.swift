/// One day of a status page's uptime history.
struct DayBar: Sendable, Equatable {
    /// `YYYY-MM-DD` (UTC).
    var date: String
    /// Percent, 0–100; nil when no check outside maintenance counted.
    var uptime: Double?
    /// Checks that ran inside a maintenance window that day.
    var maintenanceChecks: Int = 0

    /// How the day is drawn and named. Thresholds follow the common status
    /// page convention: a handful of failed checks in a day is still green,
    /// a visible outage is amber, anything worse red.
    enum Level: String, Sendable {
        case operational, partial, major, maintenance
        case noData = "no_data"
    }

    var level: Level {
        guard let uptime else { return maintenanceChecks > 0 ? .maintenance : .noData }
        if uptime >= 99.9 { return .operational }
        return uptime >= 95 ? .partial : .major
    }
}

/// Server-drawn uptime bars: numbers in, SVG out (pure, table-tested).
/// One bar per day, oldest first. Consecutive days that read the same
/// (`100% uptime`, `no data`) are one run, drawn as one dashed stroke (a
/// dash per day, the gap between them) with one `<title>` naming the dates
/// (tooltip and accessible name), and the whole image carries an
/// `aria-label` summary, so the picture is never the only way to read it.
/// A rect and a title per day made a 1,000-monitor page 10.4 MB (issue 20);
/// a monitor that was up every day is now one element.
enum UptimeBars {
    static let barWidth = 3
    static let gap = 1
    static let height = 30

    /// Fill per level; each keeps ≥ 3:1 against the white card (WCAG
    /// non-text contrast) except "no data", which is meant to recede.
    static func color(_ level: DayBar.Level) -> String {
        switch level {
        case .operational: "#1e8a4c"
        case .partial: "#b06d00"
        case .major: "#c0262d"
        case .maintenance: "#2f62c8"
        case .noData: "#cfd4dc"
        }
    }

    /// `99.95%`, `100%`, `0%`: two decimals, trailing zeros dropped.
    static func percent(_ value: Double) -> String {
        let hundredths = hundredths(value)
        let whole = hundredths / 100, frac = hundredths % 100
        if frac == 0 { return "\(whole)%" }
        if frac % 10 == 0 { return "\(whole).\(frac / 10)%" }
        return "\(whole).\(frac < 10 ? "0" : "")\(frac)%"
    }

    /// The text of one bar: `2026-11-30: 99.5% uptime`, `… no data`, `… maintenance`.
    static func label(_ day: DayBar) -> String { "\(day.date): " + reading(day) }

    /// What a day says, without its date: days that say the same make a run.
    static func reading(_ day: DayBar) -> String {
        switch day.level {
        case .noData: "no data"
        case .maintenance: "maintenance"
        default: "\(percent(day.uptime ?? 0)) uptime"
        }
    }

    /// What a day says and how it is drawn, as a number: equal exactly when
    /// `reading` and `level` both are (99.896 prints `99.9%` like 99.9 but
    /// is amber, so it must not join a green run). Runs compare these rather
    /// than building a string per day (90 strings per monitor were 8 % of a
    /// 1,000-monitor page).
    static func readingKey(_ day: DayBar) -> Int {
        guard let uptime = day.uptime else { return day.level == .maintenance ? -2 : -1 }
        let band = switch day.level {
        case .operational: 0
        case .partial: 1
        default: 2
        }
        return hundredths(uptime) * 4 + band
    }

    /// The uptime `percent` prints, in hundredths of a percent.
    static func hundredths(_ value: Double) -> Int { Int((value * 100).rounded()) }

    /// Consecutive days with the same reading and level: (first index, count).
    static func runs(_ days: [DayBar]) -> [(start: Int, count: Int)] {
        var out: [(start: Int, count: Int)] = []
        var previous: Int?
        for (i, day) in days.enumerated() {
            let r = readingKey(day)
            if r == previous, let last = out.indices.last { out[last].count += 1 } else { out.append((i, 1)) }
            previous = r
        }
        return out
    }

    /// `2026-11-30: 99.5% uptime`, or for a run `2026-09-03 to 2026-11-30: 100% uptime`.
    static func label(_ days: ArraySlice<DayBar>) -> String {
        guard let first = days.first, let last = days.last else { return "" }
        return (days.count == 1 ? first.date : "\(first.date) to \(last.date)") + ": " + reading(first)
    }

    /// The text alternative of the whole image.
    static func summary(_ days: [DayBar], overall: Double?) -> String {
        let noData = days.filter { $0.level == .noData }.count
        var text = "Uptime over the last \(days.count) days: " + (overall.map(percent) ?? "no data")
        let bad = days.filter { $0.level == .partial || $0.level == .major }.count
        if bad > 0 { text += "; \(bad) day\(bad == 1 ? "" : "s") with outages" }
        if noData > 0 && overall != nil { text += "; \(noData) day\(noData == 1 ? "" : "s") without data" }
        return text
    }

    static func svg(_ days: [DayBar], overall: Double?) -> String {
        let step = barWidth + gap
        let width = max(1, days.count * step - gap)
        var out = "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" "
            + "preserveAspectRatio=\"none\" role=\"img\" aria-label=\"\(HTML.escape(summary(days, overall: overall)))\">"
        for run in runs(days) {
            // A horizontal line as thick as a bar, dashed bar-gap-bar: each
            // dash is one day's bar.
            let length = run.count * step - gap
            out += "<path d=\"M\(run.start * step) \(height / 2)h\(length)\" stroke=\"\(color(days[run.start].level))\" "
                + "stroke-width=\"\(height)\" stroke-dasharray=\"\(barWidth) \(gap)\">"
                + "<title>\(HTML.escape(label(days[run.start..<(run.start + run.count)])))</title></path>"
        }
        return out + "</svg>"
    }
}
