import Core
import Testing

/// Stored text is bounded in UTF-8 bytes as well as in characters: one
/// grapheme cluster can carry any number of combining marks, so a "one
/// character" name of 200 KB must not be stored (and then served to anyone
/// on status pages and badges).
@Suite struct TextLimitTests {
    /// "a" followed by `marks` combining acute accents: one character, 1 + 2 × marks bytes.
    static func oneHugeCharacter(marks: Int = 100_000) -> String {
        "a" + String(repeating: "\u{301}", count: marks)
    }

    @Test func oneCharacterOfManyBytesIsRefusedInEveryNamedField() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let huge = JSON.string(Self.oneHugeCharacter())
        #expect(Self.oneHugeCharacter().count == 1)

        expectError(try hub.call("POST", "/api/monitors", token: token,
                                 json: ["name": huge, "type": "tcp", "target": "127.0.0.1:9"]), 400, field: "name")
        expectError(try hub.call("POST", "/api/channels", token: token,
                                 json: ["name": huge, "type": "webhook", "config": ["url": "http://127.0.0.1:9/hook"]]), 400, field: "name")
        expectError(try hub.call("POST", "/api/maintenance", token: token,
                                 json: ["title": huge, "starts_at": "2026-01-01T00:00:00Z", "ends_at": "2026-01-01T01:00:00Z"]),
                    400, field: "title")
        expectError(try hub.call("POST", "/api/status-pages", token: token,
                                 json: ["title": huge, "slug": "public"]), 400, field: "title")
        expectError(try hub.call("POST", "/api/status-pages", token: token,
                                 json: ["title": "Public", "slug": "public", "description": huge]), 400, field: "description")
        expectError(try hub.call("POST", "/api/users", token: token,
                                 json: ["email": "x@example.com", "name": huge, "role": "readonly", "password": "long enough 1"]),
                    400, field: "name")
        expectError(try hub.call("POST", "/api/tokens", token: token, json: ["name": huge, "scope": "read"]), 400, field: "name")
        // Nothing of it was stored.
        for path in ["/api/monitors", "/api/channels", "/api/maintenance", "/api/status-pages"] {
            #expect(try expectJSON(try hub.call("GET", path, token: token))["items"] == [], "\(path)")
        }

        // A long name in a script of several bytes a character is fine.
        let cjk = String(repeating: "監", count: 200)   // 200 characters, 600 bytes
        let ok = try expectJSON(try hub.call("POST", "/api/monitors", token: token,
                                             json: ["name": .string(cjk), "type": "tcp", "target": "127.0.0.1:9"]), 201)
        #expect(ok["name"]?.stringValue == cjk)
        // Renaming it to the huge one is refused the same way.
        let id = try #require(ok["id"]?.intValue)
        expectError(try hub.call("PATCH", "/api/monitors/\(id)", token: token, json: ["name": huge]), 400, field: "name")
    }
}
