import Auth
import Core
import HTTP

/// RFC 8414 metadata, the token endpoint and RFC 7009 revocation. These are
/// called by the app, not a browser: answers are JSON in OAuth's own shape
/// (`{"error","error_description"}`), not the `/api` error shape.
struct TokenRoutes {
    let service: OAuthService
    let issuer: String

    func register(_ r: inout RouteTable) {
        r.get("/.well-known/oauth-authorization-server", guarded(metadata))
        r.post("/oauth/token", guarded(token))
        r.post("/oauth/revoke", guarded(revoke))
    }

    static func metadata(issuer: String) -> JSON {
        ["issuer": .string(issuer),
         "authorization_endpoint": .string(issuer + "/oauth/authorize"),
         "token_endpoint": .string(issuer + "/oauth/token"),
         "revocation_endpoint": .string(issuer + "/oauth/revoke"),
         "response_types_supported": ["code"],
         "grant_types_supported": ["authorization_code", "refresh_token"],
         "code_challenge_methods_supported": ["S256"],
         "token_endpoint_auth_methods_supported": ["none"],
         "scopes_supported": ["read", "write"],
         "authorization_response_iss_parameter_supported": true]
    }

    func metadata(_ req: HTTPRequest) throws -> HTTPResponse {
        .json(Self.metadata(issuer: issuer))
    }

    /// Token answers must never be cached (RFC 6749 §5.1).
    private static func noStore(_ r: HTTPResponse) -> HTTPResponse {
        var r = r
        r.headers.set("Cache-Control", "no-store")
        r.headers.set("Pragma", "no-cache")
        return r
    }

    static func errorResponse(_ e: OAuthError) -> HTTPResponse {
        noStore(.json(["error": .string(e.code), "error_description": .string(e.description)], status: e.status))
    }

    /// The form body as name → value; a parameter sent twice is an error
    /// (RFC 6749 §3.2).
    private func form(_ req: HTTPRequest) throws(OAuthError) -> [String: String] {
        let type = req.headers["Content-Type"]?.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() }
        guard type == "application/x-www-form-urlencoded" else {
            throw OAuthError("invalid_request", "Send the parameters as application/x-www-form-urlencoded.")
        }
        var out: [String: String] = [:]
        for (name, value) in FormCoding.decode(String(decoding: req.body, as: UTF8.self)) {
            guard out[name] == nil else { throw OAuthError("invalid_request", "\(name) is repeated.") }
            out[name] = value
        }
        return out
    }

    func token(_ req: HTTPRequest) throws -> HTTPResponse {
        do {
            let p = try form(req)
            let tokens: OAuthTokens
            switch p["grant_type"] {
            case "authorization_code":
                tokens = try service.exchange(code: p["code"], verifier: p["code_verifier"], clientID: p["client_id"],
                                              redirectURI: p["redirect_uri"])
            case "refresh_token":
                tokens = try service.refresh(token: p["refresh_token"], clientID: p["client_id"], scope: p["scope"])
            case nil, "":
                throw OAuthError("invalid_request", "grant_type is required.")
            default:
                throw OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.")
            }
            return Self.noStore(.json(["access_token": .string(tokens.accessToken), "token_type": "Bearer",
                                       "expires_in": .int(tokens.expiresIn), "refresh_token": .string(tokens.refreshToken),
                                       "scope": .string(tokens.scope.oauthString)]))
        } catch let e as OAuthError {
            return Self.errorResponse(e)
        }
    }

    /// Always 200 (RFC 7009 §2.2): unknown or already revoked tokens
    /// included, so the endpoint tells nothing about which tokens exist.
    func revoke(_ req: HTTPRequest) throws -> HTTPResponse {
        if let p = try? form(req), let token = p["token"] {
            try service.revoke(token: token)
        }
        return Self.noStore(HTTPResponse(status: 200))
    }
}
