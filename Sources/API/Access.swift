import Auth
import HTTP
import Store

/// Least privilege for every endpoint: who may call it is declared where the
/// route is, and checked in one order: credential (401), account endpoint
/// (403 `account_endpoint`), scope (403 `insufficient_scope`), role (403
/// `admin_required`).
struct Access: Sendable {
    let authenticator: Authenticator
    /// Web sessions: the browser's cookie also works on the API (the admin
    /// UI calls it), see `sessionPrincipal`.
    let sessions: SessionService

    struct Rule: Sendable {
        var scope: Scope
        var admin = false
        var account = false
        var ownAccount = false
        static let read = Rule(scope: .read)
        static let write = Rule(scope: .write)
        static let accountRead = Rule(scope: .read, account: true)
        /// The caller's own account (password, 2FA, own tokens and sign-ins):
        /// write scope, or the user's own web session whatever the role — a
        /// readonly user must still be able to protect their account.
        static let accountWrite = Rule(scope: .write, account: true, ownAccount: true)
        /// The caller's own settings that the app changes too (quiet hours):
        /// any write credential of the user, the app's `pma_` included, or
        /// the user's own web session whatever the role.
        static let ownWrite = Rule(scope: .write, ownAccount: true)
        static let adminAccountRead = Rule(scope: .read, admin: true, account: true)
        static let adminAccountWrite = Rule(scope: .write, admin: true, account: true)
        static let adminRead = Rule(scope: .read, admin: true)
        static let adminWrite = Rule(scope: .write, admin: true)
    }

    func check(_ request: HTTPRequest, _ rule: Rule) throws -> Principal {
        if AgentAccess.bearer(request).map({ TokenKind.of($0) == .agent }) == true {
            // A valid credential of the wrong kind: 403, so an agent
            // misconfigured with a hub URL path learns why, not "sign in again".
            throw HTTPError(403, "agent_token", "Agent tokens (pmg_) work only on /api/agent/* endpoints.")
        }
        let principal = try sessionPrincipal(request)
            ?? authenticator.authenticate(authorization: request.headers["Authorization"])
        try Self.authorize(principal, rule)
        return principal
    }

    /// The caller as `Authenticator.cachedPrincipal` knows it, if `rule`
    /// lets it through; nil for everything else (no bearer token, an agent
    /// token, a refusal), which the full `check` then answers.
    func cachedPrincipal(_ request: HTTPRequest, _ rule: Rule) -> KeptCaller? {
        guard let authorization = request.headers["Authorization"],
              let kept = authenticator.cached(authorization: authorization),
              (try? Self.authorize(kept.principal, rule)) != nil else { return nil }
        return kept
    }

    /// The rule's checks on an established principal (the HTML pages use it
    /// with `sessionPrincipal(user:session:)`, so pages and API agree).
    static func authorize(_ principal: Principal, _ rule: Rule) throws(HTTPError) {
        if rule.account && !principal.mayUseAccountEndpoints {
            throw HTTPError(403, "account_endpoint",
                            "Account endpoints take a web session or an API token, not an OAuth access token.")
        }
        var sessionOwnsIt = false
        if rule.ownAccount, case .session = principal.credential, !principal.fromApp { sessionOwnsIt = true }
        if !principal.scope.allows(rule.scope) && !sessionOwnsIt {
            throw HTTPError(403, "insufficient_scope", "This needs a token with \(rule.scope.rawValue) scope.")
        }
        if rule.admin && !principal.isAdmin {
            throw HTTPError(403, "admin_required", "Only an admin may do this.")
        }
    }

    /// A request with the session cookie and no Authorization header acts as
    /// the session's user: write scope for admins, read for readonly users.
    /// A cookie is an ambient credential: the browser attaches it to any
    /// request to the hub, including one a hostile page makes it send. So an
    /// unsafe method must also carry `X-CSRF-Token` with the session's token,
    /// which only the hub's own pages know (a cross-site page cannot read it,
    /// nor set a custom header without a CORS preflight we never grant).
    /// An explicit Authorization header wins, so scripts are unaffected.
    func sessionPrincipal(_ request: HTTPRequest) throws(HTTPError) -> Principal? {
        guard request.headers["Authorization"] == nil,
              let value = Cookies.value(Cookies.session, in: request) else { return nil }
        guard let found = sessions.find(cookieValue: value), found.session.isActive else {
            throw HTTPError(401, "unauthorized", "The session has expired or ended; sign in again.",
                            headers: ["WWW-Authenticate": "Bearer realm=\"pingtxt\""])
        }
        if !["GET", "HEAD", "OPTIONS"].contains(request.method) {
            guard WebLayer.tokensMatch(request.headers["X-CSRF-Token"] ?? "", found.session.csrfToken) else {
                throw HTTPError(403, "csrf_failed", "A request authenticated by the session cookie needs the X-CSRF-Token header.")
            }
        }
        return Self.sessionPrincipal(user: found.user, session: found.session)
    }

    /// A web session acts with write scope for admins, read for readonly
    /// users; one from a read sign-in's web-login link reads only.
    static func sessionPrincipal(user: UserRecord, session: WebSessionRecord) -> Principal {
        let role = Role(rawValue: user.role) ?? .readonly
        var p = Principal(user: user, role: role, scope: role == .admin && !session.readOnly ? .write : .read,
                          credential: .session(id: session.id))
        p.fromApp = session.fromApp
        return p
    }
}
