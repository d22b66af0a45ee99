import Auth
import Core
import Crypto
import HTTP
import Store
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The OAuth endpoints through the running binary. Without a browser
/// session (that comes with the web sign-in), codes are minted through the
/// service on the hub's own database file, exactly as the consent POST does;
/// everything after that goes over the wire as the app would send it.
@Suite struct OAuthEndpointTests {
    static let verifier = "S0me-verifier_with.enough~characters-1234567890abc"

    func post(_ hub: HubProcess, _ path: String, _ form: [(String, String)]) throws -> WireResponse {
        let body = form.map { FormCoding.percentEncode($0.0) + "=" + FormCoding.percentEncode($0.1) }.joined(separator: "&")
        return try hub.connect().request("POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                         body: Array(body.utf8))
    }

    /// A code for the hub's admin, as the consent page would issue it.
    func mintCode(_ hub: HubProcess, email: String = HubProcess.adminEmail, scope: Scope = .write) throws -> String {
        let database = try Database(url: hub.sandbox.databaseURL)
        defer { database.close() }
        let service = OAuthService(database: database)
        let user = try #require(try UserService(database: database).find(email: email))
        let items: [(name: String, value: String)] = [
            ("response_type", "code"), ("client_id", "pingtxt-app"), ("redirect_uri", "com.pingtxt.app:/oauth/callback"),
            ("code_challenge", Base64URL.encode(SHA256.hash(Self.verifier))), ("code_challenge_method", "S256")]
        guard case .ok(let request) = OAuthAuthorize.check(items, clients: service.clients) else {
            throw HarnessError("authorize check failed")
        }
        return try service.approve(user: user, request: request, scope: scope)
    }

    func exchange(_ hub: HubProcess, _ code: String) throws -> WireResponse {
        try post(hub, "/oauth/token", [("grant_type", "authorization_code"), ("code", code), ("code_verifier", Self.verifier),
                                       ("client_id", "pingtxt-app"), ("redirect_uri", "com.pingtxt.app:/oauth/callback")])
    }

    func expectOAuthError(_ r: WireResponse, _ status: Int, _ error: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "\(r.text)", sourceLocation: sourceLocation)
        #expect(r.header("Cache-Control") == "no-store", sourceLocation: sourceLocation)
        let json = try? r.json()
        #expect(json?["error"]?.stringValue == error, "\(r.text)", sourceLocation: sourceLocation)
        #expect(json?["error_description"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
    }

