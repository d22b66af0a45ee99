import Core
import Store

/// Rows in most of the hub's tables, written through the repositories, for
/// the copy tests: gaps in the ids (a deleted user), blobs with NUL and 0xFF
/// bytes, JSON with non-ASCII text, NULLs, and tables big enough to need
/// several pages (`check_results` by id, `result_rollups` by its
/// three-column key, `rollup_days` by its two-column one).
enum DatabaseSeed {
    struct IDs {
        var maxUser: Int64 = 0
        var maxMonitor: Int64 = 0
        var maxEvent: Int64 = 0
        var maxOutbox: Int64 = 0
        var channel: Int64 = 0
    }

    static let checkResults = 1203
    /// Daily roll-ups (`result_rollups`).
    static let rollups = 520
    /// Hourly roll-ups, 13 hours apart per monitor, so days hold one or two.
    static let hours = 1300
    static func hourStart(_ i: Int) -> Int64 { Int64(i / 2) * 13 * 3600 }
    static let rollupDays = Set((0..<hours).map { i in "\(i % 2) \(hourStart(i) / 86400)" }).count

    static let expectedRows: [String: Int] = [
        "users": 2, "api_tokens": 2, "monitors": 3, "check_results": checkResults, "result_rollups": rollups, "rollup_days": rollupDays,
        "incidents": 2, "incident_timeline": 3, "events": 4, "heartbeat_pings": 2, "heartbeat_state": 1,
        "channels": 2, "outbox": 3, "meta": 1, "quiet_hours": 1, "escalation_policies": 1, "incident_escalations": 1,
        "monitor_tags": 2,
    ]

