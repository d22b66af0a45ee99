@testable import API
import Monitoring
import Core
import Testing

/// The pure parts of status pages: bars, badges, the overall line, slug
/// rules and cause redaction, as tables of inputs and outputs.
@Suite struct StatusPageDrawingTests {
    @Test(arguments: [
        (DayBar(date: "d", uptime: 100), DayBar.Level.operational),
        (DayBar(date: "d", uptime: 99.9), .operational),
        (DayBar(date: "d", uptime: 99.89), .partial),
        (DayBar(date: "d", uptime: 95), .partial),
        (DayBar(date: "d", uptime: 94.99), .major),
        (DayBar(date: "d", uptime: 0), .major),
        (DayBar(date: "d", uptime: nil), .noData),
        (DayBar(date: "d", uptime: nil, maintenanceChecks: 3), .maintenance),
        (DayBar(date: "d", uptime: 100, maintenanceChecks: 3), .operational),
    ])
    func dayLevels(_ day: DayBar, _ level: DayBar.Level) {
        #expect(day.level == level)
    }

    @Test(arguments: [(100.0, "100%"), (99.95, "99.95%"), (99.5, "99.5%"), (99.999, "100%"), (0.0, "0%"),
                      (12.05, "12.05%"), (7.009, "7.01%")])
    func percents(_ value: Double, _ text: String) {
        #expect(UptimeBars.percent(value) == text)
    }

    @Test(arguments: [
        (DayBar(date: "2026-11-30", uptime: 99.5), "2026-11-30: 99.5% uptime"),
        (DayBar(date: "2026-11-30", uptime: nil), "2026-11-30: no data"),
        (DayBar(date: "2026-11-30", uptime: nil, maintenanceChecks: 1), "2026-11-30: maintenance"),
    ])
    func barLabels(_ day: DayBar, _ text: String) {
        #expect(UptimeBars.label(day) == text)
    }

    @Test func barsAreOneDashedRunPerReadingWithTitlesAndASummary() {
        let days = [DayBar(date: "2026-11-28", uptime: nil), DayBar(date: "2026-11-29", uptime: 90),
                    DayBar(date: "2026-11-30", uptime: 100)]
        let svg = UptimeBars.svg(days, overall: 95)
        #expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>"))
        #expect(svg.contains("viewBox=\"0 0 11 30\""), "3 bars of 3 with 2 gaps of 1")
        #expect(svg.split(separator: "<path").count - 1 == 3)
        #expect(svg.contains("<path d=\"M0 15h3\" stroke=\"#cfd4dc\" stroke-width=\"30\" stroke-dasharray=\"3 1\"><title>2026-11-28: no data</title>"))
        #expect(svg.contains("<path d=\"M4 15h3\" stroke=\"#c0262d\" stroke-width=\"30\" stroke-dasharray=\"3 1\"><title>2026-11-29: 90% uptime</title>"))
        #expect(svg.contains("<path d=\"M8 15h3\" stroke=\"#1e8a4c\""))
        #expect(svg.contains("role=\"img\" aria-label=\"Uptime over the last 3 days: 95%; 1 day with outages; 1 day without data\""))
        #expect(UptimeBars.summary([DayBar(date: "d", uptime: nil)], overall: nil) == "Uptime over the last 1 days: no data")
    }

