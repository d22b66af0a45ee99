import Testing
import Core
import Monitoring
@testable import Notify
import Store

/// Acknowledging an incident queues one acknowledge row per paging channel
/// (pagerduty, opsgenie) that was alerted for it, in the caller's
/// transaction; nothing for the other channels.
@Suite struct IncidentAcknowledgeTests {
    @Test func onlyAlertedPagingChannelsGetAnAcknowledgeRow() throws {
        let f = try OutboxSinkTests.Fixture()
        let id = try f.monitor()
        let events = #"["monitor_down","monitor_up"]"#
        let pd = try f.channel("pagerduty", events: events, config: #"{"routing_key":"0123456789abcdef0123456789abcdef"}"#)
        let og = try f.channel("opsgenie", events: events, config: #"{"api_key":"k","region":"eu"}"#)
        let elsewhere = try f.channel("pagerduty", events: events, monitors: "[\(id + 1)]",
                                      config: #"{"routing_key":"fedcba9876543210fedcba9876543210"}"#)
        let slack = try f.channel("slack", events: events, config: #"{"webhook_url":"https://hooks.example/x"}"#)
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
