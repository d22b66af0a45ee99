import HTTP

/// The web sessions answer the OAuth authorize endpoint's question "who is
/// signed in on this browser", so the app's sign-in uses the hub's own login
/// page (password, then TOTP when enabled) and continues to consent after it.
extension WebLayer: BrowserSignIn {
    func currentUser(_ request: HTTPRequest) -> BrowserUser? {
        currentSession(request).map { BrowserUser(user: $0.user, csrfToken: $0.csrf) }
    }

    func checkCSRF(_ request: HTTPRequest, submitted: String?) throws(HTTPError) {
        guard let session = currentSession(request), Self.tokensMatch(submitted ?? "", session.csrf) else {
            throw Self.csrfFailed
        }
    }
}
