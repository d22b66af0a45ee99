import Core
import Testing
import TestSupport

/// Stable keys on the REST API (SPEC §13): `key` on POST, PATCH and GET,
/// `PUT …/by-key/{key}` creating or replacing, `409` for a key another
/// object holds, `400` for a bad one. On SQLite and PostgreSQL.
@Suite struct ByKeyAPITests {
    @Test(arguments: TestEngine.all) func putByKeyCreatesReplacesAndReportsTheChange(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let token = try hub.token()
        func put(_ path: String, _ body: JSON) throws -> WireResponse { try hub.call("PUT", path, token: token, json: body) }

        let body: JSON = ["name": "API", "type": "tcp", "target": "127.0.0.1:9", "retries": 3, "paused": true]
        let created = try put("/api/monitors/by-key/api", body)
        let monitor = try expectJSON(created, 201)
        #expect(created.header("Pingtxt-Change") == "created")
        #expect(monitor["key"]?.stringValue == "api" && monitor["retries"]?.intValue == 3)
        let id = try #require(monitor["id"]?.intValue)

        let same = try put("/api/monitors/by-key/api", body)
        #expect(try expectJSON(same)["id"]?.intValue == id)
        #expect(same.header("Pingtxt-Change") == "unchanged")

        // Replacement, not merge: retries left out takes its default again.
        let replaced = try put("/api/monitors/by-key/api", ["name": "API", "type": "tcp", "target": "127.0.0.1:9", "paused": true])
        #expect(replaced.header("Pingtxt-Change") == "updated")
        #expect(try expectJSON(replaced)["retries"]?.intValue == 1)

        // A dry run validates and says what would happen, writing nothing.
        let dry = try expectJSON(try put("/api/monitors/by-key/web?dry_run=true", ["name": "Web", "type": "tcp", "target": "127.0.0.1:9"]))
        #expect(dry == ["key": "web", "change": "create"])
        #expect(try expectJSON(try hub.call("GET", "/api/monitors", token: token))["items"]?.arrayValue?.count == 1)
        let invalid = try put("/api/monitors/by-key/web?dry_run=true", ["name": "Web", "type": "tcp", "target": "127.0.0.1:9", "interval": 5])
        #expect(try invalid.status == 400 && (invalid.json())["error"]?["field"] == "interval")

        // Bad keys: 400 naming the field.
        for bad in ["Upper", "with%20space", String(repeating: "k", count: 65)] {
            let r = try put("/api/monitors/by-key/\(bad)", body)
            #expect(r.status == 400, "\(bad): \(r.text)")
            #expect((try r.json())["error"]?["field"] == "key")
        }
        let badPost = try hub.call("POST", "/api/monitors", token: token, json: ["key": "a b", "name": "X", "type": "tcp", "target": "h:1"])
        #expect(try badPost.status == 400 && (badPost.json())["error"]?["field"] == "key")

        // A key another object holds: 409 in the spec's shape, nothing created.
        let other = try expectJSON(try hub.call("POST", "/api/monitors", token: token,
                                                json: ["name": "Other", "type": "tcp", "target": "127.0.0.1:9", "paused": true]), 201)
        #expect(other["key"] == .null)
        let taken = try hub.call("PATCH", "/api/monitors/\(other["id"]!.intValue!)", token: token, json: ["key": "api"])
        #expect(taken.status == 409, "\(taken.text)")
        let error = try taken.json()["error"]
        #expect(error?["code"] == "key_taken" && error?["field"] == "key" && error?["message"]?.stringValue?.isEmpty == false)
        let dup = try hub.call("POST", "/api/monitors", token: token, json: ["key": "api", "name": "Dup", "type": "tcp", "target": "h:1"])
        #expect(dup.status == 409)
        #expect(try expectJSON(try hub.call("GET", "/api/monitors", token: token))["items"]?.arrayValue?.count == 2)

        // PATCH sets and clears; GET shows it.
        _ = try expectJSON(try hub.call("PATCH", "/api/monitors/\(other["id"]!.intValue!)", token: token, json: ["key": "other"]))
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(other["id"]!.intValue!)", token: token))["key"] == "other")
        let cleared = try expectJSON(try hub.call("PATCH", "/api/monitors/\(other["id"]!.intValue!)", token: token, json: ["key": JSON.null]))
        #expect(cleared["key"] == .null)

        // A read token cannot PUT.
        let reader = try hub.token(scope: "read", name: "reader")
        #expect(try hub.call("PUT", "/api/monitors/by-key/api", token: reader, json: body).status == 403)
    }

