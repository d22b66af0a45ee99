import Auth
import Core
import HTTP
import Notify
import Store

/// `POST /login/approve` and `GET /login/approve` (SPEC §11): the browser's
/// side of approving a sign-in on the phone. Both act on the waiting session
/// (password right, second factor awaited) behind the cookie; the phone's
/// side is `/api/mobile/login-approvals` (`MobileRoutes`).
struct LoginApprovalRoutes {
    let web: WebLayer
    let approvals: LoginApprovalService
    let limiter: LoginRateLimiter
    /// Sends the request to the user's phones; nil when the hub runs without
    /// alerting (the app's list of waiting approvals still shows it).
    let push: PushService?

    /// How often the waiting page reloads itself (pages run no script).
    static let refreshSeconds = 2

    func register(_ r: inout RouteTable) {
        r.post("/login/approve", web.guardedPage(start))
        r.get("/login/approve", web.guardedPage(show))
    }

    /// Starts an approval (or shows the one still waiting) and answers the
    /// waiting page. Rate-limited like a code: an account or address that
    /// failed too often gets `429` before any push is sent.
    func start(_ req: HTTPRequest) throws -> HTTPResponse {
        let next = WebLayer.safeNext(req.form("next"))
        guard let s = web.anySession(req) else { return web.loginRedirect(next: next) }
        if s.session.isActive { return web.redirect(next) }
        try web.checkCSRF(req, session: s)
        if let wait = limiter.retryAfter(account: s.user.email, address: req.clientAddress) {
            throw LoginRoutes.tooMany(wait)
        }
        let client = ClientLabel.describe(address: req.clientAddress, userAgent: req.headers["User-Agent"])
        let push = self.push
        let result = try approvals.start(sessionID: s.session.id, user: s.user, client: client, address: req.clientAddress) { c, a in
            _ = try push?.queueLoginApproval(c, userID: a.userID, approvalID: a.id, client: a.client, expiresAt: a.expiresAt,
                                             now: a.createdAt)
        }
        switch result {
        case .unavailable:
            // Turned off, or the last phone went away since the page was shown.
            return web.redirect(Templates.codePage(next))
        case .tooMany(let wait):
            throw HTTPError(429, "rate_limited",
                            "Too many approval requests for this account. Type a code, or try again in "
                                + "\(max(1, (wait + 59) / 60)) minute(s).", headers: ["Retry-After": String(wait)])
        case .started(let a, let created):
            if created {
                push?.deliverSoon()
                Log.shared.info("sign-in approval requested", ["user_id": "\(s.user.id)", "session_id": "\(s.session.id)"])
            }
            return waiting(a, next: next)
        }
    }

    /// The waiting page: `303` to `next` with a new session cookie once
    /// approved (exactly as after a right TOTP code), the refusal once
    /// refused or expired, the number while waiting.
    func show(_ req: HTTPRequest) throws -> HTTPResponse {
        let next = WebLayer.safeNext(req.query("next"))
        guard let s = web.anySession(req) else { return web.loginRedirect(next: next) }
        if s.session.isActive { return web.redirect(next) }
        switch try approvals.pickUp(sessionID: s.session.id) {
        case .none:
            return web.redirect(Templates.codePage(next))
        case .waiting(let a):
            return waiting(a, next: next)
        case .refused:
            return web.page(title: "Sign-in refused", body: Templates.approvalEnded(refused: true, csrf: s.csrf, next: next))
        case .expired:
            return web.page(title: "Approval expired", body: Templates.approvalEnded(refused: false, csrf: s.csrf, next: next))
        case .signIn:
            limiter.recordSuccess(account: s.user.email, factor: .secondFactor)
            guard let active = try web.sessions.activate(id: s.session.id) else { return web.loginRedirect(next: next) }
            Log.shared.info("sign-in approved on the phone", ["user_id": "\(s.user.id)", "session_id": "\(active.session.id)"])
            return web.redirect(next, cookies: [Cookies.header(Cookies.session, active.token, secure: web.secureCookies,
                                                               maxAge: SessionService.absoluteLifetime)])
        }
    }

    private func waiting(_ a: LoginApprovalRecord, next: String) -> HTTPResponse {
        web.page(title: "Approve on your phone",
                 body: Templates.approvalWaiting(code: a.code, client: a.client, expiresAt: a.expiresAt, next: next),
                 refresh: (Self.refreshSeconds, "/login/approve?next=" + FormCoding.percentEncode(next)))
    }
}
