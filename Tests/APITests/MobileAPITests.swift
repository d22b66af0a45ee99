import Auth
import Core
import Crypto
import Store
import Testing

/// `/api/mobile` (SPEC §6) through the running binary, with real `pma_`
/// tokens from the OAuth code exchange (codes minted as the consent page
/// does, see `OAuthEndpointTests`).
@Suite struct MobileAPITests {
    let oauth = OAuthEndpointTests()

    /// A new sign-in of `email`: its access token.
    func signIn(_ hub: HubProcess, email: String = HubProcess.adminEmail, scope: Scope = .write) throws -> String {
        let t = try expectJSON(try oauth.exchange(hub, try oauth.mintCode(hub, email: email, scope: scope)))
        return try #require(t["access_token"]?.stringValue)
    }

    func enroll(_ hub: HubProcess, _ token: String, push: String, name: String = "Pixel") throws -> WireResponse {
        try hub.call("POST", "/api/mobile/devices", token: token,
                     json: ["platform": "android", "token": .string(push), "name": .string(name), "app_version": "1.2.3"])
    }

    func devices(_ hub: HubProcess, _ token: String) throws -> [JSON] {
        try #require(try expectJSON(try hub.call("GET", "/api/mobile/devices", token: token))["items"]?.arrayValue)
    }

    @Test func configForAnyReadCredential() throws {
        let hub = try HubProcess()
        let access = try signIn(hub)
        let c = try expectJSON(try hub.call("GET", "/api/mobile/config", token: access))
        let hubID = try #require(c["hub_id"]?.stringValue)
        #expect(hubID.count == 32)
        #expect(c["hub_name"]?.stringValue == "pingtxt hub")
        #expect(c["relay_epoch"]?.intValue == 1)
        #expect(c["push"] == ["enabled": false, "relay_url": "https://push.pingtxt.com"])
        #expect(c["scope"]?.stringValue == "read write")
        #expect(c["user"] == ["email": .string(HubProcess.adminEmail), "role": "admin"])
        let actions = try #require(c["actions"])
        #expect(actions["check_now"]?["method"]?.stringValue == "POST")
        #expect(actions["check_now"]?["path"]?.stringValue == "/api/monitors/{id}/check")
        #expect(actions["check_now"]?["body"] == .null)
        #expect(actions["mute"]?["path"]?.stringValue == "/api/monitors/{id}/mute")
        #expect(actions["mute"]?["body"] == ["minutes": 60])
        #expect(actions["pause"]?["path"]?.stringValue == "/api/monitors/{id}/pause")
        #expect(actions["acknowledge"]?["path"]?.stringValue == "/api/incidents/{id}/acknowledge")
        for key in ["check_now", "mute", "pause", "acknowledge"] {
            #expect(actions[key]?["allowed"] == true && actions[key]?["scope"]?.stringValue == "write", "\(key)")
        }

        // The hub id is permanent: an API token and a browser session see the same.
        let pmk = try expectJSON(try hub.call("GET", "/api/mobile/config", token: try hub.token(scope: "read")))
        #expect(pmk["hub_id"]?.stringValue == hubID && pmk["scope"]?.stringValue == "read")
        #expect(pmk["actions"]?["pause"]?["allowed"] == false)
        let browser = Browser(hub)
        try browser.login()
        #expect(try expectJSON(try browser.api("GET", "/api/mobile/config"))["hub_id"]?.stringValue == hubID)

        // A readonly user's sign-in is read: no action buttons.
        _ = try expectJSON(try hub.call("POST", "/api/users", token: try hub.token(),
                                        json: ["email": "viewer@example.com", "role": "readonly", "password": "viewer-password"]), 201)
        let viewer = try expectJSON(try hub.call("GET", "/api/mobile/config", token: try signIn(hub, email: "viewer@example.com")))
        #expect(viewer["scope"]?.stringValue == "read" && viewer["user"]?["role"]?.stringValue == "readonly")
        #expect(viewer["actions"]?["check_now"]?["allowed"] == false)
        expectError(try hub.call("GET", "/api/mobile/config"), 401, "unauthorized")
    }

