import Config
import Auth
import Core
import Crypto
import HTTP
import Net
import Store

/// `GET /login/sso/{id}` and `GET /login/sso/{id}/callback`: the OpenID
/// Connect authorization code flow with PKCE (S256), as a relying party.
/// The session it ends with is the one a password login makes (same cookie,
/// same `next`), so a waiting OAuth authorize continues to consent. The
/// hub's own TOTP step is skipped: the provider owns the second factor.
struct SSORoutes: Sendable {
    let web: WebLayer
    let providers: [SSOProviderConfig]
    let clients: [String: OIDCProviderClient]
    let pending: SSOPendingLogins
    let accounts: SSOUserService
    let publicURL: String

    static let cookie = "pingtxt_sso"

    init(web: WebLayer, providers: [SSOProviderConfig], http: ClientEngine, accounts: SSOUserService, publicURL: String) {
        self.web = web
        self.providers = providers
        var clients: [String: OIDCProviderClient] = [:]
        for p in providers { clients[p.id] = OIDCProviderClient(issuer: p.issuer, http: http) }
        self.clients = clients
        self.pending = SSOPendingLogins()
        self.accounts = accounts
        self.publicURL = publicURL
    }

    func register(_ r: inout RouteTable) {
        // Both may wait on the provider (discovery, JWKS, token request; up
        // to the client timeout): the blocking pool keeps them from
        // starving the quick API handlers.
        r.add("GET", "/login/sso/{id}", .blocking, web.guardedPage(start))
        r.add("GET", "/login/sso/{id}/callback", .blocking, web.guardedPage(callback))
    }

    func redirectURI(_ provider: SSOProviderConfig) -> String { "\(publicURL)/login/sso/\(provider.id)/callback" }

    private func provider(_ req: HTTPRequest) throws(HTTPError) -> (SSOProviderConfig, OIDCProviderClient) {
        guard let id = req.parameters["id"], let p = providers.first(where: { $0.id == id }), let c = clients[id] else {
            throw HTTPError.notFound("No sign-in provider with that name.")
        }
        return (p, c)
    }

    func start(_ req: HTTPRequest) throws -> HTTPResponse {
        let (p, client) = try provider(req)
        let next = WebLayer.safeNext(req.query("next"))
        let metadata: OIDCMetadata
        do { metadata = try client.metadata() } catch {
            throw refuse(p, SSORefusal(400, "provider_unavailable",
                                       "\(p.name) cannot be reached right now. Try again later or sign in with your password."),
                         detail: error.message)
        }
        let state = Base64URL.encode(SecureRandom.bytes(32))
        let nonce = Base64URL.encode(SecureRandom.bytes(32))
        let verifier = Base64URL.encode(SecureRandom.bytes(32))
        let browser = Base64URL.encode(SecureRandom.bytes(32))
        pending.add(state: state, SSOPending(provider: p.id, nonce: nonce, codeVerifier: verifier, next: next,
                                             browserHash: SHA256.hash(browser), expires: Time.now() + SSOPendingLogins.lifetime))
        let query: [(String, String)] = [
            ("response_type", "code"), ("client_id", p.clientID), ("redirect_uri", redirectURI(p)), ("scope", p.scopes),
            ("state", state), ("nonce", nonce), ("code_challenge", Base64URL.encode(SHA256.hash(verifier))),
            ("code_challenge_method", "S256"),
        ]
        let separator = metadata.authorizationEndpoint.contains("?") ? "&" : "?"
        let location = metadata.authorizationEndpoint + separator
            + query.map { FormCoding.percentEncode($0.0) + "=" + FormCoding.percentEncode($0.1) }.joined(separator: "&")
        var r = HTTPResponse(status: 302)
        r.headers.add("Location", location)
        r.headers.add("Set-Cookie", Cookies.header(Self.cookie, browser, secure: web.secureCookies,
                                                   maxAge: SSOPendingLogins.lifetime, path: "/login/sso"))
        WebLayer.addSecurityHeaders(&r.headers)
        return r
    }

