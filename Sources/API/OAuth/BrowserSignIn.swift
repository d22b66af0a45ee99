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
