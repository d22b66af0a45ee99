import HTTP

/// The sign-in pages' bodies. Every interpolated value goes through `h`.
enum Templates {
    static func login(csrf: String, next: String, email: String = "", error: String? = nil,
                      providers: [(id: String, name: String)] = [], forgot: Bool = false) -> String {
        // Password recovery exists only with `[smtp]` configured (SPEC §15).
        let forgotLink = forgot ? "<p><a href=\"/login/forgot\">Forgot your password?</a></p>" : ""
        return """
        <h1>Sign in</h1>
        \(errorBox(error))
        <form method="post" action="/login">
        <input type="hidden" name="csrf_token" value="\(h(csrf))">
        <input type="hidden" name="next" value="\(h(next))">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required autofocus value="\(h(email))">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit">Sign in</button>
        </form>
        \(forgotLink)
        \(ssoButtons(providers, next: next))
        """
    }

    /// GET forms, so the buttons work without scripts and carry `next`.
    static func ssoButtons(_ providers: [(id: String, name: String)], next: String) -> String {
        providers.map { p in
            """
            <form method="get" action="/login/sso/\(h(p.id))">
            <input type="hidden" name="next" value="\(h(next))">
            <button type="submit" class="secondary">Sign in with \(h(p.name))</button>
            </form>
            """
        }.joined(separator: "\n")
    }

    /// `phoneApproval`: also offer approving on the phone (SPEC §11), a
    /// separate form so the code field stays the default action.
    static func twoFactor(csrf: String, next: String, error: String? = nil, phoneApproval: Bool = false) -> String {
        """
        <h1>Two-factor authentication</h1>
        \(errorBox(error))
        <form method="post" action="/login/2fa">
        <input type="hidden" name="csrf_token" value="\(h(csrf))">
        <input type="hidden" name="next" value="\(h(next))">
        <label for="code">Code from your authenticator app</label>
        <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required autofocus>
        <p class="hint">Lost your phone? Enter one of your recovery codes instead.</p>
        <button type="submit">Verify</button>
        </form>
        \(phoneApproval ? approveForm(csrf: csrf, next: next, label: "Approve on my phone instead") : "")
        """
    }

    static func logoutForm(csrf: String) -> String {
        """
        <form method="post" action="/logout">
        <input type="hidden" name="csrf_token" value="\(h(csrf))">
        <button type="submit" class="secondary">Log out</button>
        </form>
        """
    }

    static func errorPage(_ e: HTTPError) -> String {
        """
        <h1>\(h(HTTPStatus.reason(e.status)))</h1>
        <p class="error">\(h(e.message))</p>
        <p><a href="/login">Back to sign-in</a></p>
        """
    }

    static func errorBox(_ message: String?) -> String {
        guard let message else { return "" }
        return "<p class=\"error\" role=\"alert\">\(h(message))</p>"
    }
}
