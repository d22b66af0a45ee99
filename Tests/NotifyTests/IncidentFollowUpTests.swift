import Testing
import TestSupport
import Core
import Monitoring
@testable import Notify
import Store

/// Paging channels (pagerduty, opsgenie) follow the incidents they were
/// alerted for: acknowledged on the hub → one acknowledge row each; closed
/// without a `monitor_up` for them → one resolve row each. Nothing for the
/// other channels, nor for paging channels never alerted for it.
@Suite struct IncidentFollowUpTests {
    static let key: JSON = ["routing_key": "0123456789abcdef0123456789abcdef"]

    /// `(event_action, dedup_key)` of every row of a pagerduty channel.
    static func pagerDuty(_ f: OutboxSinkTests.Fixture, _ channel: Int64) throws -> [String] {
        try f.outbox(channel).map { row in
            let r = try #require(OutboundRequest(storedText: row.payload))
            let j = try JSON.parse(r.bodyText)
            return "\(j["event_action"]?.stringValue ?? "?") \(j["dedup_key"]?.stringValue ?? "?")"
        }
    }

    static func hubID(_ f: OutboxSinkTests.Fixture) throws -> String {
        try #require(try f.db.read { try PushSettings.read($0)?.hubID })
    }

    @Test(arguments: TestEngine.all) func pausingADownMonitorResolvesItsAlert(engine: TestEngine) throws {
        let f = try OutboxSinkTests.Fixture(engine)
        let id = try f.monitor()
        let pd = try f.channel("pagerduty", events: [.monitorDown, .monitorUp], config: Self.key)
        let slack = try f.channel("slack", events: [.monitorDown, .monitorUp], config: ["webhook_url": "https://hooks.example/x"])
        try f.apply(id, at: 1_764_410_460, .up)
        try f.apply(id, at: 1_764_410_520, .down, error: "HTTP 503")
        let incident = try #require(try f.db.read { try Incidents.openFor($0, monitorID: id) }.first)
        try f.db.write { c in _ = try f.recorder.apply(.pause(at: 1_764_410_600), monitorID: id, on: c) }
        let key = "pingtxt-\(try Self.hubID(f))-incident-\(incident.id)"
        #expect(try Self.pagerDuty(f, pd) == ["trigger \(key)", "resolve \(key)"])
        #expect(try f.outbox(slack).count == 1, "chat channels hear nothing of a pause")
    }

    @Test(arguments: TestEngine.all) func aDegradedIncidentThatTurnsDownIsResolvedAndTheUpIsSentOnce(engine: TestEngine) throws {
        let f = try OutboxSinkTests.Fixture(engine)
        let id = try f.monitor(degradedAfterMs: 1_000)
        let pd = try f.channel("pagerduty", events: [.monitorDegraded, .monitorDown, .monitorUp], config: Self.key)
        try f.apply(id, at: 1_764_410_460, .up)
        try f.apply(id, at: 1_764_410_520, .up, latencyMs: 2_500)
        try f.apply(id, at: 1_764_410_580, .down, error: "HTTP 503")
        try f.apply(id, at: 1_764_410_700, .up)
        let incidents = try f.db.read { try Incidents.list($0, status: nil, monitorID: id, beforeID: nil, limit: 10) }.map(\.id).sorted()
        try #require(incidents.count == 2)
        let hub = try Self.hubID(f)
        let degraded = "pingtxt-\(hub)-incident-\(incidents[0])", down = "pingtxt-\(hub)-incident-\(incidents[1])"
        let rows = try Self.pagerDuty(f, pd)
        // The close is followed up after the change's events: the down alert
        // is queued before the degraded one's resolve (different keys).
        #expect(rows == ["trigger \(degraded)", "trigger \(down)", "resolve \(degraded)", "resolve \(down)"], "\(rows)")
    }

    @Test(arguments: TestEngine.all) func aChannelWithoutMonitorUpStillResolves(engine: TestEngine) throws {
        let f = try OutboxSinkTests.Fixture(engine)
        let id = try f.monitor()
        let pd = try f.channel("pagerduty", events: [.monitorDown], config: Self.key)
        let never = try f.channel("opsgenie", events: [.monitorUp], config: ["api_key": "k"])
        try f.apply(id, at: 1_764_410_460, .up)
        try f.apply(id, at: 1_764_410_520, .down, error: "HTTP 503")
        try f.apply(id, at: 1_764_410_700, .up)
        #expect(try Self.pagerDuty(f, pd).map { $0.prefix(7) } == ["trigger", "resolve"])
        #expect(try f.outbox(never).count == 1, "an up that was never preceded by its alert is sent as routed, nothing more")
    }

    @Test(arguments: TestEngine.all) func onlyAlertedPagingChannelsGetAnAcknowledgeRow(engine: TestEngine) throws {
        let f = try OutboxSinkTests.Fixture(engine)
        let id = try f.monitor()
        let events: [EventKind] = [.monitorDown, .monitorUp]
        let pd = try f.channel("pagerduty", events: events, config: ["routing_key": "0123456789abcdef0123456789abcdef"])
        let og = try f.channel("opsgenie", events: events, config: ["api_key": "k", "region": "eu"])
        let elsewhere = try f.channel("pagerduty", events: events, monitors: [id + 1],
                                      config: ["routing_key": "fedcba9876543210fedcba9876543210"])
        let slack = try f.channel("slack", events: events, config: ["webhook_url": "https://hooks.example/x"])
        try f.apply(id, at: 1_764_410_460, .up)
        try f.apply(id, at: 1_764_410_520, .down, error: "HTTP 503")
        let incident = try #require(try f.db.read { try Incidents.openFor($0, monitorID: id) }.first)
        let hubID = try f.db.write { c in
            try f.notifier.incidentAcknowledged(incident, by: "alice@example.com", on: c)
            return try #require(try PushSettings.read(c)?.hubID)
        }
        let pdRows = try f.outbox(pd)
        #expect(pdRows.count == 2 && pdRows.allSatisfy { $0.kind == "alert" })
        let ackRow = try #require(pdRows.last)
        let ack = try #require(OutboundRequest(storedText: ackRow.payload))
        #expect(ack.service == "pagerduty")
        #expect(ack.bodyText == #"{"routing_key":"0123456789abcdef0123456789abcdef","event_action":"acknowledge","#
            + #""dedup_key":"pingtxt-\#(hubID)-incident-\#(incident.id)"}"#)
        let ogRows = try f.outbox(og)
        let ogRow = try #require(ogRows.last)
        let acknowledge = try #require(OutboundRequest(storedText: ogRow.payload))
        #expect(ogRows.count == 2 && acknowledge.service == "opsgenie")
        #expect(acknowledge.url == "https://api.eu.opsgenie.com/v2/alerts/pingtxt-\(hubID)-incident-\(incident.id)/acknowledge?identifierType=alias")
        #expect(try JSON.parse(acknowledge.bodyText)["user"] == "alice@example.com")
        #expect(try f.outbox(elsewhere).isEmpty, "never alerted for this incident: nothing to acknowledge")
        #expect(try f.outbox(slack).count == 1, "chat channels have no acknowledge")
        // The trigger that went out first carried the same key.
        let triggerRow = try #require(pdRows.first)
        let trigger = try #require(OutboundRequest(storedText: triggerRow.payload))
        #expect(try JSON.parse(trigger.bodyText)["dedup_key"] == .string("pingtxt-\(hubID)-incident-\(incident.id)"))
    }
}