    @Test func devicesAreBoundToTheSignIn() throws {
        let hub = try HubProcess()
        let a = try signIn(hub)
        let created = try enroll(hub, a, push: "fcm-token-a")
        let d = try expectJSON(created, 201)
        let id = try #require(d["id"]?.intValue)
        #expect(d["platform"]?.stringValue == "android" && d["name"]?.stringValue == "Pixel")
        #expect(d["app_version"]?.stringValue == "1.2.3")
        #expect(d["created_at"]?.stringValue?.hasSuffix("Z") == true && d["updated_at"]?.stringValue?.hasSuffix("Z") == true)
        #expect(d["live_activity"] == ["start_token": false, "activity_id": .null])
        #expect(d["token"] == nil)

        let again = try expectJSON(try enroll(hub, a, push: "fcm-token-a", name: "Pixel 9"), 200)
        #expect(again["id"]?.intValue == id && again["name"]?.stringValue == "Pixel 9")
        let mine = try devices(hub, a)
        #expect(mine.map { $0["id"]?.intValue } == [id])
        #expect(mine.first?["token"] == nil && !(mine.first.map { $0.serializedText.contains("fcm-token-a") } ?? true))

        // Another sign-in of the same user neither sees nor removes it.
        let b = try signIn(hub)
        #expect(try devices(hub, b).isEmpty)
        expectError(try hub.call("DELETE", "/api/mobile/devices/\(id)", token: b), 404, "not_found")
        expectError(try hub.call("DELETE", "/api/mobile/devices/999999", token: a), 404, "not_found")
        expectError(try hub.call("DELETE", "/api/mobile/devices/abc", token: a), 404)

        // No sign-in, no devices: API tokens and browser sessions get 403.
        let pmk = try hub.token()
        expectError(try enroll(hub, pmk, push: "fcm-token-x"), 403, "sign_in_required")
        expectError(try hub.call("GET", "/api/mobile/devices", token: pmk), 403, "sign_in_required")
        expectError(try hub.call("DELETE", "/api/mobile/devices/\(id)", token: pmk), 403, "sign_in_required")
        expectError(try hub.call("PUT", "/api/mobile/live-activity/start-token", token: pmk,
                                 json: ["device_id": .int(id), "token": "start"]), 403, "sign_in_required")
        let browser = Browser(hub)
        try browser.login()
        expectError(try browser.api("GET", "/api/mobile/devices"), 403, "sign_in_required")
        expectError(try hub.call("GET", "/api/mobile/devices"), 401, "unauthorized")

        #expect(try hub.call("DELETE", "/api/mobile/devices/\(id)", token: a).status == 204)
        expectError(try hub.call("DELETE", "/api/mobile/devices/\(id)", token: a), 404, "not_found")
        #expect(try devices(hub, a).isEmpty)
    }

