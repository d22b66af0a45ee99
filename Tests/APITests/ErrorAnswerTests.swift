import Core
import Testing

/// Every error the running hub produces, parser errors included, is the
/// spec's JSON error shape with the right status and code.
@Suite struct ErrorAnswerTests {
    /// Sends raw bytes on a fresh connection and reads the one answer; the
    /// hub closes the connection after a malformed request.
    func raw(_ hub: HubProcess, _ bytes: [UInt8], closes: Bool = true,
             sourceLocation: SourceLocation = #_sourceLocation) throws -> WireResponse {
        let c = try hub.connect()
        c.send(bytes)
        let r = try #require(c.readResponse(), "no answer", sourceLocation: sourceLocation)
        if closes {
            #expect(r.header("Connection") == "close", sourceLocation: sourceLocation)
            #expect(c.waitForClose(), "connection stays open", sourceLocation: sourceLocation)
        }
        return r
    }

    func raw(_ hub: HubProcess, _ text: String, closes: Bool = true,
             sourceLocation: SourceLocation = #_sourceLocation) throws -> WireResponse {
        try raw(hub, Array(text.utf8), closes: closes, sourceLocation: sourceLocation)
    }

    @Test func malformedRequestsGet400() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        expectError(try raw(hub, "POST /api/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                              + "Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"),
                    400, "conflicting_content_length")
        expectError(try raw(hub, "POST /api/users HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                              + "Transfer-Encoding: chunked\r\n\r\n{}"), 400, "conflicting_framing")
        expectError(try raw(hub, "GET /healthz HTTP/1.1\r\n\r\n"), 400, "missing_host")
        expectError(try raw(hub, "GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n"), 400, "whitespace_before_colon")
        // RFC 9112 §6.3: a final coding other than chunked is a 400 …
        expectError(try raw(hub, "POST /api/users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n"), 400,
                    "invalid_transfer_encoding")
        // … and a coding we do not implement before chunked a 501.
        expectError(try raw(hub, "POST /api/users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), 501,
                    "unsupported_transfer_coding")
    }

    @Test func invalidJSONAndValidation() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let auth = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        let bad = try hub.connect().request("POST", "/api/users", headers: auth, body: Array("{\"email\": ".utf8))
        expectError(bad, 400, "invalid_json")
        #expect(bad.header("Connection") != "close", "a handler's 400 keeps the connection")
        let notObject = try hub.connect().request("POST", "/api/users", headers: auth, body: Array("[1,2]".utf8))
        expectError(notObject, 400)
        let empty = try hub.connect().request("POST", "/api/users", headers: auth, body: [])
        expectError(empty, 400)
    }

    @Test func unauthenticatedGets401WithBearerChallenge() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let garbage = "pmk_" + String(repeating: "A", count: 43)
        let answers = [
            try hub.call("GET", "/api/me"),
            try hub.call("GET", "/api/me", token: garbage),
            try hub.call("GET", "/api/me", token: "nonsense"),
            try hub.call("GET", "/api/me", headers: [("Authorization", "Basic YWRtaW46YWRtaW4=")]),
            // Tokens in the query string are ignored.
            try hub.call("GET", "/api/me?access_token=\(token)"),
            try hub.call("GET", "/api/users?token=\(token)"),
        ]
        for r in answers {
            expectError(r, 401, "unauthorized")
            #expect(r.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(r.headers)")
        }
    }

    @Test func forbiddenByScopeAndRole() throws {
        let hub = try HubProcess()
        let write = try hub.token()
        let read = try hub.token(scope: "read")
        expectError(try hub.call("POST", "/api/tokens", token: read, json: ["name": "x", "scope": "read"]), 403, "insufficient_scope")
        expectError(try hub.call("POST", "/api/users", token: read,
                                 json: ["email": "z@example.com", "password": "abcdefghij"]), 403, "insufficient_scope")

        _ = try expectJSON(try hub.call("POST", "/api/users", token: write,
                                        json: ["email": "viewer@example.com", "role": "readonly", "password": "viewer-password"]), 201)
        let viewer = try hub.token(email: "viewer@example.com", scope: "read")
        expectError(try hub.call("GET", "/api/users", token: viewer), 403, "admin_required")
        expectError(try hub.call("GET", "/api/users/1", token: viewer), 403, "admin_required")
        // A readonly user's tokens are read-only, so asking for a write token is
        // refused (with the scope check's code: the write endpoint is out of reach).
        let ask = try hub.call("POST", "/api/tokens", token: viewer, json: ["name": "x", "scope": "write"])
        expectError(ask, 403)
        #expect(["insufficient_scope", "scope_not_allowed"].contains(ask.errorCode ?? ""), "\(ask.text)")
    }

    @Test func notFoundAndMethodNotAllowed() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        expectError(try hub.call("GET", "/api/nope", token: token), 404, "not_found")
        expectError(try hub.call("GET", "/nope"), 404, "not_found")
        expectError(try hub.call("GET", "/api/users/999999", token: token), 404, "not_found")
        expectError(try hub.call("DELETE", "/api/tokens/999999", token: token), 404, "not_found")
        expectError(try hub.call("GET", "/api/users/abc", token: token), 404)

        let r = try hub.call("DELETE", "/api/me", token: token)
        expectError(r, 405, "method_not_allowed")
        let allow = (r.header("Allow") ?? "").split(separator: ",").map { String($0.filter { $0 != " " }) }
        #expect(allow.contains("GET") && allow.contains("HEAD"), "Allow: \(r.header("Allow") ?? "none")")
        let users = try hub.call("PUT", "/api/users", token: token)
        expectError(users, 405)
        #expect(users.header("Allow")?.contains("POST") == true)
    }

