import Auth
import HTTP

/// The HTML the OAuth server shows a browser: the consent page and the error
/// page. Self-contained (inline style, nothing loaded from elsewhere), not
/// frameable (clickjacking on an Approve button), no referrer (the authorize
/// URL carries state and the code challenge), never cached.
enum OAuthPages {
    static func secure(_ r: inout HTTPResponse) {
        r.headers.set("X-Frame-Options", "DENY")
        r.headers.set("Content-Security-Policy",
                      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'")
        r.headers.set("Referrer-Policy", "no-referrer")
        r.headers.set("Cache-Control", "no-store")
        r.headers.set("X-Content-Type-Options", "nosniff")
    }

    static func html(_ status: Int, title: String, body: String) -> HTTPResponse {
        let page = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(h(title))</title>
            <style>
            body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
            h1{font-size:1.3rem}fieldset{border:1px solid #ccc;border-radius:6px;margin:1rem 0}
            button{font:inherit;padding:.5rem 1.2rem;margin-right:.5rem;border-radius:6px;border:1px solid #888}
            button.primary{background:#1d4ed8;color:#fff;border-color:#1d4ed8}.muted{color:#666}
            </style></head><body>
            \(body)
            </body></html>
            """
        var r = HTTPResponse.text(status, page, contentType: "text/html; charset=utf-8")
        secure(&r)
        return r
    }

    static func error(_ message: String, status: Int = 400) -> HTTPResponse {
        html(status, title: "Sign-in request refused",
             body: "<h1>This sign-in request cannot be completed</h1>\n<p>\(h(message))</p>\n"
                + "<p class=\"muted\">Return to the app and try again.</p>")
    }

    /// The consent form. It repeats the authorization request in hidden
    /// fields; the POST checks them all again, so nothing is trusted from it.
    static func consent(_ request: AuthorizeRequest, user: BrowserUser, hubName: String) -> HTTPResponse {
        let isAdmin = user.user.role == Role.admin.rawValue
        var hidden: [(String, String)] = [
            ("response_type", "code"), ("client_id", request.client.id), ("redirect_uri", request.redirectURI),
            ("code_challenge", request.codeChallenge), ("code_challenge_method", "S256"),
            ("scope", request.scope.oauthString), ("csrf_token", user.csrfToken)]
        if let state = request.state { hidden.append(("state", state)) }
        var choice: String
        if isAdmin && request.scope == .write {
            choice = """
                <fieldset><legend>Access</legend>
                <label><input type="radio" name="scope_choice" value="read" checked> Read only</label><br>
                <label><input type="radio" name="scope_choice" value="write"> Read + write (change monitors, acknowledge incidents)</label>
                </fieldset>
                """
        } else {
            // A readonly user (or a read-only request) gets read only.
            choice = "<p>Access: <strong>read only</strong></p>"
            hidden.append(("scope_choice", "read"))
        }
        let fields = hidden.map { "<input type=\"hidden\" name=\"\(h($0.0))\" value=\"\(h($0.1))\">" }
            .joined(separator: "\n")
        return html(200, title: "Allow \(request.client.name)?", body: """
            <h1>Allow <strong>\(h(request.client.name))</strong> to access \(h(hubName))?</h1>
            <p class="muted">Signed in as \(h(user.user.email)).</p>
            <form method="post" action="/oauth/authorize">
            \(fields)
            \(choice)
            <button class="primary" type="submit" name="decision" value="approve">Approve</button>
            <button type="submit" name="decision" value="deny">Deny</button>
            </form>
            """)
    }
}

/// Redirects back to the client (RFC 6749 §4.1.2): parameters are
/// percent-encoded and appended with `&` when the URI already has a query;
/// every one carries `iss` (RFC 9207) so the app can tell which hub answered.
enum OAuthRedirect {
    static func url(_ redirectURI: String, _ params: [(String, String?)], issuer: String) -> String {
        let pairs = (params + [("iss", issuer)]).compactMap { name, value in
            value.map { FormCoding.percentEncode(name) + "=" + FormCoding.percentEncode($0) }
        }
        return redirectURI + (redirectURI.contains("?") ? "&" : "?") + pairs.joined(separator: "&")
    }

    static func response(_ redirectURI: String, _ params: [(String, String?)], issuer: String) -> HTTPResponse {
        var r = HTTPResponse(status: 303)
        r.headers.set("Location", url(redirectURI, params, issuer: issuer))
        OAuthPages.secure(&r)
        return r
    }
}