    @Test func validationErrorsNameTheField() throws {
        let hub = try HubProcess()
        let a = try signIn(hub)
        let good: [(String, JSON)] = [("platform", "ios"), ("token", "abc123"), ("name", "iPhone"), ("app_version", "2.0")]
        func body(_ change: (String, JSON?)) -> JSON {
            var o = JSONObject(good)
            o[change.0] = change.1
            return .object(o)
        }
        let cases: [((String, JSON?), String)] = [
            (("platform", nil), "platform"), (("platform", "windows"), "platform"), (("platform", 1), "platform"),
            (("token", nil), "token"), (("token", ""), "token"), (("token", .string(String(repeating: "a", count: 4097))), "token"),
            (("token", "caf\u{E9}"), "token"), (("token", "a\nb"), "token"), (("token", 42), "token"),
            (("name", .string(String(repeating: "n", count: 101))), "name"), (("name", "a\u{7}b"), "name"),
            (("app_version", .string(String(repeating: "1", count: 51))), "app_version"),
        ]
        for (change, field) in cases {
            expectError(try hub.call("POST", "/api/mobile/devices", token: a, json: body(change)), 400, "validation_failed", field: field)
        }
        // The limits themselves are fine.
        let edge = try enroll(hub, a, push: String(repeating: "t", count: 4096), name: String(repeating: "é", count: 100))
        let id = try #require(try expectJSON(edge, 201)["id"]?.intValue)

        let la = "/api/mobile/live-activity/token"
        expectError(try hub.call("PUT", la, token: a, json: ["device_id": .string("\(id)"), "activity_id": "x", "token": "t"]),
                    400, "validation_failed", field: "device_id")
        expectError(try hub.call("PUT", la, token: a, json: ["activity_id": "x", "token": "t"]), 400, "validation_failed", field: "device_id")
        expectError(try hub.call("PUT", la, token: a, json: ["device_id": .int(id), "activity_id": "", "token": "t"]),
                    400, "validation_failed", field: "activity_id")
        expectError(try hub.call("PUT", la, token: a, json: ["device_id": .int(id), "activity_id": .string(String(repeating: "x", count: 201)),
                                                             "token": "t"]), 400, "validation_failed", field: "activity_id")
        expectError(try hub.call("PUT", la, token: a, json: ["device_id": .int(id), "activity_id": "x"]),
                    400, "validation_failed", field: "token")
        expectError(try hub.call("DELETE", la, token: a, json: ["device_id": 1.5, "activity_id": "x"]),
                    400, "validation_failed", field: "device_id")
        expectError(try hub.call("PUT", "/api/mobile/live-activity/start-token", token: a, json: ["device_id": .int(id), "token": ""]),
                    400, "validation_failed", field: "token")
        // Not JSON, no body, wrong type.
        let raw = try hub.connect().request("POST", "/api/mobile/devices",
                                            headers: [("Authorization", "Bearer \(a)"), ("Content-Type", "application/json")],
                                            body: Array("{nope".utf8))
        expectError(raw, 400, "invalid_json")
        expectError(try hub.call("POST", "/api/mobile/devices", token: a), 400, "body_required")
        expectError(try hub.connect().request("POST", "/api/mobile/devices",
                                              headers: [("Authorization", "Bearer \(a)"), ("Content-Type", "text/plain")],
                                              body: Array("{}".utf8)), 415, "unsupported_media_type")
    }

