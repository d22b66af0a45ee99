import HTTP

/// The password recovery and invitation pages (SPEC §15).
extension Templates {
    static func forgot(csrf: String, error: String? = nil) -> String {
        """
        <h1>Forgot your password?</h1>
        \(errorBox(error))
        <p>Enter your account's email address. If it has a password, a link to set a new one is sent to it; the link works
        once, for 30 minutes.</p>
        <form method="post" action="/login/forgot">
        <input type="hidden" name="csrf_token" value="\(h(csrf))">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required autofocus>
        <button type="submit">Send the link</button>
        </form>
        <p><a href="/login">Back to sign-in</a></p>
        """
    }

    /// The same answer whether or not the address has an account.
    static let forgotSent = """
        <h1>Check your mail</h1>
        <p data-recovery-sent>If an account with a password has that address, a link to set a new password is on its way.
        It works once, for 30 minutes.</p>
        <p><a href="/login">Back to sign-in</a></p>
        """

    static func resetForm(csrf: String, action: String, error: String? = nil) -> String {
        """
        <h1>Set a password</h1>
        \(errorBox(error))
        <form method="post" action="\(h(action))">
        <input type="hidden" name="csrf_token" value="\(h(csrf))">
        <label for="password">New password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required autofocus>
        <label for="confirm">Again</label>
        <input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
        <button type="submit">Set the password</button>
        </form>
        """
    }

    static let resetDone = """
        <h1>Password set</h1>
        <p data-password-set>Your password is set, and every other browser signed in to your account was signed out.</p>
        <p><a href="/login">Sign in</a></p>
        """

    static let linkInvalid = """
        <h1>This link does not work</h1>
        <p>It was used already, it is too old, or it was never valid. Ask for a new one.</p>
        <p><a href="/login/forgot">Forgot your password?</a> · <a href="/login">Sign in</a></p>
        """
}