    @Test func limits413And431And414() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        // Body over 1 MiB: refused from its Content-Length, before it is sent.
        expectError(try raw(hub, "POST /api/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                              + "Content-Type: application/json\r\nContent-Length: \(1_048_577)\r\n\r\n"), 413, "body_too_large")
        // …and a chunked one that grows past it.
        let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 600 * 1024)
        let head = "POST /api/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        let piece = Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
        expectError(try raw(hub, Array(head.utf8) + piece + piece), 413, "body_too_large")

        let bigHeader = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 17 * 1024))\r\n\r\n"
        expectError(try raw(hub, bigHeader), 431)
        let longLine = "GET /\(String(repeating: "a", count: 9 * 1024)) HTTP/1.1\r\nHost: x\r\n\r\n"
        expectError(try raw(hub, longLine), 414, "request_line_too_long")
    }

    @Test func unsupportedMediaTypeAndVersion() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let text = try hub.connect().request("POST", "/api/users",
                                             headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "text/plain")],
                                             body: Array("{\"email\":\"t@example.com\",\"password\":\"abcdefghij\"}".utf8))
        expectError(text, 415, "unsupported_media_type")
        expectError(try raw(hub, "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n"), 505, "version_not_supported")
        // HTTP/1.0 works.
        let c = try hub.connect()
        c.send("GET /healthz HTTP/1.0\r\n\r\n")
        #expect(c.readResponse()?.status == 200)
    }

    @Test func connectionsOverTheLimitGet503() throws {
        let hub = try HubProcess(environment: ["PINGTXT_SERVER_MAX_CONNECTIONS": "2"])
        var open: [WireClient] = []
        var refused: WireResponse?
        for _ in 0..<5 where refused == nil {
            let c = try hub.connect()
            c.send(WireClient.encode("GET", "/healthz"))
            let r = try #require(c.readResponse())
            if r.status == 503 { refused = r } else { #expect(r.status == 200); open.append(c) }
        }
        let r = try #require(refused, "no connection was refused with max_connections = 2")
        expectError(r, 503, "too_many_connections")
        #expect(open.count <= 2)
    }
}
