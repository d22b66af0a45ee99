import Auth
import Core
import HTTP
import Store

/// The app's way into the web admin (SPEC §15): `POST /api/mobile/web-login`
/// (the app's `pma_` token only) makes a one-time link valid 60 s;
/// `GET /login/token/{token}` signs the browser that opens it in as the
/// sign-in's user, once. The session it starts keeps the sign-in's limits:
/// it writes only when the sign-in had write scope, and, like the app's
/// token, it takes no account endpoints (a phone's token must not turn into
/// API tokens or a new password by way of a browser). docs/security.md
/// "One-time links".
struct WebLoginLinkRoutes {
    let access: Access
    let web: WebLayer
    let links: SignInLinkService

    func register(_ r: inout RouteTable) {
        r.post("/api/mobile/web-login", access.signIn(.read, create))
        r.get("/login/token/{token}", web.guardedPage(open))
    }

    func create(_ req: HTTPRequest, _ p: Principal, _ signInID: Int64) throws -> HTTPResponse {
        var next: String?
        if !req.body.isEmpty {
            let f = try req.jsonFields()
            next = try f.string("next")
            if let n = next, n.utf8.count > 2048 {
                throw HTTPError(400, "validation_failed", "next must be at most 2048 bytes.", field: "next")
            }
        }
        // Anything but a local path goes to `/` (an open redirect would make
        // the hub's link a phishing tool).
        let target = WebLayer.safeNext(next)
        let token = try links.create(.webLogin, userID: p.user.id, canWrite: p.scope.allows(.write), next: target)
        return .json(.object(JSONObject([
            ("url", .string(web.settings.issuer + "/login/token/" + token)),
            ("expires_in", .int(SignInLinkService.webLoginLifetime)),
        ])))
    }

    /// Used or not, a GET is what uses it: the app opens the link in the
    /// browser itself, so no mail scanner follows it (unlike an e-mailed
    /// link, which shows a form first). Unknown, used or late → the login page.
    func open(_ req: HTTPRequest) throws -> HTTPResponse {
        let token = req.parameters["token"] ?? ""
        guard let (user, link) = try links.consume(.webLogin, token: token) else { return web.redirect("/login") }
        // Signing in replaces whatever session this browser had.
        if let old = web.anySession(req) { try web.sessions.delete(id: old.session.id) }
        let s = try web.sessions.create(user: user, stage: .active, client: req.clientAddress, fromApp: true,
                                        readOnly: !link.canWrite)
        let cookie = Cookies.header(Cookies.session, s.token, secure: web.secureCookies, maxAge: SessionService.absoluteLifetime)
        return web.redirect(WebLayer.safeNext(link.next), cookies: [cookie])
    }
}
