import Auth
import Crypto
import HTTP
import Store

/// A signed-in browser: its active session, its user and the session's CSRF
/// token (for hidden form fields and the `X-CSRF-Token` header).
struct WebSessionContext: Sendable {
    let session: WebSessionRecord
    let user: UserRecord
    let csrf: String
}

/// What every HTML page of the hub needs: the session behind the cookie,
/// the CSRF check, the login redirect and the page layout with its security
/// headers. The login pages use it, and so do the OAuth consent pages.
struct WebLayer: Sendable {
    let sessions: SessionService
    let settings: APISettings

    /// The cookie gets `Secure` when the hub is reached over https.
    var secureCookies: Bool { settings.publicURL.lowercased().hasPrefix("https://") }

    /// The active session of the request's cookie, or nil (no cookie, unknown,
    /// expired, or still waiting for the TOTP code).
    func currentSession(_ req: HTTPRequest) -> WebSessionContext? {
        guard let any = anySession(req), any.session.isActive else { return nil }
        return any
    }

    /// The session whatever its stage (the TOTP step and logout need the waiting one).
    func anySession(_ req: HTTPRequest) -> WebSessionContext? {
        guard let value = Cookies.value(Cookies.session, in: req),
              let found = sessions.find(cookieValue: value) else { return nil }
        return WebSessionContext(session: found.session, user: found.user, csrf: found.session.csrfToken)
    }

    /// `303` to `/login?next=<next>`; after signing in the browser comes back to `next`.
    func loginRedirect(next: String) -> HTTPResponse {
        redirect("/login?next=" + FormCoding.percentEncode(next))
    }

    /// `303 See Other` (after a POST the browser then GETs the target) with
    /// the page security headers.
    func redirect(_ location: String, cookies: [String] = []) -> HTTPResponse {
        var r = HTTPResponse(status: 303)
        r.headers.add("Location", location)
        for c in cookies { r.headers.add("Set-Cookie", c) }
        Self.addSecurityHeaders(&r.headers)
        return r
    }

    /// The form's CSRF field (form-encoded body) must equal the session's
    /// token, compared in constant time. Else `403 csrf_failed` (rendered as
    /// a page by `webGuarded`).
    func checkCSRF(_ req: HTTPRequest, session: WebSessionContext, formField: String = "csrf_token") throws(HTTPError) {
        let sent = req.form(formField) ?? ""
        guard Self.tokensMatch(sent, session.csrf) else { throw Self.csrfFailed }
    }

    static let csrfFailed = HTTPError(403, "csrf_failed",
                                      "The form was stale or did not come from this hub. Go back, reload the page and try again.")

    static func tokensMatch(_ a: String, _ b: String) -> Bool {
        !a.isEmpty && !b.isEmpty && constantTimeEquals(Array(a.utf8), Array(b.utf8))
    }

    /// A full HTML page (`body` is already-escaped HTML) with the headers
    /// every page sends.
    func page(title: String, body: String, status: Int = 200, refresh: (seconds: Int, url: String?)? = nil) -> HTTPResponse {
        Self.page(title: title, body: body, status: status, hubName: settings.hubName, refresh: refresh)
    }

    static func page(title: String, body: String, status: Int = 200, hubName: String,
                     refresh: (seconds: Int, url: String?)? = nil) -> HTTPResponse {
        var r = HTTPResponse.text(status, PageLayout.render(title: title, hubName: hubName, body: body, refresh: refresh),
                                  contentType: "text/html; charset=utf-8")
        addSecurityHeaders(&r.headers)
        return r
    }

    /// Clickjacking (no framing), no referrer leaking a `next` or `state`
    /// to other sites, nothing loaded from elsewhere, and no caching of pages
    /// that show account details or CSRF tokens.
    static func addSecurityHeaders(_ h: inout HTTPHeaders) {
        h.set("X-Frame-Options", "DENY")
        h.set("Content-Security-Policy", "frame-ancestors 'none'; default-src 'self'; style-src 'self' 'unsafe-inline'")
        h.set("Referrer-Policy", "no-referrer")
        h.set("Cache-Control", "no-store")
        h.set("X-Content-Type-Options", "nosniff")
    }

    /// Wraps a page handler: any error becomes an HTML error page (never
    /// JSON: a person is looking at it), with the error's extra headers
    /// (`Retry-After`).
    func guardedPage(_ body: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) -> HTTPHandler {
        let hubName = settings.hubName
        return { req in
            do {
                return try body(req)
            } catch {
                let e = APIErrors.http(error)
                var r = Self.page(title: HTTPStatus.reason(e.status), body: Templates.errorPage(e), status: e.status,
                                  hubName: hubName)
                for (k, v) in e.headers.sorted(by: { $0.key < $1.key }) where k != "WWW-Authenticate" { r.headers.set(k, v) }
                return r
            }
        }
    }

    /// A `next` value that stays on this hub: a path starting with one `/`,
    /// no `//` (scheme-relative URL), no backslash (browsers read `/\evil` as
    /// `//evil`), no whitespace or control characters (stripped by browsers,
    /// so `/\t/evil` would become `//evil`), ASCII only. Anything else is `/`.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), next.utf8.count <= 8192,
              next.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") })
        else { return "/" }
        return next
    }
}

extension HTTPRequest {
    /// A field of an `application/x-www-form-urlencoded` body; nil when the
    /// body is not declared so (a form must not arrive as another type).
    func form(_ name: String) -> String? {
        let type = headers["Content-Type"]?.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() }
        guard type == "application/x-www-form-urlencoded" else { return nil }
        return FormCoding.decode(String(decoding: body, as: UTF8.self)).first { $0.name == name }?.value
    }
}
