import Auth
import Core
import HTTP

/// `GET /oauth/authorize` (checks, then login or consent) and
/// `POST /oauth/authorize` (the consent decision).
struct AuthorizeRoutes {
    let service: OAuthService
    let signIn: any BrowserSignIn
    let issuer: String
    let hubName: String

    func register(_ r: inout RouteTable) {
        r.get("/oauth/authorize", guarded(show))
        r.post("/oauth/authorize", guarded(decide))
    }

    /// The common answer to a request that failed its checks: an error page
    /// when the client or redirect URI is not trustworthy, else a redirect
    /// with the error.
    private func refusal(_ check: AuthorizeCheck) -> HTTPResponse? {
        switch check {
        case .ok: return nil
        case .errorPage(let message): return OAuthPages.error(message)
        case .redirectError(let uri, let error, let description, let state):
            return OAuthRedirect.response(uri, [("error", error), ("error_description", description), ("state", state)],
                                          issuer: issuer)
        }
    }

    func show(_ req: HTTPRequest) throws -> HTTPResponse {
        let check = OAuthAuthorize.check(req.queryItems, clients: service.clients)
        guard case .ok(let request) = check else { return refusal(check)! }
        guard let user = signIn.currentUser(req) else {
            return signIn.loginRedirect(next: req.path + (req.head.query.isEmpty ? "" : "?" + req.head.query))
        }
        return OAuthPages.consent(request, user: user, hubName: hubName)
    }

    func decide(_ req: HTTPRequest) throws -> HTTPResponse {
        let type = req.headers["Content-Type"]?.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() }
        guard type == "application/x-www-form-urlencoded" else {
            return OAuthPages.error("The consent form must be posted as a form.", status: 415)
        }
        let form = FormCoding.decode(String(decoding: req.body, as: UTF8.self))
        func field(_ name: String) -> String? { form.first { $0.name == name }?.value }
        // The hidden fields are the authorization request again: check it
        // from scratch, exactly as on GET.
        let check = OAuthAuthorize.check(form, clients: service.clients)
        guard case .ok(let request) = check else { return refusal(check)! }
        guard let user = signIn.currentUser(req) else {
            // The session ended between page and click: start over.
            let query = form.filter { !["csrf_token", "decision", "scope_choice"].contains($0.name) }
                .map { FormCoding.percentEncode($0.name) + "=" + FormCoding.percentEncode($0.value) }
                .joined(separator: "&")
            return signIn.loginRedirect(next: "/oauth/authorize?" + query)
        }
        do {
            try signIn.checkCSRF(req, submitted: field("csrf_token"))
        } catch {
            return OAuthPages.error("The form has expired or did not come from this hub. Start the sign-in again from the app.", status: 403)
        }
        switch field("decision") {
        case "approve":
            // Least privilege: no choice, or anything unexpected, is read.
            let chosen: Scope = field("scope_choice") == "write" ? .write : .read
            let code = try service.approve(user: user.user, request: request, scope: chosen)
            return OAuthRedirect.response(request.redirectURI, [("code", code), ("state", request.state)], issuer: issuer)
        case "deny":
            return OAuthRedirect.response(request.redirectURI,
                                          [("error", "access_denied"), ("error_description", "The user denied access."),
                                           ("state", request.state)], issuer: issuer)
        default:
            return OAuthPages.error("The form has no decision (approve or deny).")
        }
    }
}
