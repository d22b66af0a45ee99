import Auth
import Crypto
import HTTP
import Store

/// `/login`, `/login/2fa` and `/logout` (the signed-in `/` is `MonitorPages`;
/// approving on the phone instead of a code is `LoginApprovalRoutes`).
struct LoginRoutes {
    let web: WebLayer
    let users: UserService
    let twoFactor: TwoFactorService
    let limiter: LoginRateLimiter
    let ssoUsers: SSOUserService
    /// Whether the second-factor page offers approving on the phone (SPEC §11).
    let approvals: LoginApprovalService
    /// One "Sign in with <name>" button each.
    let ssoProviders: [(id: String, name: String)]
    /// Links to password recovery (only with `[smtp]` configured).
    var forgot = false

    /// The pre-session CSRF cookie lives long enough to fill in the form.
    static let loginCSRFMaxAge: Int64 = 3600
    static let genericFailure = "Wrong email or password."

    func register(_ r: inout RouteTable) {
        r.get("/login", web.guardedPage(loginForm))
        r.post("/login", web.guardedPage(login))
        r.get("/login/2fa", web.guardedPage(twoFactorForm))
        r.post("/login/2fa", web.guardedPage(verifyCode))
        r.post("/logout", web.guardedPage(logout))
    }

    func loginForm(_ req: HTTPRequest) throws -> HTTPResponse {
        let next = WebLayer.safeNext(req.query("next"))
        if web.currentSession(req) != nil { return web.redirect(next) }
        return formPage(next: next, email: "", status: 200, error: nil)
    }

    /// The form with a fresh double-submit CSRF value in cookie and field.
    private func formPage(next: String, email: String, status: Int, error: String?) -> HTTPResponse {
        let csrf = Base64URL.encode(SecureRandom.bytes(32))
        var r = web.page(title: "Sign in", body: Templates.login(csrf: csrf, next: next, email: email, error: error,
                                                                                     providers: ssoProviders, forgot: forgot),
                         status: status)
        r.headers.add("Set-Cookie", Cookies.header(Cookies.loginCSRF, csrf, secure: web.secureCookies,
                                                   maxAge: Self.loginCSRFMaxAge, path: "/login"))
        return r
    }

    func login(_ req: HTTPRequest) throws -> HTTPResponse {
        guard WebLayer.tokensMatch(req.form("csrf_token") ?? "", Cookies.value(Cookies.loginCSRF, in: req) ?? "") else {
            throw WebLayer.csrfFailed
        }
        let next = WebLayer.safeNext(req.form("next"))
        let email = (req.form("email") ?? "").trimmingWhitespace()
        let password = req.form("password") ?? ""
        if let wait = limiter.retryAfter(account: email, address: req.clientAddress) {
            throw Self.tooMany(wait)
        }
        guard !email.isEmpty, !password.isEmpty, password.utf8.count <= 1024,
              let user = try users.verifyPassword(email: email, password: password) else {
            limiter.recordFailure(account: email, address: req.clientAddress)
            return formPage(next: next, email: email, status: 200, error: Self.genericFailure)
        }
        limiter.recordSuccess(account: email)
        if let state = try ssoUsers.state(userID: user.id), !state.passwordLogin {
            // The password was right, so saying why leaks nothing new.
            let via = ssoProviders.first { $0.id == state.provider }.map { " Use “Sign in with \($0.name)”." } ?? ""
            return formPage(next: next, email: email, status: 403,
                            error: "Password sign-in is turned off for this account." + via)
        }
        // Signing in again replaces whatever session this browser had.
        if let old = web.anySession(req) { try web.sessions.delete(id: old.session.id) }
        if user.totpEnabled {
            let pending = try web.sessions.create(user: user, stage: .passwordOK, client: req.clientAddress)
            return web.redirect("/login/2fa?next=" + FormCoding.percentEncode(next),
                                cookies: [sessionCookie(pending.token, maxAge: SessionService.pendingLifetime)])
        }
        let s = try web.sessions.create(user: user, stage: .active, client: req.clientAddress)
        return web.redirect(next, cookies: [sessionCookie(s.token, maxAge: SessionService.absoluteLifetime)])
    }

    func twoFactorForm(_ req: HTTPRequest) throws -> HTTPResponse {
        let next = WebLayer.safeNext(req.query("next"))
        guard let s = web.anySession(req) else { return web.loginRedirect(next: next) }
        if s.session.isActive { return web.redirect(next) }
        return web.page(title: "Two-factor authentication",
                        body: Templates.twoFactor(csrf: s.csrf, next: next, phoneApproval: try approvals.isOffered(to: s.user)))
    }

    func verifyCode(_ req: HTTPRequest) throws -> HTTPResponse {
        let next = WebLayer.safeNext(req.form("next"))
        guard let s = web.anySession(req), !s.session.isActive else { return web.loginRedirect(next: next) }
        try web.checkCSRF(req, session: s)
        if let wait = limiter.retryAfter(account: s.user.email, address: req.clientAddress) {
            throw Self.tooMany(wait)
        }
        guard try twoFactor.verify(userID: s.user.id, code: req.form("code") ?? "") else {
            limiter.recordFailure(account: s.user.email, address: req.clientAddress, factor: .secondFactor)
            return web.page(title: "Two-factor authentication",
                            body: Templates.twoFactor(csrf: s.csrf, next: next, error: "That code is not valid. Try the next one.",
                                                      phoneApproval: try approvals.isOffered(to: s.user)))
        }
        limiter.recordSuccess(account: s.user.email, factor: .secondFactor)
        guard let active = try web.sessions.activate(id: s.session.id) else { return web.loginRedirect(next: next) }
        return web.redirect(next, cookies: [sessionCookie(active.token, maxAge: SessionService.absoluteLifetime)])
    }

    func logout(_ req: HTTPRequest) throws -> HTTPResponse {
        let clear = Cookies.header(Cookies.session, "", secure: web.secureCookies, maxAge: 0)
        guard let s = web.anySession(req) else { return web.redirect("/login", cookies: [clear]) }
        try web.checkCSRF(req, session: s)
        try web.sessions.delete(id: s.session.id)
        return web.redirect("/login", cookies: [clear])
    }

    private func sessionCookie(_ token: String, maxAge: Int64) -> String {
        Cookies.header(Cookies.session, token, secure: web.secureCookies, maxAge: maxAge)
    }

    static func tooMany(_ wait: Int64) -> HTTPError {
        HTTPError(429, "rate_limited", "Too many failed sign-in attempts. Try again in \(max(1, (wait + 59) / 60)) minute(s).",
                  headers: ["Retry-After": String(wait)])
    }
}