    @Test func liveActivityTokensOfOwnDevicesOnly() throws {
        let hub = try HubProcess()
        let a = try signIn(hub)
        let b = try signIn(hub)
        let mine = try #require(try expectJSON(try enroll(hub, a, push: "apns-a"), 201)["id"]?.intValue)
        let theirs = try #require(try expectJSON(try enroll(hub, b, push: "apns-b"), 201)["id"]?.intValue)

        #expect(try hub.call("PUT", "/api/mobile/live-activity/start-token", token: a,
                             json: ["device_id": .int(mine), "token": "start-a"]).status == 204)
        #expect(try hub.call("PUT", "/api/mobile/live-activity/token", token: a,
                             json: ["device_id": .int(mine), "activity_id": "ACT-1", "token": "upd-a"]).status == 204)
        var d = try #require(try devices(hub, a).first)
        #expect(d["live_activity"] == ["start_token": true, "activity_id": "ACT-1"])
        #expect(!d.serializedText.contains("start-a") && !d.serializedText.contains("upd-a"))

        // An older activity's end changes nothing; the current one's clears it.
        #expect(try hub.call("DELETE", "/api/mobile/live-activity/token", token: a,
                             json: ["device_id": .int(mine), "activity_id": "ACT-0"]).status == 204)
        #expect(try #require(try devices(hub, a).first)["live_activity"]?["activity_id"]?.stringValue == "ACT-1")
        #expect(try hub.call("DELETE", "/api/mobile/live-activity/token", token: a,
                             json: ["device_id": .int(mine), "activity_id": "ACT-1"]).status == 204)
        d = try #require(try devices(hub, a).first)
        #expect(d["live_activity"] == ["start_token": true, "activity_id": .null])

        // Another sign-in's phone, or none at all: 404, and nothing changed.
        for device in [theirs, 999_999] {
            expectError(try hub.call("PUT", "/api/mobile/live-activity/start-token", token: a,
                                     json: ["device_id": .int(device), "token": "evil"]), 404, "not_found")
            expectError(try hub.call("PUT", "/api/mobile/live-activity/token", token: a,
                                     json: ["device_id": .int(device), "activity_id": "X", "token": "evil"]), 404, "not_found")
            expectError(try hub.call("DELETE", "/api/mobile/live-activity/token", token: a,
                                     json: ["device_id": .int(device), "activity_id": "X"]), 404, "not_found")
        }
        #expect(try #require(try devices(hub, b).first)["live_activity"] == ["start_token": false, "activity_id": .null])
    }

    @Test func aSignInKeepsAtMostTwentyPhones() throws {
        // Above the per-user limit of SPEC §10 (default 10), so the per-sign-in bound is what acts.
        let hub = try HubProcess(environment: ["PINGTXT_MOBILE_MAX_DEVICES_PER_USER": "100"])
        let a = try signIn(hub)
        var ids: [Int64] = []
        for i in 0..<21 {
            ids.append(try #require(try expectJSON(try enroll(hub, a, push: "token-\(i)"), 201)["id"]?.intValue))
        }
        // The oldest enrollment made room (same second: the lower id is older).
        #expect(try devices(hub, a).compactMap { $0["id"]?.intValue } == Array(ids.dropFirst()))
        // Another sign-in's phones are not counted.
        let b = try signIn(hub)
        _ = try expectJSON(try enroll(hub, b, push: "other"), 201)
        #expect(try devices(hub, a).count == 20)
    }

    @Test func revokingTheSignInThroughConnectedAppsRemovesItsPhones() throws {
        let hub = try HubProcess()
        let admin = try hub.token()
        let a = try signIn(hub)
        let id = try #require(try expectJSON(try enroll(hub, a, push: "apns-revoked"), 201)["id"]?.intValue)

        let apps = try #require(try expectJSON(try hub.call("GET", "/api/connected-apps", token: admin))["items"]?.arrayValue)
        #expect(apps.count == 1)
        let app = try #require(apps.first)
        let listed = try #require(app["devices"]?.arrayValue)
        #expect(listed.map { $0["id"]?.intValue } == [id])
        #expect(listed.first?["platform"]?.stringValue == "android" && listed.first?["token"] == nil)
        #expect(!app.serializedText.contains("apns-revoked"))

        let appID = try #require(app["id"]?.intValue)
        #expect(try hub.call("DELETE", "/api/connected-apps/\(appID)", token: admin).status == 204)
        expectError(try hub.call("GET", "/api/mobile/devices", token: a), 401)

        // The phone signs in again: its old enrollment is gone, so the same token is new here.
        let c = try signIn(hub)
        #expect(try devices(hub, c).isEmpty)
        // (201, not 200: the row was deleted. The id itself may be reused: SQLite rowids without AUTOINCREMENT.)
        let fresh = try expectJSON(try enroll(hub, c, push: "apns-revoked"), 201)
        let after = try #require(try expectJSON(try hub.call("GET", "/api/connected-apps", token: admin))["items"]?.arrayValue)
        #expect(after.count == 1 && after.first?["id"]?.intValue != appID)
        #expect(after.first?["devices"]?.arrayValue?.map { $0["id"]?.intValue } == [fresh["id"]?.intValue])
    }
}

extension JSON {
    /// The serialized text, to check that a secret appears nowhere in an answer.
    var serializedText: String { String(decoding: serialized(), as: UTF8.self) }
}
