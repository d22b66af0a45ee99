import Auth
import Core
import HTTP
import Monitoring
import Notify

/// What a signed-in page's handler gets: the session, the principal it acts
/// as (the same one the API would build for the session cookie, so pages
/// and API share their rules) and the decoded form of a POST.
struct SignedIn: Sendable {
    let session: WebSessionContext
    let principal: Principal
    let form: WebForm

    var csrf: String { session.csrf }
    var isAdmin: Bool { principal.isAdmin }
    /// Readonly users see everything but get no forms that write.
    var canWrite: Bool { principal.scope.allows(.write) }
}

extension WebLayer {
    /// A signed-in GET page; not signed in → `303 /login?next=<path and query>`,
    /// which comes back here afterwards.
    func signedInPage(_ body: @escaping @Sendable (HTTPRequest, SignedIn) throws -> HTTPResponse) -> HTTPHandler {
        let web = self
        return guardedPage { req in
            guard let s = web.currentSession(req) else {
                let next = req.head.query.isEmpty ? req.path : req.path + "?" + req.head.query
                return web.loginRedirect(next: WebLayer.safeNext(next))
            }
            return try body(req, Self.context(s, req))
        }
    }

    /// A form POST: signed in (else to the login page, then back to `page`),
    /// the session's CSRF token, then `rule` (a `403` page otherwise). Every
    /// write of the admin pages goes through here.
    func signedInForm(page: String, rule: Access.Rule,
                      _ body: @escaping @Sendable (HTTPRequest, SignedIn) throws -> HTTPResponse) -> HTTPHandler {
        let web = self
        return guardedPage { req in
            guard let s = web.currentSession(req) else { return web.loginRedirect(next: page) }
            try web.checkCSRF(req, session: s)
            let ctx = Self.context(s, req)
            do {
                try Access.authorize(ctx.principal, rule)
            } catch let e as HTTPError where e.code == "insufficient_scope" {
                // A person, not a token: say it in their terms.
                throw HTTPError(403, "insufficient_scope", ctx.session.session.readOnly
                                ? "This browser was signed in from the app with read access: it can see everything but change nothing."
                                : "Your account is read-only: it can see everything but change nothing.")
            }
            return try body(req, ctx)
        }
    }

    private static func context(_ s: WebSessionContext, _ req: HTTPRequest) -> SignedIn {
        SignedIn(session: s, principal: Access.sessionPrincipal(user: s.user, session: s.session), form: WebForm(req))
    }

    /// A full admin page with the layout and navigation.
    func adminPage(_ ctx: SignedIn, title: String, current: String, template: String, _ values: TemplateValue,
                   flash: String? = nil, error: String? = nil, script: String? = nil, status: Int = 200) -> HTTPResponse {
        AdminPage.respond(ctx.session, hubName: settings.hubName, title: title, current: current,
                          body: TemplateLibrary.render(template, values), flash: flash, error: error, script: script,
                          status: status)
    }

    /// A full admin page from a template's fields: adds `csrf`, `can_write`
    /// and, for each list field `x`, `has_x` (`{{#has_x}}` wraps a table
    /// around `{{#x}}` rows: a list section alone would repeat the table).
    func adminPage(_ ctx: SignedIn, title: String, current: String, template: String, fields: [String: TemplateValue],
                   flash: String? = nil, error: String? = nil, status: Int = 200) -> HTTPResponse {
        var values = fields
        for (key, value) in fields {
            if case .list(let items) = value { values["has_" + key] = .bool(!items.isEmpty) }
        }
        values["csrf"] = .string(ctx.csrf)
        values["can_write"] = .bool(ctx.canWrite)
        return adminPage(ctx, title: title, current: current, template: template, .object(values), flash: flash, error: error,
                         status: status)
    }

    /// A refusal a person can fix on the form (validation, conflict, a wrong
    /// code): its API answer, shown on the re-rendered page. Anything else
    /// (database busy, a bug) is rethrown to become an error page.
    static func formError(_ error: any Error) -> HTTPError? {
        let e: HTTPError
        switch error {
        case let x as HTTPError: e = x
        case let x as AuthError: e = APIErrors.http(x)
        case let x as JSONFieldError: e = APIErrors.http(x)
        case let x as MonitoringError: e = APIErrors.http(x)
        case let x as NotifyError: e = APIErrors.http(x)
        default: return nil
        }
        return (400..<500).contains(e.status) && e.status != 401 && e.status != 429 ? e : nil
    }
}
