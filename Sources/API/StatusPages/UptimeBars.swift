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
/// One rect per day, oldest first; each carries a `<title>` (tooltip and
/// accessible name), and the whole image an `aria-label` summary, so the
/// picture is never the only way to read it.
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
        let hundredths = Int((value * 100).rounded())
        let whole = hundredths / 100, frac = hundredths % 100
        if frac == 0 { return "\(whole)%" }
        if frac % 10 == 0 { return "\(whole).\(frac / 10)%" }
        return "\(whole).\(frac < 10 ? "0" : "")\(frac)%"
    }

    /// The text of one bar: `2026-11-30: 99.5% uptime`, `… no data`, `… maintenance`.
    static func label(_ day: DayBar) -> String {
        switch day.level {
        case .noData: "\(day.date): no data"
        case .maintenance: "\(day.date): maintenance"
        default: "\(day.date): \(percent(day.uptime ?? 0)) uptime"
        }
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
        let width = max(1, days.count * (barWidth + gap) - gap)
        var out = "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" "
            + "preserveAspectRatio=\"none\" role=\"img\" aria-label=\"\(HTML.escape(summary(days, overall: overall)))\">"
        for (i, day) in days.enumerated() {
            out += "<rect x=\"\(i * (barWidth + gap))\" y=\"0\" width=\"\(barWidth)\" height=\"\(height)\" rx=\"1\" "
                + "fill=\"\(color(day.level))\"><title>\(HTML.escape(label(day)))</title></rect>"
        }
        return out + "</svg>"
    }
}
