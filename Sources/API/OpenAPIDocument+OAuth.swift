import Core

/// The OAuth 2.1 authorization server (SPEC §4) and connected apps.
extension OpenAPIDocument {
    static let form = "application/x-www-form-urlencoded"

    static let oauthOperations: [Operation] = [
        Operation(method: "get", path: "/.well-known/oauth-authorization-server", summary: "RFC 8414 authorization server metadata.",
                  auth: "public", success: (200, ref("OAuthMetadata"))),
        Operation(method: "get", path: "/oauth/authorize",
                  summary: "Authorization endpoint (browser): response_type=code, client_id, redirect_uri, code_challenge, "
                      + "code_challenge_method=S256, state, scope. Unknown client or redirect URI: an HTML error page (400), never a "
                      + "redirect; other errors redirect with error, state and iss. Not signed in: the login page, then back; "
                      + "signed in: the consent page.",
                  auth: "public (browser session)", success: (200, ["type": "string"]), successType: "text/html"),
        Operation(method: "post", path: "/oauth/authorize",
                  summary: "The consent decision (form with the CSRF token): 303 to redirect_uri with code, state and iss, or "
                      + "error=access_denied.",
                  auth: "public (browser session)", request: ref("ConsentForm"), success: (303, nil), requestType: form),
        Operation(method: "post", path: "/oauth/token",
                  summary: "Token endpoint: authorization_code (PKCE S256) and refresh_token grants. Cache-Control: no-store. "
                      + "Errors are 400 (401 for invalid_client) with RFC 6749 codes.",
                  auth: "public (client_id, PKCE)", request: ref("TokenRequest"), success: (200, ref("TokenResponse")),
                  requestType: form, errorSchema: "OAuthError"),
        Operation(method: "post", path: "/oauth/revoke",
                  summary: "RFC 7009 revocation: revoking either token ends its whole sign-in. Always 200.",
                  auth: "public", request: ref("RevokeRequest"), success: (200, nil), requestType: form),
        Operation(method: "get", path: "/api/connected-apps",
                  summary: "The caller's OAuth sign-ins (connected apps). Admins: ?all=true or ?user_id= for other users'. "
                      + "devices are the phones enrolled on each sign-in (no push tokens).",
                  auth: "read account", success: (200, list("ConnectedApp"))),
        Operation(method: "delete", path: "/api/connected-apps/{id}",
                  summary: "Revoke a sign-in, every token it issued and its phones (admins: anyone's; others' are 404).",
                  auth: "write account", success: (204, nil)),
    ]

    static let oauthSchemas: [(String, JSON)] = [
        ("OAuthMetadata", ["type": "object", "properties": [
            "issuer": ["type": "string"], "authorization_endpoint": ["type": "string"], "token_endpoint": ["type": "string"],
            "revocation_endpoint": ["type": "string"], "response_types_supported": ["type": "array"],
            "grant_types_supported": ["type": "array"], "code_challenge_methods_supported": ["type": "array"],
            "token_endpoint_auth_methods_supported": ["type": "array"], "scopes_supported": ["type": "array"],
            "authorization_response_iss_parameter_supported": ["type": "boolean"]]]),
        ("ConsentForm", ["type": "object", "required": ["client_id", "redirect_uri", "code_challenge", "csrf_token", "decision"],
                         "properties": ["decision": ["enum": ["approve", "deny"]], "scope_choice": ["enum": ["read", "write"]],
                                        "csrf_token": ["type": "string"], "client_id": ["type": "string"],
                                        "redirect_uri": ["type": "string"], "code_challenge": ["type": "string"],
                                        "code_challenge_method": ["const": "S256"], "state": ["type": "string"],
                                        "scope": ["type": "string"]]]),
        ("TokenRequest", ["type": "object", "required": ["grant_type", "client_id"],
                          "properties": ["grant_type": ["enum": ["authorization_code", "refresh_token"]],
                                         "client_id": ["type": "string"], "code": ["type": "string"],
                                         "code_verifier": ["type": "string", "minLength": 43, "maxLength": 128],
                                         "redirect_uri": ["type": "string"], "refresh_token": ["type": "string", "pattern": "^pmr_"],
                                         "scope": ["type": "string", "description": "refresh only: may narrow, never widen"]]]),
        ("TokenResponse", ["type": "object", "required": ["access_token", "token_type", "expires_in", "refresh_token", "scope"],
                           "properties": ["access_token": ["type": "string", "pattern": "^pma_"], "token_type": ["const": "Bearer"],
                                          "expires_in": ["type": "integer"], "refresh_token": ["type": "string", "pattern": "^pmr_"],
                                          "scope": ["enum": ["read", "read write"]]]]),
        ("OAuthError", ["type": "object", "required": ["error"],
                        "properties": ["error": ["enum": ["invalid_request", "invalid_client", "invalid_grant",
                                                          "unauthorized_client", "unsupported_grant_type", "invalid_scope"]],
                                       "error_description": ["type": "string"]]]),
        ("RevokeRequest", ["type": "object", "required": ["token"],
                           "properties": ["token": ["type": "string"], "token_type_hint": ["enum": ["access_token", "refresh_token"]],
                                          "client_id": ["type": "string"]]]),
        ("ConnectedApp", ["type": "object", "properties": [
            "id": ["type": "integer"], "client_id": ["type": "string"], "client_name": ["type": "string"],
            "scope": ["enum": ["read", "read write"]], "created_at": ["type": "string", "format": "date-time"],
            "last_used_at": ["type": ["string", "null"], "format": "date-time"],
            "user": ["type": "object", "properties": ["id": ["type": "integer"], "email": ["type": "string"]]],
            "devices": ["type": "array", "items": ref("MobileDevice")]]]),
    ]
}
