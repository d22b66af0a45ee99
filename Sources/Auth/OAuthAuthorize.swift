/// A validated authorization request (`GET /oauth/authorize`).
public struct AuthorizeRequest: Sendable, Equatable {
    public var client: OAuthClient
    public var redirectURI: String
    public var codeChallenge: String
    public var state: String?
    /// What the client asked for; the consent page may grant less.
    public var scope: Scope
}

/// The outcome of checking an authorization request. The order matters
/// (RFC 6749 §4.1.2.1): until client and redirect URI are known good, the
/// only safe answer is a page on the hub itself — redirecting to an
/// unverified URI would make the hub an open redirector.
public enum AuthorizeCheck: Sendable, Equatable {
    /// Show an HTML error page (400); never redirect.
    case errorPage(String)
    /// Redirect to the client with `error` (plus `state` and `iss`).
    case redirectError(redirectURI: String, error: String, description: String, state: String?)
    case ok(AuthorizeRequest)
}

public enum OAuthAuthorize {
    /// Checks the query items of an authorization request.
    public static func check(_ items: [(name: String, value: String)], clients: OAuthClients) -> AuthorizeCheck {
        func values(_ name: String) -> [String] { items.filter { $0.name == name }.map(\.value) }
        let clientIDs = values("client_id")
        guard clientIDs.count == 1, let client = clients.find(clientIDs[0]) else {
            return .errorPage(clientIDs.count > 1 ? "client_id is repeated." : "This app (client_id) is not known to this hub.")
        }
        let uris = values("redirect_uri")
        guard uris.count == 1, client.allows(redirectURI: uris[0]) else {
            return .errorPage(uris.isEmpty ? "The request has no redirect_uri."
                              : "The redirect_uri is not registered for \(client.name).")
        }
        let redirectURI = uris[0]
        let states = values("state")
        let state = states.first
        func fail(_ error: String, _ description: String) -> AuthorizeCheck {
            .redirectError(redirectURI: redirectURI, error: error, description: description, state: state)
        }
        // RFC 6749 §3.1: parameters must not be included more than once.
        for name in ["response_type", "code_challenge", "code_challenge_method", "state", "scope"] where values(name).count > 1 {
            return fail("invalid_request", "\(name) is repeated.")
        }
        guard let responseType = values("response_type").first else { return fail("invalid_request", "response_type is missing.") }
        guard responseType == "code" else { return fail("unsupported_response_type", "Only response_type=code is supported.") }
        guard let challenge = values("code_challenge").first else {
            return fail("invalid_request", "code_challenge is required (PKCE).")
        }
        guard isPKCEValue(challenge) else {
            return fail("invalid_request", "code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.")
        }
        // `plain` would put the verifier itself in the browser's URL; a
        // missing method means plain (RFC 7636 §4.3), so both are refused.
        guard values("code_challenge_method").first == "S256" else {
            return fail("invalid_request", "code_challenge_method must be S256.")
        }
        var scope = Scope.write
        if let text = values("scope").first {
            guard let parsed = Scope(oauth: text) else { return fail("invalid_scope", "scope must be read, or read write.") }
            scope = parsed
        }
        return .ok(AuthorizeRequest(client: client, redirectURI: redirectURI, codeChallenge: challenge,
                                    state: state, scope: scope))
    }

    /// RFC 7636 §4.1/§4.2: 43–128 unreserved characters (verifier and the
    /// challenge's syntax alike).
    public static func isPKCEValue(_ s: String) -> Bool {
        let utf8 = s.utf8
        guard (43...128).contains(utf8.count) else { return false }
        return utf8.allSatisfy { c in
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                true
            default:
                false
            }
        }
    }
}