    static func fill(_ db: Database) throws -> IDs {
        try db.write { c in
            var ids = IDs()
            let a = try Users.insert(c, email: "a@example.com", name: "Ann", role: "admin", passwordHash: "$scrypt$x", now: 1)
            let b = try Users.insert(c, email: "b@example.com", name: "", role: "readonly", passwordHash: nil, now: 2)
            let u = try Users.insert(c, email: "Ü@example.com", name: "Üwe", role: "readonly", passwordHash: nil, now: 3)
            _ = try Users.delete(c, id: b.id)
            ids.maxUser = u.id
            _ = try APITokens.insert(c, userID: a.id, name: "cli", scope: "write", hash: [0x00, 0xFF] + Array(repeating: 0x7F, count: 30),
                                     now: 4, expiresAt: nil)
            _ = try APITokens.insert(c, userID: u.id, name: "ro", scope: "read", hash: Array(0..<32), now: 5, expiresAt: 99)

            _ = try UserQuietHours.save(c, QuietHoursRecord(userID: u.id, enabled: true, start: "22:00", end: "07:00",
                                                            timezone: "Europe/Berlin", minPriority: 8), now: 5)
            var http = MonitorRecord(name: "site", type: "http", target: "https://example.com/", interval: 60, timeout: 10, retries: 1)
            http.priority = 9
            http.settings = JSONObject([("http", .object(JSONObject([("method", "GET"), ("expect", "Grüße ✓")])))])
            http.locations = ["hub", "eu"]
            http.tags = ["eu", "prod"]
            let m1 = try Monitors.insert(c, http, now: 6)
            var beat = MonitorRecord(name: "cron", type: "heartbeat", target: nil, interval: 300, timeout: 60, retries: 0)
            beat.pingKey = "k3y"
            let m2 = try Monitors.insert(c, beat, now: 7)
            let m3 = try Monitors.insert(c, MonitorRecord(name: "db", type: "tcp", target: "10.0.0.1:5432", interval: 30, timeout: 5,
                                                          retries: 2), now: 8)
            ids.maxMonitor = m3.id

            for i in 0..<checkResults {
                try CheckResults.insert(c, CheckResultRecord(monitorID: i % 2 == 0 ? m1.id : m3.id, atMs: 1_000_000 + Int64(i) * 1000,
                                                             location: i % 3 == 0 ? "eu" : "hub", status: i % 10 == 0 ? "down" : "up",
                                                             latencyMs: i % 10 == 0 ? nil : Int64(i % 97), statusCode: i % 2 == 0 ? 200 : nil,
                                                             error: i % 10 == 0 ? "timeout after 10 s" : nil, inMaintenance: i % 50 == 0))
            }
            for i in 0..<rollups {
                try CheckResults.upsertRollup(c, RollupRecord(monitorID: i % 2 == 0 ? m1.id : m3.id, resolution: 86400,
                                                              bucketStart: Int64(i / 2) * 86400, up: Int64(i), degraded: 0, down: 1,
                                                              inMaintenance: 0, latencySum: Int64(i) * 10, latencyCount: Int64(i),
                                                              histogram: "[1,2,3]"))
            }
            try CheckResults.upsertRollups(c, (0..<hours).map { i in
                RollupRecord(monitorID: i % 2 == 0 ? m1.id : m3.id, resolution: 3600, bucketStart: hourStart(i), up: Int64(i),
                             degraded: Int64(i % 3), down: 1, inMaintenance: Int64(i % 5), latencySum: Int64(i) * 10,
                             latencyCount: Int64(i), histogram: "1:2,3:\(i)")
            })

            let down = try Incidents.open(c, monitorID: m1.id, kind: "down", cause: "HTTP 503", locations: ["hub"], at: 10)
            try Incidents.addTimeline(c, incidentID: down.id, at: 10, event: "opened", detail: "HTTP 503")
            let expiry = try Incidents.open(c, monitorID: m3.id, kind: "expiry", cause: "certificate", locations: [], at: 11)
            try Incidents.addTimeline(c, incidentID: expiry.id, at: 11, event: "opened", detail: "")
            _ = try Incidents.close(c, monitorID: m3.id, kind: "expiry", at: 12)
            try Incidents.addTimeline(c, incidentID: expiry.id, at: 12, event: "closed", detail: "renewed")

            var events: [Int64] = []
            for (kind, monitor, incident) in [("monitor_down", m1.id, down.id), ("monitor_up", m3.id, expiry.id),
                                              ("monitor_down", m2.id, nil as Int64?), ("agent_offline", nil as Int64?, nil as Int64?)] {
                events.append(try Events.insert(c, EventRecord(kind: kind, monitorID: monitor, incidentID: incident, at: 13,
                                                               cause: "cause", locations: ["hub"], suppressed: kind == "monitor_up")))
            }
            ids.maxEvent = events.max()!

            try Heartbeats.record(c, monitorID: m2.id, atMs: 14_000, kind: "success", exitCode: 0, body: [0x00, 0x01, 0xFF], client: "10.0.0.9")
            try Heartbeats.record(c, monitorID: m2.id, atMs: 15_000, kind: "fail", exitCode: 3, body: [], client: nil)

            let ops = try Channels.insert(c, ChannelRecord(name: "Bereitschaft ✓", type: "webhook", enabled: true, events: [.monitorDown],
                                                           monitorIDs: [m1.id, m3.id], reminderMinutes: 30,
                                                           config: JSONObject([("url", "https://hooks.example.com/x?a=1&b=ü"),
                                                                               ("headers", .object(JSONObject([("X-Key", "s3cret")])))])),
                                          now: 16)
            _ = try Channels.insert(c, ChannelRecord(name: "mail", type: "email", enabled: false, events: [], monitorIDs: [],
                                                     reminderMinutes: 0, config: JSONObject([("to", .array(["ops@example.com"]))])), now: 17)
            ids.channel = ops.id
            for event in events.prefix(3) {
                ids.maxOutbox = try Outbox.insert(c, OutboxRecord(channelID: ops.id, eventID: event, kind: "alert", payload: "{}",
                                                                  nextAttemptAt: 18), now: 18) { id in "{\"id\":\(id),\"text\":\"Störung\"}" }
            }
            // A monitor naming a policy: the copy must bring policies before monitors.
            let policy = try EscalationPolicies.insert(c, EscalationPolicyRecord(name: "Nachts ✓", repeatCount: 2, steps: [
                EscalationStepRecord(channelIDs: [ops.id], delayMinutes: 5),
            ]), now: 19)
            var uses = try Monitors.find(c, id: m1.id)!
            uses.escalationPolicyID = policy.id
            _ = try Monitors.updateConfig(c, uses, now: 19)
            try Escalations.start(c, EscalationStateRecord(incidentID: down.id, policyID: policy.id, eventID: events[0], step: 1,
                                                            nextAt: 310, alerted: [ops.id]), now: 19)
            try Meta.set(c, "hub_id", "7f3a")
            return ids
        }
    }
}
