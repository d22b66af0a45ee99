import Core
import Testing
import TestSupport

/// `GET|PATCH /api/settings` through the running binary, registering with a
/// fake relay that is a real loopback server.
@Suite struct PushSettingsAPITests {
    @Test func enableRegisterAndRefuse() throws {
        let relay = try FakePushRelay()
        defer { relay.stop() }
        let hub = try MonitoringHub()
        let before = try expectJSON(try hub.call("GET", "/api/settings"))
        let hubID = try #require(before["hub_id"]?.stringValue)
        #expect(hubID.count == 32)
        #expect(before["mobile_push"]?["enabled"] == false && before["mobile_push"]?["registered"] == false)
        #expect(before["mobile_push"]?["relay_url"]?.stringValue == "https://push.pingtxt.com")

        let on = try expectJSON(try hub.call("PATCH", "/api/settings", json: ["mobile_push": ["enabled": true, "relay_url": .string(relay.baseURL)]]))
        #expect(on["mobile_push"]?["enabled"] == true && on["mobile_push"]?["registered"] == true)
        #expect(on["mobile_push"]?["last_error"] == .null)
        #expect(on["hub_key"] == nil && on["mobile_push"]?["hub_key"] == nil, "the hub key is never shown")
        let reg = try #require(relay.registrations.first)
        #expect(reg.hubID == hubID && reg.name == "pingtxt hub")

        // The relay is down for a new URL: 200 with the error.
        relay.failRegistrations(status: 503)
        let failed = try expectJSON(try hub.call("PATCH", "/api/settings",
                                                 json: ["mobile_push": ["relay_url": .string(relay.baseURL + "/")]]))
        #expect(failed["mobile_push"]?["registered"] == false)
        #expect(failed["mobile_push"]?["last_error"]?.stringValue == "relay answered HTTP 503 to /v1/register")
        // The hub key never reaches the log.
        let log = hub.hub.log
        #expect(!relay.registrations.contains { log.contains($0.key) })

        // Refusals.
        let bad = try hub.call("PATCH", "/api/settings", json: ["mobile_push": ["relay_url": "http://relay.example.com"]])
        #expect(bad.status == 400 && (try? bad.json())?["error"]?["field"]?.stringValue == "mobile_push.relay_url")
        let unknown = try hub.call("PATCH", "/api/settings", json: ["theme": "dark"])
        #expect(unknown.status == 400 && (try? unknown.json())?["error"]?["field"]?.stringValue == "theme")
        let wrongType = try hub.call("PATCH", "/api/settings", json: ["mobile_push": ["enabled": "yes"]])
        #expect(wrongType.status == 400)

        _ = try expectJSON(try hub.hub.call("POST", "/api/users", token: hub.token, json: [
            "email": "viewer@example.com", "name": "V", "role": "readonly", "password": "correct horse battery"]), 201)
        let viewer = try hub.hub.token(email: "viewer@example.com", scope: "read")
        #expect(try hub.hub.call("GET", "/api/settings", token: viewer).status == 403)
        let app = try OAuthEndpointTests().exchange(hub.hub, try OAuthEndpointTests().mintCode(hub.hub))
        let access = try #require(try app.json()["access_token"]?.stringValue)
        let viaApp = try hub.hub.call("GET", "/api/settings", token: access)
        #expect(viaApp.status == 403 && (try? viaApp.json())?["error"]?["code"]?.stringValue == "account_endpoint")
        #expect(try hub.hub.call("GET", "/api/settings").status == 401)
    }
}