    @Test(arguments: TestEngine.all) func everyKindHasItsByKeyPut(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let token = try hub.token()
        func put(_ path: String, _ body: JSON) throws -> WireResponse { try hub.call("PUT", path, token: token, json: body) }

        let channel: JSON = ["name": "Hook", "type": "webhook", "config": ["url": "http://127.0.0.1:9/", "secret": "shh"], "reminder_minutes": 30]
        let c = try expectJSON(try put("/api/channels/by-key/hook", channel), 201)
        #expect(c["key"] == "hook" && c["config"]?["secret"] == "********")
        // The mask sent back keeps the secret (a GET → PUT round trip); a left-out field takes its default.
        var masked = channel
        if case .object(var o) = masked { o["config"] = ["url": "http://127.0.0.1:9/", "secret": "********"]; masked = .object(o) }
        #expect(try put("/api/channels/by-key/hook", masked).header("Pingtxt-Change") == "unchanged")
        let noReminder = try put("/api/channels/by-key/hook", ["name": "Hook", "type": "webhook", "config": ["url": "http://127.0.0.1:9/"]])
        #expect(try expectJSON(noReminder)["reminder_minutes"]?.intValue == 0)
        let revealed = try expectJSON(try hub.call("GET", "/api/config?secrets=reveal", token: token))
        #expect(revealed["channels"]?.arrayValue?.first?["config"]?["secret"] == "shh", "a secret left out is kept")

        let channelID = try #require(c["id"]?.intValue)
        let policy: JSON = ["name": "Ops", "steps": [["channel_ids": [.int(channelID)], "delay_minutes": 5]]]
        #expect(try expectJSON(try put("/api/escalation-policies/by-key/ops", policy), 201)["key"] == "ops")
        #expect(try put("/api/escalation-policies/by-key/ops", policy).header("Pingtxt-Change") == "unchanged")

        let window: JSON = ["title": "Upgrade", "monitor_ids": [], "starts_at": "2030-01-01T02:00:00Z", "ends_at": "2030-01-01T03:00:00Z"]
        #expect(try expectJSON(try put("/api/maintenance/by-key/upgrade", window), 201)["key"] == "upgrade")
        #expect(try put("/api/maintenance/by-key/upgrade", window).header("Pingtxt-Change") == "unchanged")

        let page: JSON = ["slug": "acme", "title": "Acme"]
        #expect(try expectJSON(try put("/api/status-pages/by-key/acme", page), 201)["key"] == "acme")
        let renamed = try put("/api/status-pages/by-key/acme", ["slug": "acme", "title": "Acme Inc."])
        #expect(renamed.header("Pingtxt-Change") == "updated")
        #expect(try expectJSON(try hub.call("GET", "/api/status-pages", token: token))["items"]?.arrayValue?.first?["key"] == "acme")

        // POST /api/config/keys gives unkeyed objects keys made from their names, unique per kind.
        for _ in 0..<2 {
            _ = try expectJSON(try hub.call("POST", "/api/monitors", token: token,
                                            json: ["name": "Ünïcode API — EU!", "type": "tcp", "target": "127.0.0.1:9", "paused": true]), 201)
        }
        let assigned = try expectJSON(try hub.call("POST", "/api/config/keys", token: token))
        #expect(assigned["assigned"]?["monitors"] == 2 && assigned["assigned"]?["channels"] == 0)
        let keys = try expectJSON(try hub.call("GET", "/api/monitors", token: token))["items"]?.arrayValue?.compactMap { $0["key"]?.stringValue }
        #expect(Set(keys ?? []) == ["unicode-api-eu", "unicode-api-eu-2"], "\(keys ?? [])")

        // Revealing secrets needs an admin's write credential.
        let reader = try hub.token(scope: "read", name: "reader")
        #expect(try hub.call("GET", "/api/config?secrets=reveal", token: reader).status == 403)
        #expect(try hub.call("GET", "/api/config", token: reader).status == 200)
    }
}
