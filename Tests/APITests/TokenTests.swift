import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `/api/tokens`: the secret shown once, revocation, scope and expiry.
@Suite struct TokenTests {
    @Test(arguments: TestEngine.all) func createShowsTheSecretOnceAndListsNeverDo(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let admin = try hub.token()
        let created = try expectJSON(try hub.call("POST", "/api/tokens", token: admin, json: ["name": "ci", "scope": "read"]), 201)
        let secret = try #require(created["token"]?.stringValue)
        #expect(secret.hasPrefix("pmk_"))
        #expect(secret.count == 47)
        #expect(secret.dropFirst(4).allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(created["name"]?.stringValue == "ci")
        #expect(created["scope"]?.stringValue == "read")
        #expect(created["id"]?.intValue != nil)
        #expect(Time.parseRFC3339(created["created_at"]?.stringValue ?? "") != nil)
        #expect(created["expires_at"] == .null)

        let me = try expectJSON(try hub.call("GET", "/api/me", token: secret))
        #expect(me["scope"]?.stringValue == "read")

        let list = try expectJSON(try hub.call("GET", "/api/tokens", token: admin))
        let items = try #require(list["items"]?.arrayValue)
        #expect(items.count == 2)   // the CLI's and this one
        #expect(items.allSatisfy { $0["token"] == nil })
        #expect(!list.text.contains(secret))
        #expect(items.contains { $0["id"] == created["id"] && $0["name"]?.stringValue == "ci" })
        #expect(list["next_cursor"] == .null)
        // The default scope is read; name is required.
        let defaulted = try expectJSON(try hub.call("POST", "/api/tokens", token: admin, json: ["name": "plain"]), 201)
        #expect(defaulted["scope"]?.stringValue == "read")
        expectError(try hub.call("POST", "/api/tokens", token: admin, json: ["scope": "read"]), 400, field: "name")
        expectError(try hub.call("POST", "/api/tokens", token: admin, json: ["name": "x", "scope": "root"]), 400, field: "scope")
    }

    @Test(arguments: TestEngine.all) func revokedTokenIsRejectedAtOnce(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let admin = try hub.token()
        let created = try expectJSON(try hub.call("POST", "/api/tokens", token: admin, json: ["name": "temp", "scope": "write"]), 201)
        let secret = try #require(created["token"]?.stringValue)
        let id = try #require(created["id"]?.intValue)
        #expect(try hub.call("GET", "/api/me", token: secret).status == 200)

        let revoked = try hub.call("DELETE", "/api/tokens/\(id)", token: admin)
        #expect(revoked.status == 204)
        expectError(try hub.call("GET", "/api/me", token: secret), 401, "unauthorized")
        expectError(try hub.call("DELETE", "/api/tokens/\(id)", token: admin), 404)
        let list = try expectJSON(try hub.call("GET", "/api/tokens", token: admin))
        #expect(!(list["items"]?.arrayValue ?? []).contains { $0["id"]?.intValue == id })
        // A token can revoke itself.
        let me = try expectJSON(try hub.call("POST", "/api/tokens", token: admin, json: ["name": "self", "scope": "write"]), 201)
        let selfSecret = try #require(me["token"]?.stringValue)
        #expect(try hub.call("DELETE", "/api/tokens/\(me["id"]?.intValue ?? 0)", token: selfSecret).status == 204)
        expectError(try hub.call("GET", "/api/me", token: selfSecret), 401)
    }

    @Test(arguments: TestEngine.all) func readonlyUsersReadTokenReadsButDoesNotWrite(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let admin = try hub.token()
        _ = try expectJSON(try hub.call("POST", "/api/users", token: admin,
                                        json: ["email": "viewer@example.com", "role": "readonly", "password": "viewer-password"]), 201)
        let viewer = try hub.token(email: "viewer@example.com", scope: "read")
        let me = try expectJSON(try hub.call("GET", "/api/me", token: viewer))
        #expect(me["role"]?.stringValue == "readonly")
        #expect(me["scope"]?.stringValue == "read")
        #expect(try hub.call("GET", "/api/tokens", token: viewer).status == 200)
        expectError(try hub.call("POST", "/api/tokens", token: viewer, json: ["name": "x", "scope": "read"]), 403)
        expectError(try hub.call("DELETE", "/api/tokens/1", token: viewer), 403)
    }

    @Test(arguments: TestEngine.all) func expiresAtInThePastIsRefused(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let admin = try hub.token()
        let past = Time.rfc3339(Time.now() - 60)
        expectError(try hub.call("POST", "/api/tokens", token: admin, json: ["name": "old", "expires_at": .string(past)]),
                    400, field: "expires_at")
        expectError(try hub.call("POST", "/api/tokens", token: admin, json: ["name": "odd", "expires_at": "tomorrow"]),
                    400, field: "expires_at")
    }

    @Test(arguments: TestEngine.all) func tokenStopsWorkingOnceItExpires(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let admin = try hub.token()
        let expires = Time.now() + 2
        let created = try expectJSON(try hub.call("POST", "/api/tokens", token: admin,
                                                  json: ["name": "brief", "expires_at": .string(Time.rfc3339(expires))]), 201)
        #expect(created["expires_at"]?.stringValue == Time.rfc3339(expires))
        let secret = try #require(created["token"]?.stringValue)
        let first = try hub.call("GET", "/api/me", token: secret)
        if Time.now() < expires {   // only meaningful while it has not expired yet
            #expect(first.status == 200)
        }
        // Wait (bounded) until the expiry has passed on this clock, then it must be refused.
        let deadline = Time.monotonicNanos() + 10_000_000_000
        while Time.now() <= expires && Time.monotonicNanos() < deadline { usleep(100_000) }
        let after = try hub.call("GET", "/api/me", token: secret)
        expectError(after, 401, "unauthorized")
    }
}