    /// Days that read the same are one element: its dashes are the days'
    /// bars (3 wide, 1 apart), its title names the first and last date.
    @Test func daysThatReadTheSameAreOneRun() {
        let days = [100, 100, 100, 99.5, 99.5, nil, nil, 100].enumerated().map { i, u in
            DayBar(date: "2026-11-2\(i)", uptime: u)
        }
        #expect(UptimeBars.runs(days).map { [$0.start, $0.count] } == [[0, 3], [3, 2], [5, 2], [7, 1]])
        // 99.896 prints like 99.9 but is amber: a run of its own.
        let edge = [99.9, 99.896, 99.9].map { DayBar(date: "d", uptime: $0) }
        #expect(UptimeBars.runs(edge).count == 3)
        let svg = UptimeBars.svg(days, overall: 99.8)
        #expect(svg.split(separator: "<path").count - 1 == 4)
        #expect(svg.contains("<path d=\"M0 15h11\" stroke=\"#1e8a4c\" stroke-width=\"30\" stroke-dasharray=\"3 1\">"
            + "<title>2026-11-20 to 2026-11-22: 100% uptime</title></path>"))
        #expect(svg.contains("<path d=\"M12 15h7\" stroke=\"#b06d00\""))
        #expect(svg.contains("<title>2026-11-25 to 2026-11-26: no data</title>"))
        #expect(svg.contains("<path d=\"M28 15h3\" stroke=\"#1e8a4c\""))
        #expect(svg.contains("viewBox=\"0 0 31 30\""))
        // A healthy quarter is one element.
        let quarter = (0..<90).map { DayBar(date: "d\($0)", uptime: 100) }
        #expect(UptimeBars.svg(quarter, overall: 100).split(separator: "<path").count - 1 == 1)
    }

    /// Runs compare numbers, labels print text: two days have the same key
    /// exactly when they print the same reading in the same colour,
    /// including near the rounding edges and the level thresholds.
    @Test func readingKeyAgreesWithTheReadingText() {
        var days = [DayBar(date: "d", uptime: nil), DayBar(date: "d", uptime: nil, maintenanceChecks: 3)]
        for u in [0, 0.004, 0.005, 94.994, 94.995, 95, 99.894, 99.895, 99.9, 99.904, 99.905, 99.995, 99.996, 100] {
            days.append(DayBar(date: "d", uptime: u))
        }
        for h in stride(from: 0, through: 10_000, by: 7) { days.append(DayBar(date: "d", uptime: Double(h) / 100)) }
        for a in days {
            for b in days where (UptimeBars.readingKey(a) == UptimeBars.readingKey(b))
                != (UptimeBars.reading(a) == UptimeBars.reading(b) && a.level == b.level) {
                Issue.record("\(a.uptime as Any) vs \(b.uptime as Any): \(UptimeBars.reading(a)) / \(UptimeBars.reading(b))")
            }
        }
    }

    @Test(arguments: [
        ("", 0), ("i", 4), ("up", 13), ("down", 30), ("API", 19), ("MW", 21), ("é", 8),
    ])
    func textWidths(_ text: String, _ px: Int) {
        #expect(StatusBadge.textWidth(text) == px)
    }

    @Test(arguments: [("up", "#1e7d3a"), ("down", "#b3261e"), ("degraded", "#8a5700"), ("maintenance", "#2a57b8"),
                      ("paused", "#5b6270"), ("pending", "#5b6270")])
    func badgeColors(_ status: String, _ color: String) {
        let svg = StatusBadge.svg(name: "API", status: status)
        #expect(svg.contains("fill=\"\(color)\""))
        #expect(svg.contains("<title>API: \(status)</title>"))
    }

    @Test func badgeWidthFollowsTheTextAndEscapesIt() {
        let svg = StatusBadge.svg(name: "API", status: "up")
        // "API" 7.5 + 7.5 + 3.1 → 19 px, "up" 6.3 + 6.3 → 13 px; 6 px padding each side.
        #expect(svg.contains("width=\"56\" height=\"20\""))
        #expect(svg.contains("<rect width=\"31\" height=\"20\" fill=\"#3c424d\"/>"))
        #expect(svg.contains("<rect x=\"31\" width=\"25\" height=\"20\" fill=\"#1e7d3a\"/>"))
        let longer = StatusBadge.svg(name: "API and the website", status: "up")
        #expect(!longer.contains("width=\"56\""))
        let hostile = StatusBadge.svg(name: "<b>&\"x\"</b>", status: "down")
        #expect(hostile.contains("&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;"))
        #expect(!hostile.contains("<b>"))
        #expect(StatusBadge.shorten(String(repeating: "a", count: 50)).count == 40)
        #expect(StatusBadge.shorten("short") == "short")
    }

    @Test(arguments: [
        ([String](), OverallStatus.operational),
        (["up", "up"], .operational),
        (["up", "paused", "pending"], .operational),
        (["up", "maintenance"], .maintenance),
        (["up", "degraded"], .partialOutage),
        (["up", "down"], .partialOutage),
        (["down", "maintenance"], .partialOutage),
        (["down", "down", "paused"], .majorOutage),
        (["down"], .majorOutage),
        (["degraded", "degraded"], .partialOutage),
    ])
    func overall(_ statuses: [String], _ expected: OverallStatus) {
        #expect(OverallStatus.of(statuses) == expected)
    }

    @Test func overallTexts() {
        #expect(OverallStatus.operational.text == "All systems operational")
        #expect(OverallStatus.partialOutage.text == "Partial outage")
        #expect(OverallStatus.majorOutage.text == "Major outage")
        #expect(OverallStatus.maintenance.text == "Maintenance")
    }

    @Test(arguments: [("a", true), ("acme-status", true), ("0-1", true), (String(repeating: "a", count: 64), true),
                      ("", false), ("-acme", false), ("Acme", false), ("a.json", false), ("a_b", false), ("a b", false),
                      (String(repeating: "a", count: 65), false), ("ä", false)])
    func slugs(_ slug: String, _ valid: Bool) {
        #expect(StatusPageInput.validSlug(slug) == valid)
    }

    @Test func inputValidationNamesTheField() throws {
        func field(_ body: JSON) -> String? {
            do {
                _ = try StatusPageInput.parse(try JSONFields(body))
                return nil
            } catch {
                return error.field
            }
        }
        #expect(field(["slug": "a", "title": "T"]) == nil)
        #expect(field(["slug": "a"]) == "title")
        #expect(field(["slug": "-a", "title": "T"]) == "slug")
        #expect(field(["title": "T"]) == "slug")
        #expect(field(["slug": "a", "title": "T", "monitor_ids": "1"]) == "monitor_ids")
        #expect(field(["slug": "a", "title": "T", "monitor_ids": [1, "x"]]) == "monitor_ids[1]")
        let parsed = try StatusPageInput.parse(try JSONFields(["slug": "a", "title": "  T ", "monitor_ids": [3, 1, 3]]))
        #expect(parsed == StatusPageInput(slug: "a", title: "T", description: "", monitorIDs: [3, 1]), "order kept, duplicates dropped")
        let patched = try StatusPageInput.parse(try JSONFields(["title": "New"]), existing: parsed)
        #expect(patched == StatusPageInput(slug: "a", title: "New", description: "", monitorIDs: [3, 1]))
    }

    @Test(arguments: [
        ("HTTP 503", "https://api.example.com/health", "HTTP 503"),
        ("DNS: api.example.com: NXDOMAIN", "https://api.example.com/health", "DNS: the target: NXDOMAIN"),
        ("GET https://api.example.com/health timed out", "https://api.example.com/health", "GET the target timed out"),
        ("connect db.internal:5432 refused", "db.internal:5432", "connect the target refused"),
        ("no answer from [::1]:80", "[::1]:80", "no answer from the target"),
    ])
    func causesNeverShowTheTarget(_ cause: String, _ target: String, _ shown: String) {
        #expect(StatusPageView.redact(cause, target: target) == shown)
    }
}
