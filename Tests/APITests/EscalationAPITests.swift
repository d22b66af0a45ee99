import Core
import Testing
import TestSupport

/// `/api/escalation-policies` and the monitor's `escalation_policy_id`
/// through the running binary, on both engines: the spec's JSON, every
/// validation rule with its `field`, the 409s, and read vs write tokens.
@Suite struct EscalationAPITests {
    func channel(_ hub: MonitoringHub, _ name: String) throws -> Int64 {
        let ch = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": .string(name), "type": "webhook", "events": [], "config": ["url": "http://127.0.0.1:9/hook"],
        ]), 201)
        return try #require(ch["id"]?.intValue)
    }

    @Test(arguments: TestEngine.all) func policiesAsTheSpecShowsThem(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let (a, b, c) = (try channel(hub, "Telegram"), try channel(hub, "Email"), try channel(hub, "Phones"))
        let created = try expectJSON(try hub.call("POST", "/api/escalation-policies", json: [
            "name": "Ops", "repeat": 1,
            "steps": [["channel_ids": [.int(a)], "delay_minutes": 10], ["channel_ids": [.int(b), .int(c)], "delay_minutes": 15]],
        ]), 201)
        let id = try #require(created["id"]?.intValue)
        #expect(created.objectValue?.keys == ["id", "key", "name", "repeat", "steps", "created_at", "updated_at"])  // "key": SPEC §13
        #expect(created["steps"] == [["channel_ids": [.int(a)], "delay_minutes": 10], ["channel_ids": [.int(b), .int(c)], "delay_minutes": 15]])
        #expect(created["repeat"] == 1 && created["name"] == "Ops")
        #expect(try expectJSON(try hub.call("GET", "/api/escalation-policies/\(id)")) == created)
        let list = try expectJSON(try hub.call("GET", "/api/escalation-policies"))
        #expect(list["items"]?.arrayValue?.count == 1 && list["next_cursor"] == .null)

        // PATCH: absent fields stay, steps replace the old ones.
        let patched = try expectJSON(try hub.call("PATCH", "/api/escalation-policies/\(id)", json: ["repeat": 0]))
        #expect(patched["repeat"] == 0 && patched["steps"] == created["steps"] && patched["name"] == "Ops")
        let fewer = try expectJSON(try hub.call("PATCH", "/api/escalation-policies/\(id)",
                                                json: ["steps": [["channel_ids": [.int(c)], "delay_minutes": 1]]]))
        #expect(fewer["steps"] == [["channel_ids": [.int(c)], "delay_minutes": 1]])

        // A monitor names it; null by default.
        let plain = try hub.create(monitorBody("plain", type: "tcp", target: "127.0.0.1:9"))
        #expect(plain["escalation_policy_id"] == .null)
        let guarded = try hub.create(monitorBody("guarded", type: "tcp", target: "127.0.0.1:9", [("escalation_policy_id", .int(id))]))
        #expect(guarded["escalation_policy_id"]?.intValue == id)
        let mid = try #require(guarded["id"]?.intValue)
        expectError(try hub.call("DELETE", "/api/escalation-policies/\(id)"), 409, "policy_in_use")
        expectError(try hub.call("DELETE", "/api/channels/\(c)"), 409, "channel_in_use")
        let cleared = try expectJSON(try hub.call("PATCH", "/api/monitors/\(mid)", json: ["escalation_policy_id": .null]))
        #expect(cleared["escalation_policy_id"] == .null)
        #expect(try hub.call("DELETE", "/api/escalation-policies/\(id)").status == 204)
        expectError(try hub.call("GET", "/api/escalation-policies/\(id)"), 404, "not_found")
        #expect(try hub.call("DELETE", "/api/channels/\(c)").status == 204, "no policy names it any more")
    }

    @Test(arguments: TestEngine.all) func everyRuleNamesItsField(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let ch = try channel(hub, "hook")
        func step(_ ids: [Int64], _ delay: JSON = 5) -> JSON { ["channel_ids": .array(ids.map { .int($0) }), "delay_minutes": delay] }
        func refused(_ body: JSON, field: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            expectError(try hub.call("POST", "/api/escalation-policies", json: body), 400, "validation_failed", field: field,
                        sourceLocation: sourceLocation)
        }
        try refused(["steps": [step([ch])]], field: "name")
        try refused(["name": "  ", "steps": [step([ch])]], field: "name")
        try refused(["name": .string(String(repeating: "x", count: 101)), "steps": [step([ch])]], field: "name")
        try refused(["name": "Ops"], field: "steps")
        try refused(["name": "Ops", "steps": []], field: "steps")
        try refused(["name": "Ops", "steps": .array(Array(repeating: step([ch]), count: 11))], field: "steps")
        try refused(["name": "Ops", "steps": [step([])]], field: "steps[0].channel_ids")
        try refused(["name": "Ops", "steps": [step(Array(1...21))]], field: "steps[0].channel_ids")
        try refused(["name": "Ops", "steps": [step([ch]), step([ch, 424242])]], field: "steps[1].channel_ids")
        try refused(["name": "Ops", "steps": [step([ch], 0)]], field: "steps[0].delay_minutes")
        try refused(["name": "Ops", "steps": [step([ch], 1441)]], field: "steps[0].delay_minutes")
        try refused(["name": "Ops", "steps": [["channel_ids": [.int(ch)]]]], field: "steps[0].delay_minutes")
        try refused(["name": "Ops", "repeat": 10, "steps": [step([ch])]], field: "repeat")
        try refused(["name": "Ops", "repeat": -1, "steps": [step([ch])]], field: "repeat")
        // The edges are accepted.
        _ = try expectJSON(try hub.call("POST", "/api/escalation-policies", json: [
            "name": .string(String(repeating: "x", count: 100)), "repeat": 9,
            "steps": .array(Array(repeating: step([ch], 1440), count: 10)),
        ]), 201)
        // A PATCH is checked the same way, and an unknown policy is 404.
        let p = try expectJSON(try hub.call("POST", "/api/escalation-policies", json: ["name": "Ops", "steps": [step([ch], 1)]]), 201)
        let pid = try #require(p["id"]?.intValue)
        expectError(try hub.call("PATCH", "/api/escalation-policies/\(pid)", json: ["steps": [step([999])]]), 400, field: "steps[0].channel_ids")
        expectError(try hub.call("PATCH", "/api/escalation-policies/999999", json: ["repeat": 1]), 404)
        expectError(try hub.call("DELETE", "/api/escalation-policies/999999"), 404)
        // Monitors: an unknown or malformed policy id.
        expectError(try hub.call("POST", "/api/monitors", json: monitorBody("m", type: "tcp", target: "127.0.0.1:9",
                                                                         [("escalation_policy_id", 999_999)])),
                    400, "validation_failed", field: "escalation_policy_id")
        expectError(try hub.call("POST", "/api/monitors", json: monitorBody("m", type: "tcp", target: "127.0.0.1:9",
                                                                         [("escalation_policy_id", "ops")])),
                    400, "validation_failed", field: "escalation_policy_id")
        let m = try hub.create(monitorBody("m", type: "tcp", target: "127.0.0.1:9"))
        expectError(try hub.call("PATCH", "/api/monitors/\(try #require(m["id"]?.intValue))", json: ["escalation_policy_id": 0]),
                    400, "validation_failed", field: "escalation_policy_id")
    }

    @Test func aReadTokenReadsButDoesNotWrite() throws {
        let hub = try MonitoringHub()
        let ch = try channel(hub, "hook")
        let read = try hub.hub.token(scope: "read", name: "ro")
        let body: JSON = ["name": "Ops", "steps": [["channel_ids": [.int(ch)], "delay_minutes": 5]]]
        expectError(try hub.hub.call("POST", "/api/escalation-policies", token: read, json: body), 403)
        let p = try expectJSON(try hub.call("POST", "/api/escalation-policies", json: body), 201)
        let id = try #require(p["id"]?.intValue)
        #expect(try hub.hub.call("GET", "/api/escalation-policies/\(id)", token: read).status == 200)
        expectError(try hub.hub.call("PATCH", "/api/escalation-policies/\(id)", token: read, json: ["repeat": 1]), 403)
        expectError(try hub.hub.call("DELETE", "/api/escalation-policies/\(id)", token: read), 403)
        expectError(try hub.hub.call("GET", "/api/escalation-policies"), 401)
    }
}