    func callback(_ req: HTTPRequest) throws -> HTTPResponse {
        let (p, client) = try provider(req)
        if let error = req.query("error") {
            throw refuse(p, SSORefusal(403, "provider_error", "\(p.name) did not sign you in (\(String(error.prefix(60))))."),
                         detail: String(error.prefix(100)))
        }
        guard let state = req.query("state"), let code = req.query("code"), !state.isEmpty, !code.isEmpty else {
            throw refuse(p, SSORefusal(400, "missing_parameters", "The answer from \(p.name) was incomplete. Start the sign-in again."))
        }
        let started: SSOPending
        switch pending.take(state: state, browser: Cookies.value(Self.cookie, in: req)) {
        case .success(let s) where s.provider == p.id: started = s
        case .success, .failure(.unknown), .failure(.otherBrowser):
            throw refuse(p, SSORefusal(400, "state_mismatch",
                                       "This sign-in was not started in this browser, or was already used. Start the sign-in again."))
        case .failure(.expired):
            throw refuse(p, SSORefusal(400, "expired", "The sign-in took longer than 10 minutes. Start it again."))
        }
        let (identity, claims) = try exchange(p, client, code: code, pending: started)
        let admin = p.adminEmails.contains(identity.email) || Self.inAdminGroup(p, claims)
        let role: Role = admin ? .admin : (Role(rawValue: p.defaultRole) ?? .readonly)
        let outcome = try accounts.signIn(provider: p.id, email: identity.email, name: identity.name,
                                          autoCreate: p.autoCreate, role: role)
        let user: UserRecord
        switch outcome {
        case .linked(let u): user = u
        case .created(let u):
            user = u
            Log.shared.info("sso: user created", ["provider": p.id, "user": String(u.id), "role": u.role])
        case .unknownUser:
            throw refuse(p, SSORefusal(403, "unknown_user",
                                       "There is no account for \(identity.email) on this hub. Ask an administrator to add you."))
        }
        // Signing in replaces whatever session this browser had, as a password login does.
        if let old = web.anySession(req) { try web.sessions.delete(id: old.session.id) }
        let s = try web.sessions.create(user: user, stage: .active, client: req.clientAddress)
        Log.shared.info("sso: signed in", ["provider": p.id, "user": String(user.id)])
        return web.redirect(started.next, cookies: [
            Cookies.header(Cookies.session, s.token, secure: web.secureCookies, maxAge: SessionService.absoluteLifetime),
            Cookies.header(Self.cookie, "", secure: web.secureCookies, maxAge: 0, path: "/login/sso"),
        ])
    }

    /// Code → tokens → a checked identity.
    private func exchange(_ p: SSOProviderConfig, _ client: OIDCProviderClient, code: String,
                          pending: SSOPending) throws -> (SSOIdentity, JSONObject) {
        let unavailable = SSORefusal(400, "provider_unavailable", "\(p.name) could not complete the sign-in. Try again later.")
        let metadata: OIDCMetadata
        do { metadata = try client.metadata() } catch { throw refuse(p, unavailable, detail: error.message) }
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI(p)),
                    ("code_verifier", pending.codeVerifier), ("client_id", p.clientID)]
        // client_secret_basic is the default (OIDC Core §9); post only when
        // the provider lists post and not basic.
        let methods = metadata.tokenAuthMethods
        let usePost = !methods.isEmpty && !methods.contains("client_secret_basic") && methods.contains("client_secret_post")
        if usePost { form.append(("client_secret", p.clientSecret)) }
        let json: JSON
        do {
            json = try client.tokenRequest(endpoint: metadata.tokenEndpoint, form: form,
                                           basicAuth: usePost ? nil : (p.clientID, p.clientSecret))
        } catch { throw refuse(p, unavailable, detail: error.message) }
        guard let idToken = json["id_token"]?.stringValue else {
            throw refuse(p, SSORefusal(400, "no_id_token", "\(p.name) sent no identity. Check that the openid scope is allowed."))
        }
        let verified: VerifiedJWT
        do { verified = try client.verify(idToken) } catch let e as OIDCProviderError {
            throw refuse(p, unavailable, detail: e.message)
        } catch {
            throw refuse(p, SSORefusal(400, "bad_signature", "The answer from \(p.name) failed its signature check. Sign-in refused."),
                         detail: "\(error)")
        }
        do {
            let identity = try IDTokenChecks.check(verified.claims, issuer: p.issuer, clientID: p.clientID, nonce: pending.nonce,
                                                   allowedDomains: p.allowedDomains, now: Time.now())
            return (identity, verified.claims)
        } catch { throw refuse(p, error) }
    }

    /// The optional group mapping: the claim may be a list or a single string.
    static func inAdminGroup(_ p: SSOProviderConfig, _ claims: JSONObject) -> Bool {
        guard !p.adminGroupClaim.isEmpty, !p.adminGroups.isEmpty, let value = claims[p.adminGroupClaim] else { return false }
        let groups = value.arrayValue?.compactMap(\.stringValue) ?? value.stringValue.map { [$0] } ?? []
        return groups.contains { p.adminGroups.contains($0) }
    }

    /// Logs the refusal (reason and detail, never tokens) and turns it into
    /// the error page the person sees.
    private func refuse(_ p: SSOProviderConfig, _ r: SSORefusal, detail: String? = nil) -> HTTPError {
        Log.shared.warn("sso: sign-in refused", ["provider": p.id, "reason": r.reason, "detail": detail ?? r.message])
        var e = HTTPError(r.status, r.reason, r.message)
        e.headers["Set-Cookie"] = Cookies.header(Self.cookie, "", secure: web.secureCookies, maxAge: 0, path: "/login/sso")
        return e
    }
}
