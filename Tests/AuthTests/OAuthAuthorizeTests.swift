import Auth
import Testing

/// SPEC §4, `GET /oauth/authorize`: which requests get an error page (never
/// a redirect), which an error redirect, and which go on to consent.
@Suite struct OAuthAuthorizeTests {
    static let challenge = String(repeating: "a", count: 43)
    let clients = OAuthClients(extra: [OAuthClient(id: "cli", name: "CLI", redirectURIs: ["https://cli.example/cb"])])

    func items(_ overrides: [String: String?] = [:]) -> [(name: String, value: String)] {
        var base: [String: String?] = ["response_type": "code", "client_id": "pingtxt-app",
                                       "redirect_uri": "com.pingtxt.app:/oauth/callback", "code_challenge": Self.challenge,
                                       "code_challenge_method": "S256", "state": "st-1"]
        for (k, v) in overrides { base[k] = v }
        return base.sorted { $0.key < $1.key }.compactMap { k, v in v.map { (k, $0) } }
    }

    func check(_ overrides: [String: String?]) -> AuthorizeCheck { OAuthAuthorize.check(items(overrides), clients: clients) }

    func redirectError(_ overrides: [String: String?]) -> String? {
        if case .redirectError(_, let error, _, let state) = check(overrides) {
            #expect(state == (overrides["state"] ?? "st-1"))
            return error
        }
        return nil
    }

    func isErrorPage(_ overrides: [String: String?]) -> Bool {
        if case .errorPage = check(overrides) { return true }
        return false
    }

    @Test func validRequestGoesToConsent() throws {
        guard case .ok(let r) = check([:]) else { Issue.record("refused"); return }
        #expect(r.client.id == "pingtxt-app")
        #expect(r.state == "st-1")
        #expect(r.scope == .write)
        guard case .ok(let read) = check(["scope": "read"]) else { Issue.record("refused"); return }
        #expect(read.scope == .read)
    }

    @Test func unknownClientOrUnregisteredRedirectIsAnErrorPageNeverARedirect() {
        #expect(isErrorPage(["client_id": "evil"]))
        #expect(isErrorPage(["client_id": nil]))
        #expect(isErrorPage(["redirect_uri": "https://evil.example/callback"]))
        #expect(isErrorPage(["redirect_uri": nil]))
        #expect(isErrorPage(["redirect_uri": "com.pingtxt.app:/oauth/callback/"]))
        // A config client's URIs are exact and not the app's.
        #expect(isErrorPage(["client_id": "cli", "redirect_uri": "com.pingtxt.app:/oauth/callback"]))
        #expect(!isErrorPage(["client_id": "cli", "redirect_uri": "https://cli.example/cb"]))
        #expect(isErrorPage(["client_id": "cli", "redirect_uri": "http://127.0.0.1:5000/callback"]))
        // Even with other errors present, a bad redirect URI wins: no redirect.
        #expect(isErrorPage(["redirect_uri": "https://evil.example/", "code_challenge": nil]))
    }

    @Test func loopbackRedirectOnAnyPortButOnlyTheCallbackPath() {
        for ok in ["http://127.0.0.1:1/callback", "http://127.0.0.1:53124/callback", "http://127.0.0.1:65535/callback",
                   "http://[::1]:8080/callback", "http://127.0.0.1/callback"] {
            #expect(!isErrorPage(["redirect_uri": ok]), "\(ok)")
        }
        for bad in ["http://127.0.0.1:53124/cb", "http://127.0.0.1:53124/callback/x", "http://127.0.0.1:53124/callback?x=1",
                    "http://127.0.0.1:53124/callback#f", "http://localhost:53124/callback", "https://127.0.0.1:53124/callback",
                    "http://127.0.0.1:0/callback", "http://127.0.0.1:65536/callback", "http://127.0.0.1:/callback",
                    "http://127.0.0.1:80x/callback", "http://[::1]:8080/other", "http://127.0.0.2:80/callback"] {
            #expect(isErrorPage(["redirect_uri": bad]), "\(bad)")
        }
    }

    @Test func pkceIsS256OnlyAndTheChallengeIsChecked() {
        #expect(redirectError(["code_challenge_method": "plain"]) == "invalid_request")
        #expect(redirectError(["code_challenge_method": nil]) == "invalid_request")
        #expect(redirectError(["code_challenge_method": "s256"]) == "invalid_request")
        #expect(redirectError(["code_challenge": nil]) == "invalid_request")
        #expect(redirectError(["code_challenge": String(repeating: "a", count: 42)]) == "invalid_request")
        #expect(redirectError(["code_challenge": String(repeating: "a", count: 129)]) == "invalid_request")
        #expect(redirectError(["code_challenge": String(repeating: "a", count: 42) + "+"]) == "invalid_request")
        #expect(redirectError(["code_challenge": String(repeating: "a", count: 42) + "="]) == "invalid_request")
        if case .ok = check(["code_challenge": String(repeating: "-._~9Z", count: 21) + "aa"]) {} else {
            Issue.record("128 unreserved characters must be accepted")
        }
    }

    @Test func otherParameterErrorsRedirectWithState() {
        #expect(redirectError(["response_type": "token"]) == "unsupported_response_type")
        #expect(redirectError(["response_type": nil]) == "invalid_request")
        #expect(redirectError(["scope": "admin"]) == "invalid_scope")
        #expect(redirectError(["scope": ""]) == "invalid_scope")
        #expect(redirectError(["state": nil, "code_challenge_method": "plain"]) == "invalid_request")
        var repeated = items()
        repeated.append(("code_challenge", Self.challenge))
        if case .redirectError(_, let error, _, _) = OAuthAuthorize.check(repeated, clients: clients) {
            #expect(error == "invalid_request")
        } else {
            Issue.record("a repeated parameter must be refused")
        }
    }

    @Test func configClientCannotTakeTheAppsID() {
        let c = OAuthClients(extra: [OAuthClient(id: "pingtxt-app", name: "Fake", redirectURIs: ["https://evil.example/cb"])])
        #expect(c.find("pingtxt-app") == OAuthClient.app)
    }
}
