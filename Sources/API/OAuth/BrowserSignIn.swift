import HTTP
import Store

/// Who is signed in on this browser. The authorize and consent pages need
/// only this much of the web sessions, so the OAuth server does not depend
/// on how sessions, cookies and 2FA are implemented: the sessions side
/// provides the real conformance; tests provide their own.
public protocol BrowserSignIn: Sendable {
    /// The signed-in user of the request's session and the CSRF token bound
    /// to that session, or nil when the browser is not signed in (or only
    /// half-way: password given but TOTP not yet).
    func currentUser(_ request: HTTPRequest) -> BrowserUser?
    /// The answer that sends a browser to the login page and, once signed
    /// in, back to `next` (a path with its query, e.g. the authorize URL).
    func loginRedirect(next: String) -> HTTPResponse
    /// Throws (403) unless `submitted` is the CSRF token bound to the
    /// request's session. Compare in constant time.
    func checkCSRF(_ request: HTTPRequest, submitted: String?) throws(HTTPError)
}

public struct BrowserUser: Sendable {
    public var user: UserRecord
    public var csrfToken: String
    public init(user: UserRecord, csrfToken: String) {
        self.user = user
        self.csrfToken = csrfToken
    }
}

/// Stand-in until the web sessions are merged: nobody is signed in, so
/// `/oauth/authorize` sends the browser to `/login` and a consent POST is
/// refused. Everything else of the OAuth server works without it.
public struct NoBrowserSignIn: BrowserSignIn {
    public init() {}

    public func currentUser(_ request: HTTPRequest) -> BrowserUser? { nil }

    public func loginRedirect(next: String) -> HTTPResponse {
        var r = HTTPResponse(status: 303)
        r.headers.set("Location", "/login?next=" + FormCoding.percentEncode(next))
        r.headers.set("Cache-Control", "no-store")
        return r
    }

    public func checkCSRF(_ request: HTTPRequest, submitted: String?) throws(HTTPError) {
        throw HTTPError(403, "csrf_failed", "No signed-in session.")
    }
}
