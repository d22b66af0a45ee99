import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `/metrics` has the series SPEC §2 names (open incidents, notifications
/// sent and failed), and every family its `# HELP` and `# TYPE`.
@Suite struct MetricsTests {
    /// The value of one sample line, e.g. `pingtxt_incidents_open{kind="down"}`.
    static func value(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    /// Every sample belongs to a family announced with HELP and TYPE before it.
    static func expectEveryFamilyDeclared(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var helped = Set<String>(), typed = Set<String>()
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") { helped.insert(String(line.split(separator: " ")[2])); continue }
            if line.hasPrefix("# TYPE ") { typed.insert(String(line.split(separator: " ")[2])); continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            // Summaries and histograms add suffixes to their family's name.
            let family = [name, String(name.dropLast("_count".count)), String(name.dropLast("_sum".count)),
                          String(name.dropLast("_bucket".count))].first { typed.contains($0) } ?? name
            #expect(typed.contains(family) && helped.contains(family), "no HELP/TYPE before \(line)", sourceLocation: sourceLocation)
        }
    }

    /// `/metrics` once `done` holds for it (or the last answer after 10 s, recorded as an issue).
    static func metrics(_ hub: MonitoringHub, until what: String, _ done: (String) -> Bool,
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let deadline = Time.monotonicNanos() + 10_000_000_000
        var text = try hub.call("GET", "/metrics").text
        while !done(text) {
            guard Time.monotonicNanos() < deadline else {
                Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
                return text
            }
            usleep(100_000)
            text = try hub.call("GET", "/metrics").text
        }
        return text
    }

    @Test func openIncidentsAndNotificationOutcomes() throws {
        let good = try RecordingHTTPReceiver()
        let refusing = try RecordingHTTPReceiver()
        refusing.setStatus(400)   // a permanent refusal: failed at once, no retry
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        for (name, url) in [("good", good.baseURL + "/hook"), ("refusing", refusing.baseURL + "/hook")] {
            _ = try expectJSON(try hub.call("POST", "/api/channels", json: [
                "name": .string(name), "type": "webhook", "events": ["monitor_down", "monitor_up"], "config": ["url": .string(url)],
            ]), 201)
        }
        let (id, _) = try hub.createChecked(httpMonitor("API", target.healthURL))
        let before = try hub.call("GET", "/metrics").text
        #expect(Self.value(before, #"pingtxt_incidents_open{kind="down"}"#) == 0, "\(before)")
        #expect(Self.value(before, #"pingtxt_notifications_total{channel_type="webhook",result="sent"}"#) == 0)

        target.setStatus(503)
        try hub.check(id)
        let after = try Self.metrics(hub, until: "the delivery outcomes", {
            Self.value($0, #"pingtxt_notifications_total{channel_type="webhook",result="failed"}"#) == 1
                && Self.value($0, #"pingtxt_notifications_total{channel_type="webhook",result="sent"}"#) == 1
        })
        #expect(Self.value(after, #"pingtxt_incidents_open{kind="down"}"#) == 1, "\(after)")
        #expect(Self.value(after, #"pingtxt_incidents_open{kind="expiry"}"#) == 0)
        #expect(Self.value(after, #"pingtxt_notifications_total{channel_type="slack",result="sent"}"#) == 0)
        Self.expectEveryFamilyDeclared(after)

        target.setStatus(200)
        try hub.check(id)
        let recovered = try Self.metrics(hub, until: "monitor_up delivered", {
            Self.value($0, #"pingtxt_notifications_total{channel_type="webhook",result="sent"}"#) == 2
        })
        #expect(Self.value(recovered, #"pingtxt_incidents_open{kind="down"}"#) == 0)
    }
}
