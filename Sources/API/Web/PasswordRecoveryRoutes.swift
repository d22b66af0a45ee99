import Auth
import Core
import Crypto
import HTTP
import Notify
import Store

/// Password recovery and the invitation link's page (SPEC §15), only when
/// `[smtp]` is configured (otherwise these paths are 404 and the login
/// page has no "Forgot your password?" link):
/// - `GET|POST /login/forgot`: posting an address always answers the same
///   page; for a user with a password a one-time link (30 min) is mailed.
///   Each request counts against the address and the client like a failed
///   login (a limiter of its own, so asking for mails never locks a login).
/// - `GET|POST /login/reset/{token}`: the recovery or invitation link. The
///   GET shows the form and changes nothing (mail scanners follow links);
///   the POST (double-submit CSRF value in a cookie scoped to this link's
///   path) sets the password, uses the link up and ends every web session
///   of the user. docs/security.md "One-time links".
struct PasswordRecoveryRoutes {
    let web: WebLayer
    let users: UserService
    let links: SignInLinkService
    let notify: NotifyService
    let limiter: LoginRateLimiter

    static let csrfMaxAge: Int64 = 3600

    func register(_ r: inout RouteTable) {
        guard notify.sendsMail else { return }
        r.get("/login/forgot", web.guardedPage(forgotForm))
        r.post("/login/forgot", web.guardedPage(forgot))
        r.get("/login/reset/{token}", web.guardedPage(resetForm))
        r.post("/login/reset/{token}", web.guardedPage(reset))
    }

    /// A page with a fresh double-submit CSRF value in field and cookie.
    private func formPage(_ title: String, path: String, status: Int = 200, _ body: (String) -> String) -> HTTPResponse {
        let csrf = Base64URL.encode(SecureRandom.bytes(32))
        var r = web.page(title: title, body: body(csrf), status: status)
        r.headers.add("Set-Cookie", Cookies.header(Cookies.loginCSRF, csrf, secure: web.secureCookies, maxAge: Self.csrfMaxAge,
                                                   path: path))
        return r
    }

    private func checkCSRF(_ req: HTTPRequest) throws(HTTPError) {
        guard WebLayer.tokensMatch(req.form("csrf_token") ?? "", Cookies.value(Cookies.loginCSRF, in: req) ?? "") else {
            throw WebLayer.csrfFailed
        }
    }

    func forgotForm(_ req: HTTPRequest) throws -> HTTPResponse {
        formPage("Forgot your password?", path: "/login/forgot") { Templates.forgot(csrf: $0) }
    }

    func forgot(_ req: HTTPRequest) throws -> HTTPResponse {
        try checkCSRF(req)
        let email = (req.form("email") ?? "").trimmingWhitespace()
        if let wait = limiter.retryAfter(account: email, address: req.clientAddress) {
            throw HTTPError(429, "rate_limited", "Too many requests. Try again in \(max(1, (wait + 59) / 60)) minute(s).",
                            headers: ["Retry-After": String(wait)])
        }
        limiter.recordFailure(account: email, address: req.clientAddress)
        if !email.isEmpty, email.utf8.count <= 320, let user = try users.find(email: email), user.passwordHash != nil {
            let token = try links.create(.passwordReset, userID: user.id)
            notify.sendAccountMail(to: user.email, subject: "Set a new password for \(web.settings.hubName)", body: """
                Someone (hopefully you) asked to set a new password for \(user.email) on \(web.settings.hubName).

                Open this link within 30 minutes to set it (it works once):
                \(web.settings.issuer)/login/reset/\(token)

                If it was not you, ignore this mail: your password stays as it is.
                """)
        }
        return web.page(title: "Check your mail", body: Templates.forgotSent)
    }

    func resetForm(_ req: HTTPRequest) throws -> HTTPResponse {
        let token = req.parameters["token"] ?? ""
        guard try links.setsPassword(token: token) else { return invalid() }
        return formPage("Set a password", path: "/login/reset/" + token) {
            Templates.resetForm(csrf: $0, action: "/login/reset/" + token)
        }
    }

    func reset(_ req: HTTPRequest) throws -> HTTPResponse {
        let token = req.parameters["token"] ?? ""
        try checkCSRF(req)
        let password = req.form("password") ?? ""
        func again(_ error: String) -> HTTPResponse {
            formPage("Set a password", path: "/login/reset/" + token, status: 400) {
                Templates.resetForm(csrf: $0, action: "/login/reset/" + token, error: error)
            }
        }
        guard password == (req.form("confirm") ?? "") else { return again("The two passwords differ.") }
        do {
            guard try links.setPassword(token: token, password: password) != nil else { return invalid() }
        } catch AuthError.invalid(_, let message) {
            return again(message)
        }
        // The browser that set it is signed out too (every session ended): it signs in with the new password.
        let clear = Cookies.header(Cookies.session, "", secure: web.secureCookies, maxAge: 0)
        var r = web.page(title: "Password set", body: Templates.resetDone)
        r.headers.add("Set-Cookie", clear)
        return r
    }

    private func invalid() -> HTTPResponse {
        web.page(title: "This link does not work", body: Templates.linkInvalid, status: 404)
    }
}
