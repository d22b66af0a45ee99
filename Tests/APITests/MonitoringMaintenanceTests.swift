import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Maintenance windows, mute, pause and resume.
@Suite struct MonitoringMaintenanceTests {
    @Test func aWindowRecordsChecksAndIncidentsButSuppressesEvents() throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        let (id, _) = try hub.createChecked(httpMonitor("in maintenance", target.healthURL))
        let other = try hub.createChecked(httpMonitor("outside", target.healthURL))
        let now = Time.now()
        let window = try expectJSON(try hub.call("POST", "/api/maintenance", json: [
            "title": "db upgrade", "monitor_ids": [.int(id)],
            "starts_at": .string(Time.rfc3339(now - 60)), "ends_at": .string(Time.rfc3339(now + 3600)),
        ]), 201)
        #expect(window["active"] == .bool(true))
        #expect(window["monitor_ids"] == [.int(id)])
        #expect(window["created_by"]?.stringValue == HubProcess.adminEmail)
        let windowID = try #require(window["id"]?.intValue)
        #expect(try hub.monitor(id)["in_maintenance"] == .bool(true))
        #expect(try hub.monitor(other.id)["in_maintenance"] == .bool(false))

        target.setStatus(503)
        let r = try hub.check(id)
        #expect(r["monitor"]?["status"]?.stringValue == "down", "state changes as usual")
        let incidentID = try #require(r["monitor"]?["open_incident_id"]?.intValue)
        #expect(try hub.incident(incidentID)["status"]?.stringValue == "open")
        let results = try expectJSON(try hub.call("GET", "/api/monitors/\(id)/results"))["items"]?.arrayValue ?? []
        #expect(results.first?["status"]?.stringValue == "down")
        #expect(results.first?["in_maintenance"] == .bool(true))
        #expect(results.last?["in_maintenance"] == .bool(false), "the check before the window")
        let events = try hub.events(id)
        #expect(events.map(\.kind) == ["monitor_down"])
        #expect(events.first?.suppressed == true)
        // The monitor outside the window alerts normally.
        try hub.check(other.id)
        #expect(try hub.events(other.id).map(\.suppressed) == [false])

        // The window ends (deleted): the recovery is not suppressed.
        #expect(try hub.call("DELETE", "/api/maintenance/\(windowID)").status == 204)
        #expect(try hub.monitor(id)["in_maintenance"] == .bool(false))
        target.setStatus(200)
        try hub.check(id)
        #expect(try hub.events(id).map { "\($0.kind) \($0.suppressed)" } == ["monitor_down true", "monitor_up false"])
        expectError(try hub.call("GET", "/api/maintenance/\(windowID)"), 404)
    }

    @Test func muteCreatesAWindowForTheMonitor() throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        let (id, _) = try hub.createChecked(httpMonitor("noisy", target.healthURL))
        let window = try expectJSON(try hub.call("POST", "/api/monitors/\(id)/mute", json: ["minutes": 30]), 201)
        #expect(window["monitor_ids"] == [.int(id)])
        #expect(window["active"] == .bool(true))
        let starts = Time.parseRFC3339(window["starts_at"]?.stringValue ?? "") ?? 0
        let ends = Time.parseRFC3339(window["ends_at"]?.stringValue ?? "") ?? 0
        #expect(ends - starts == 30 * 60)
        #expect(abs(starts - Time.now()) < 60)
        #expect(try hub.monitor(id)["in_maintenance"] == .bool(true))
        let listed = try expectJSON(try hub.call("GET", "/api/maintenance"))["items"]?.arrayValue ?? []
        #expect(listed.contains { $0["id"] == window["id"] })
        // Default 60 minutes without a body.
        let other = try hub.createChecked(httpMonitor("other", target.healthURL))
        let defaulted = try expectJSON(try hub.call("POST", "/api/monitors/\(other.id)/mute"), 201)
        let d0 = Time.parseRFC3339(defaulted["starts_at"]?.stringValue ?? "") ?? 0
        let d1 = Time.parseRFC3339(defaulted["ends_at"]?.stringValue ?? "") ?? 0
        #expect(d1 - d0 == 3600)
        expectError(try hub.call("POST", "/api/monitors/\(id)/mute", json: ["minutes": 0]), 400, field: "minutes")
        expectError(try hub.call("POST", "/api/monitors/999999/mute"), 404)
    }

    @Test func pauseClosesTheIncidentAndResumeStartsOver() throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        let (id, _) = try hub.createChecked(httpMonitor("pausable", target.healthURL))
        target.setStatus(503)
        let down = try hub.check(id)
        let incidentID = try #require(down["monitor"]?["open_incident_id"]?.intValue)

        let paused = try expectJSON(try hub.call("POST", "/api/monitors/\(id)/pause"))
        #expect(paused["status"]?.stringValue == "paused")
        #expect(paused["paused"] == .bool(true))
        #expect(paused["open_incident_id"] == .null)
        let closed = try hub.incident(incidentID)
        #expect(closed["status"]?.stringValue == "closed")
        #expect(closed["timeline"]?.arrayValue?.last?["detail"]?.stringValue == "paused")
        #expect(try hub.events(id).map(\.kind) == ["monitor_down"], "pausing sends nothing")
        let listed = try expectJSON(try hub.call("GET", "/api/monitors?status=paused"))["items"]?.arrayValue ?? []
        #expect(listed.map { $0["id"]?.intValue } == [id])

        // Results while paused change nothing.
        let ignored = try hub.check(id)
        #expect(ignored["monitor"]?["status"]?.stringValue == "paused")
        #expect(try hub.incidents(id, status: "open").isEmpty)

        let resumed = try expectJSON(try hub.call("POST", "/api/monitors/\(id)/resume"))
        #expect(resumed["status"]?.stringValue == "pending")
        #expect(resumed["paused"] == .bool(false))
        // The check the hub runs on resume, or ours, takes it down again.
        let again = try hub.check(id)
        #expect(again["monitor"]?["status"]?.stringValue == "down")
        let newIncident = try #require(again["monitor"]?["open_incident_id"]?.intValue)
        #expect(newIncident != incidentID)
        target.setStatus(200)
        #expect(try hub.check(id)["monitor"]?["status"]?.stringValue == "up")
        #expect(try hub.incidents(id, status: "open").isEmpty)

        // PATCH paused goes through the same path.
        let patched = try expectJSON(try hub.call("PATCH", "/api/monitors/\(id)", json: ["paused": true]))
        #expect(patched["status"]?.stringValue == "paused")
    }

    @Test func acknowledgeRecordsWho() throws {
        let target = try SwitchableHTTPTarget()
        target.setStatus(503)
        let hub = try MonitoringHub()
        let (id, m) = try hub.createChecked(httpMonitor("ack", target.healthURL))
        let incidentID = try #require(m["open_incident_id"]?.intValue)
        let acked = try expectJSON(try hub.call("POST", "/api/incidents/\(incidentID)/acknowledge"))
        #expect(acked["acknowledged_by"]?.stringValue == HubProcess.adminEmail)
        #expect(acked["acknowledged_at"] != .null)
        #expect(try hub.incidents(id, status: "open").first?["acknowledged_by"]?.stringValue == HubProcess.adminEmail)
        expectError(try hub.call("POST", "/api/incidents/999999/acknowledge"), 404)
        expectError(try hub.call("GET", "/api/incidents/999999"), 404)
    }
}
