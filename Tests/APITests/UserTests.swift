import Core
import Testing

/// `/api/users` end to end: the user object, validation, pagination and the
/// rules that keep a hub administrable.
@Suite struct UserTests {
    func create(_ hub: HubProcess, _ token: String, _ email: String, role: String = "readonly",
                sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        try expectJSON(try hub.call("POST", "/api/users", token: token,
                                    json: ["email": .string(email), "name": "Test User", "role": .string(role),
                                           "password": "long-enough-password"]), 201, sourceLocation: sourceLocation)
    }

    @Test func createReturnsTheUserObjectAndRefusesDuplicates() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let user = try create(hub, token, "ada@example.com", role: "admin")
        #expect(user.objectValue?.keys == ["id", "email", "name", "role", "created_at", "totp_enabled", "sso_provider", "password_login",
                                            "invited"])
        #expect(user["id"]?.intValue != nil)
        #expect(user["email"]?.stringValue == "ada@example.com")
        #expect(user["name"]?.stringValue == "Test User")
        #expect(user["role"]?.stringValue == "admin")
        #expect(Time.parseRFC3339(user["created_at"]?.stringValue ?? "") != nil)
        #expect(user["created_at"]?.stringValue?.hasSuffix("Z") == true)
        #expect(user["totp_enabled"]?.boolValue == false)
        #expect(user["password"] == nil && user["password_hash"] == nil)

        let id = try #require(user["id"]?.intValue)
        let shown = try expectJSON(try hub.call("GET", "/api/users/\(id)", token: token))
        #expect(shown == user)

        expectError(try hub.call("POST", "/api/users", token: token,
                                 json: ["email": "ada@example.com", "password": "another-password"]), 409, "email_taken")
        // The default role is readonly.
        let plain = try expectJSON(try hub.call("POST", "/api/users", token: token,
                                                json: ["email": "bob@example.com", "password": "bob-password"]), 201)
        #expect(plain["role"]?.stringValue == "readonly")
    }

    @Test func validationErrorsNameTheField() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let cases: [(JSON, String)] = [
            (["password": "long-enough-password"], "email"),
            (["email": "not-an-email", "password": "long-enough-password"], "email"),
            (["email": 42, "password": "long-enough-password"], "email"),
            (["email": "x@example.com", "password": "short"], "password"),
            (["email": "x@example.com"], "password"),
            (["email": "x@example.com", "password": "long-enough-password", "role": "superuser"], "role"),
            (["email": "x@example.com", "password": "long-enough-password", "name": "bad\u{1}name"], "name"),
        ]
        for (body, field) in cases {
            expectError(try hub.call("POST", "/api/users", token: token, json: body), 400, "validation_failed", field: field)
        }
        let id = try #require(try create(hub, token, "y@example.com")["id"]?.intValue)
        expectError(try hub.call("PATCH", "/api/users/\(id)", token: token, json: ["role": "owner"]), 400, field: "role")
        expectError(try hub.call("PATCH", "/api/users/\(id)", token: token, json: ["password": "short"]), 400, field: "password")
        expectError(try hub.call("PATCH", "/api/users/\(id)", token: token, json: ["email": .string(HubProcess.adminEmail)]),
                    409, "email_taken")
        expectError(try hub.call("PATCH", "/api/users/\(id)", token: token, json: ["email": "nope"]), 400, field: "email")
        expectError(try hub.call("PATCH", "/api/users/999999", token: token, json: ["name": "x"]), 404, "not_found")
    }

    @Test func listPagesThroughEveryUser() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        for i in 1...3 { _ = try create(hub, token, "user\(i)@example.com") }

        var seen: [Int64] = []
        var cursor: String?
        var pages = 0
        repeat {
            let target = "/api/users?limit=1" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try expectJSON(try hub.call("GET", target, token: token))
            let items = try #require(page["items"]?.arrayValue)
            #expect(items.count == 1)
            seen += items.compactMap { $0["id"]?.intValue }
            cursor = page["next_cursor"]?.stringValue
            #expect(page["next_cursor"] != nil, "next_cursor is always present")
            pages += 1
        } while cursor != nil && pages < 10
        #expect(seen.count == 4)
        #expect(Set(seen).count == 4)
        #expect(seen == seen.sorted())

        let all = try expectJSON(try hub.call("GET", "/api/users", token: token))
        #expect(all["items"]?.arrayValue?.count == 4)
        #expect(all["next_cursor"] == .null)

        for bad in ["limit=0", "limit=501", "limit=abc", "limit=-1"] {
            expectError(try hub.call("GET", "/api/users?\(bad)", token: token), 400, "validation_failed", field: "limit")
        }
        expectError(try hub.call("GET", "/api/users?cursor=not-a-cursor", token: token), 400, "validation_failed", field: "cursor")
        #expect(try hub.call("GET", "/api/users?limit=500", token: token).status == 200)
    }

    @Test func patchRoleAndTheLastAdminRule() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let me = try expectJSON(try hub.call("GET", "/api/me", token: token))
        let adminID = try #require(me["id"]?.intValue)

        expectError(try hub.call("PATCH", "/api/users/\(adminID)", token: token, json: ["role": "readonly"]), 409, "last_admin")
        expectError(try hub.call("DELETE", "/api/users/\(adminID)", token: token), 409, "last_admin")

        let other = try #require(try create(hub, token, "second@example.com")["id"]?.intValue)
        let promoted = try expectJSON(try hub.call("PATCH", "/api/users/\(other)", token: token, json: ["role": "admin", "name": "Second"]))
        #expect(promoted["role"]?.stringValue == "admin")
        #expect(promoted["name"]?.stringValue == "Second")
        #expect(promoted["email"]?.stringValue == "second@example.com")

        // With two admins, the first may step down; then the second is the last.
        let demoted = try expectJSON(try hub.call("PATCH", "/api/users/\(adminID)", token: token, json: ["role": "readonly"]))
        #expect(demoted["role"]?.stringValue == "readonly")
        let secondToken = try hub.token(email: "second@example.com")
        expectError(try hub.call("DELETE", "/api/users/\(other)", token: secondToken), 409, "last_admin")
        // The demoted admin's write token now acts as read only.
        let nowMe = try expectJSON(try hub.call("GET", "/api/me", token: token))
        #expect(nowMe["scope"]?.stringValue == "read")
        expectError(try hub.call("GET", "/api/users", token: token), 403)
    }

    /// `/api/me` is answered on the event loop from the caller kept for the
    /// second, with its body kept too: a rename must show at once.
    @Test func aRenameShowsInMeAtOnce() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let before = try expectJSON(try hub.call("GET", "/api/me", token: token))
        #expect(try expectJSON(try hub.call("GET", "/api/me", token: token)) == before)
        let id = try #require(before["id"]?.intValue)
        _ = try expectJSON(try hub.call("PATCH", "/api/users/\(id)", token: token, json: ["name": "Renamed Admin"]))
        #expect(try expectJSON(try hub.call("GET", "/api/me", token: token))["name"]?.stringValue == "Renamed Admin")
    }

    @Test func deleteThenNotFoundAndTheirTokensStopAtOnce() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let id = try #require(try create(hub, token, "leaver@example.com", role: "admin")["id"]?.intValue)
        let theirs = try hub.token(email: "leaver@example.com")
        #expect(try hub.call("GET", "/api/me", token: theirs).status == 200)
        // Keep a connection open with the token in use, to show deletion is seen at once.
        let kept = try hub.connect()
        #expect(try kept.request("GET", "/api/me", headers: [("Authorization", "Bearer \(theirs)")]).status == 200)

        let deleted = try hub.call("DELETE", "/api/users/\(id)", token: token)
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        expectError(try hub.call("GET", "/api/users/\(id)", token: token), 404, "not_found")
        expectError(try hub.call("DELETE", "/api/users/\(id)", token: token), 404, "not_found")
        expectError(try kept.request("GET", "/api/me", headers: [("Authorization", "Bearer \(theirs)")]), 401, "unauthorized")
        expectError(try hub.call("GET", "/api/me", token: theirs), 401, "unauthorized")
    }
}