    @Test(arguments: TestEngine.all) func metadataHasExactlyTheSpecFields(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let json = try expectJSON(try hub.call("GET", "/.well-known/oauth-authorization-server"))
        let issuer = "http://127.0.0.1:\(hub.port)"
        let expected: JSON = [
            "issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/oauth/authorize"),
            "token_endpoint": .string(issuer + "/oauth/token"), "revocation_endpoint": .string(issuer + "/oauth/revoke"),
            "response_types_supported": ["code"], "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"], "token_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": ["read", "write"], "authorization_response_iss_parameter_supported": true]
        let keys = Set(json.objectValue?.entries.map(\.key) ?? [])
        #expect(keys == Set(expected.objectValue?.entries.map(\.key) ?? []))
        for (k, v) in expected.objectValue?.entries ?? [] { #expect(json[k] == v, "\(k)") }
    }

    @Test(arguments: TestEngine.all) func tokenEndpointErrorsUseRFC6749CodesAndNoStore(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        expectOAuthError(try post(hub, "/oauth/token", [("grant_type", "password"), ("client_id", "pingtxt-app")]), 400, "unsupported_grant_type")
        expectOAuthError(try post(hub, "/oauth/token", [("client_id", "pingtxt-app")]), 400, "invalid_request")
        expectOAuthError(try post(hub, "/oauth/token", [("grant_type", "authorization_code"), ("code", "x"),
                                                        ("code_verifier", Self.verifier), ("client_id", "evil")]), 401, "invalid_client")
        expectOAuthError(try post(hub, "/oauth/token", [("grant_type", "authorization_code"), ("code", "junk"),
                                                        ("code_verifier", Self.verifier), ("client_id", "pingtxt-app")]), 400, "invalid_grant")
        expectOAuthError(try post(hub, "/oauth/token", [("grant_type", "authorization_code"), ("code_verifier", Self.verifier),
                                                        ("client_id", "pingtxt-app")]), 400, "invalid_request")
        expectOAuthError(try post(hub, "/oauth/token", [("grant_type", "refresh_token"), ("client_id", "pingtxt-app")]), 400, "invalid_request")
        expectOAuthError(try post(hub, "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", "pmr_junk"),
                                                        ("client_id", "pingtxt-app")]), 400, "invalid_grant")
        expectOAuthError(try post(hub, "/oauth/token", [("grant_type", "refresh_token"), ("grant_type", "refresh_token")]), 400, "invalid_request")
        // JSON instead of a form.
        let json = try hub.call("POST", "/oauth/token", json: ["grant_type": "authorization_code"])
        expectOAuthError(json, 400, "invalid_request")
    }

    @Test(arguments: TestEngine.all) func codeExchangeRefreshAndRevokeOverTheWire(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let code = try mintCode(hub)
        let r = try exchange(hub, code)
        #expect(r.header("Cache-Control") == "no-store" && r.header("Pragma") == "no-cache")
        let t = try expectJSON(r)
        let access = try #require(t["access_token"]?.stringValue)
        let refresh = try #require(t["refresh_token"]?.stringValue)
        #expect(access.hasPrefix("pma_") && refresh.hasPrefix("pmr_"))
        #expect(t["token_type"]?.stringValue == "Bearer" && t["expires_in"]?.intValue == 3600)
        #expect(t["scope"]?.stringValue == "read write")

        // pma_ works like a pmk_ of its scope, but never on account endpoints.
        let me = try expectJSON(try hub.call("GET", "/api/me", token: access))
        #expect(me["scope"]?.stringValue == "write")
        #expect(try hub.call("GET", "/api/monitors", token: access).status == 200)
        expectError(try hub.call("GET", "/api/tokens", token: access), 403, "account_endpoint")
        expectError(try hub.call("GET", "/api/connected-apps", token: access), 403, "account_endpoint")
        expectError(try hub.call("GET", "/api/me", token: refresh), 401)

        // The second use of the code fails and revokes what it issued.
        expectOAuthError(try exchange(hub, code), 400, "invalid_grant")
        expectError(try hub.call("GET", "/api/me", token: access), 401)

        // A fresh sign-in: refresh with narrowing, then revoke.
        let t2 = try expectJSON(try exchange(hub, try mintCode(hub)))
        let r2 = try #require(t2["refresh_token"]?.stringValue)
        let narrowed = try expectJSON(try post(hub, "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", r2),
                                                                     ("client_id", "pingtxt-app"), ("scope", "read")]))
        #expect(narrowed["scope"]?.stringValue == "read")
        let a3 = try #require(narrowed["access_token"]?.stringValue)
        #expect(try expectJSON(try hub.call("GET", "/api/me", token: a3))["scope"]?.stringValue == "read")
        let r3 = try #require(narrowed["refresh_token"]?.stringValue)
        expectOAuthError(try post(hub, "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", r3),
                                                        ("client_id", "pingtxt-app"), ("scope", "read write admin")]), 400, "invalid_scope")

        // Connected apps, seen with the admin's API token.
        let admin = try hub.token()
        let apps = try expectJSON(try hub.call("GET", "/api/connected-apps", token: admin))
        let items = try #require(apps["items"]?.arrayValue)
        #expect(items.count == 1)
        #expect(items.first?["client_name"]?.stringValue == "pingtxt app")
        #expect(items.first?["scope"]?.stringValue == "read write")
        #expect(items.first?["user"]?["email"]?.stringValue == HubProcess.adminEmail)
        #expect(items.first?["devices"] == [])

        let revoked = try post(hub, "/oauth/revoke", [("token", r3), ("token_type_hint", "refresh_token"), ("client_id", "pingtxt-app")])
        #expect(revoked.status == 200)
        expectError(try hub.call("GET", "/api/me", token: a3), 401)
        #expect(try expectJSON(try hub.call("GET", "/api/connected-apps", token: admin))["items"] == [])
        // Always 200: unknown, repeated, malformed, missing.
        #expect(try post(hub, "/oauth/revoke", [("token", r3)]).status == 200)
        #expect(try post(hub, "/oauth/revoke", [("token", "nonsense")]).status == 200)
        #expect(try post(hub, "/oauth/revoke", []).status == 200)
    }

    /// Asking a refresh for more than was consented is a client's mistake,
    /// not a replay: `invalid_scope` before the token is rotated, and the
    /// same refresh token (and the sign-in's access token) keep working.
    @Test(arguments: TestEngine.all) func widerScopeOnRefreshKeepsTheRefreshTokenAndTheSignIn(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let t = try expectJSON(try exchange(hub, try mintCode(hub, scope: .read)))
        #expect(t["scope"]?.stringValue == "read")
        let refresh = try #require(t["refresh_token"]?.stringValue)
        let access = try #require(t["access_token"]?.stringValue)
        expectOAuthError(try post(hub, "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh),
                                                        ("client_id", "pingtxt-app"), ("scope", "read write")]), 400, "invalid_scope")
        #expect(try hub.call("GET", "/api/me", token: access).status == 200)
        let again = try expectJSON(try post(hub, "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh),
                                                                  ("client_id", "pingtxt-app")]))
        #expect(again["scope"]?.stringValue == "read")
        #expect(try hub.call("GET", "/api/me", token: try #require(again["access_token"]?.stringValue)).status == 200)
    }

    @Test(arguments: TestEngine.all) func connectedAppsOfOthersAreAdminOnly(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let admin = try hub.token()
        _ = try expectJSON(try hub.call("POST", "/api/users", token: admin,
                                        json: ["email": "viewer@example.com", "role": "readonly", "password": "viewer-password"]), 201)
        let viewer = try hub.token(email: "viewer@example.com", scope: "read")
        let vt = try expectJSON(try exchange(hub, try mintCode(hub, email: "viewer@example.com")))
        #expect(vt["scope"]?.stringValue == "read")
        _ = try expectJSON(try exchange(hub, try mintCode(hub)))

        let mine = try #require(try expectJSON(try hub.call("GET", "/api/connected-apps", token: viewer))["items"]?.arrayValue)
        #expect(mine.count == 1 && mine.first?["user"]?["email"]?.stringValue == "viewer@example.com")
        expectError(try hub.call("GET", "/api/connected-apps?all=true", token: viewer), 403, "admin_required")
        let all = try #require(try expectJSON(try hub.call("GET", "/api/connected-apps?all=true", token: admin))["items"]?.arrayValue)
        #expect(all.count == 2)
        let adminApp = try #require(all.first { $0["user"]?["email"]?.stringValue == HubProcess.adminEmail }?["id"]?.intValue)
        let viewerApp = try #require(mine.first?["id"]?.intValue)
        // A readonly caller cannot revoke (write scope); an admin revokes anyone's.
        let adminWrite = try hub.token()
        expectError(try hub.call("DELETE", "/api/connected-apps/\(adminApp)", token: viewer), 403)
        #expect(try hub.call("DELETE", "/api/connected-apps/\(viewerApp)", token: adminWrite).status == 204)
        expectError(try hub.call("DELETE", "/api/connected-apps/\(viewerApp)", token: adminWrite), 404)
        expectError(try hub.call("GET", "/api/me", token: try #require(vt["access_token"]?.stringValue)), 401)
    }

    @Test(arguments: TestEngine.all) func authorizeWithoutASessionGoesToLoginAndBadClientsGetAPage(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let challenge = Base64URL.encode(SHA256.hash(Self.verifier))
        let q = "response_type=code&client_id=pingtxt-app&redirect_uri=http%3A%2F%2F127.0.0.1%3A4000%2Fcallback"
            + "&code_challenge=\(challenge)&code_challenge_method=S256&state=s1"
        let login = try hub.call("GET", "/oauth/authorize?" + q)
        #expect(login.status == 303)
        #expect(login.header("Location")?.hasPrefix("/login?next=%2Foauth%2Fauthorize%3F") == true)
        let page = try hub.call("GET", "/oauth/authorize?" + q.replacingOccurrences("4000%2Fcallback", "4000%2Fevil"))
        #expect(page.status == 400 && page.header("Location") == nil)
        #expect(page.header("X-Frame-Options") == "DENY" && page.header("Referrer-Policy") == "no-referrer")
        let plain = try hub.call("GET", "/oauth/authorize?" + q.replacingOccurrences("S256", "plain"))
        #expect(plain.status == 303)
        #expect(plain.header("Location")?.hasPrefix("http://127.0.0.1:4000/callback?error=invalid_request&") == true)
        #expect(plain.header("Location")?.contains("&iss=http%3A%2F%2F127.0.0.1%3A\(hub.port)") == true)
    }
}

/// `[[oauth.clients]]` from the config file reach the running server.
@Suite struct OAuthConfigClientTests {
    @Test func configClientIsKnownWithExactRedirectURIs() throws {
        let path = "/tmp/pingtxt-oauth-clients-\(getpid())-\(Time.monotonicNanos()).toml"
        guard let f = fopen(path, "w") else { throw HarnessError("cannot write \(path)") }
        fputs("[[oauth.clients]]\nid = \"dash\"\nname = \"Dashboard\"\nredirect_uris = [\"https://dash.example/cb\"]\n", f)
        fclose(f)
        defer { unlink(path) }
        let hub = try HubProcess(arguments: ["--config", path])
        let challenge = Base64URL.encode(SHA256.hash(OAuthEndpointTests.verifier))
        let base = "/oauth/authorize?response_type=code&client_id=dash&code_challenge=\(challenge)&code_challenge_method=S256"
        let ok = try hub.call("GET", base + "&redirect_uri=https%3A%2F%2Fdash.example%2Fcb")
        #expect(ok.status == 303 && ok.header("Location")?.hasPrefix("/login?next=") == true)
        let other = try hub.call("GET", base + "&redirect_uri=https%3A%2F%2Fdash.example%2Fother")
        #expect(other.status == 400 && other.header("Location") == nil)
        let loopback = try hub.call("GET", base + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A4000%2Fcallback")
        #expect(loopback.status == 400)
        let body = "grant_type=authorization_code&client_id=dash&code=junk&code_verifier=\(OAuthEndpointTests.verifier)"
        let r = try hub.connect().request("POST", "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                          body: Array(body.utf8))
        #expect(r.status == 400 && (try? r.json())?["error"]?.stringValue == "invalid_grant")
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: target) {
            out += rest[..<r.lowerBound] + replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
