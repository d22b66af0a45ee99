import Core
import HTTP

/// The pages of approving a sign-in on the phone (SPEC §11). Every
/// interpolated value goes through `h`.
extension Templates {
    /// The button that starts an approval (on the code page, and to try again).
    static func approveForm(csrf: String, next: String, label: String) -> String {
        """
        <form method="post" action="/login/approve">
        <input type="hidden" name="csrf_token" value="\(h(csrf))">
        <input type="hidden" name="next" value="\(h(next))">
        <button type="submit" class="secondary">\(h(label))</button>
        </form>
        """
    }

    /// The waiting page: the number to type on the phone, in an element
    /// with `data-approval-code` so tools and tests find it.
    static func approvalWaiting(code: String, client: String, expiresAt: Int64, next: String) -> String {
        """
        <h1>Approve on your phone</h1>
        <p>We sent a notification to your phone. Open it (or the pingtxt app, which lists sign-ins waiting for you) \
        and enter this number:</p>
        <p class="approval-code" data-approval-code="\(h(code))">\(h(code))</p>
        <p class="hint">Signing in from \(h(client)). This page moves on by itself once you approved; \
        the request ends at <time datetime="\(h(Time.rfc3339(expiresAt)))">\(h(clock(expiresAt)))</time>.</p>
        <p><a href="\(h(codePage(next)))">Type a code instead</a></p>
        """
    }

    /// Refused on the phone, or ended without an answer.
    static func approvalEnded(refused: Bool, csrf: String, next: String) -> String {
        let (title, text) = refused
            ? ("Sign-in refused", "The sign-in was refused on your phone: a different number was entered, or it was declined.")
            : ("Approval expired", "The phone did not approve this sign-in in time.")
        return """
        <h1>\(h(title))</h1>
        <p class="error" role="alert">\(h(text))</p>
        \(approveForm(csrf: csrf, next: next, label: "Send a new approval to my phone"))
        <p><a href="\(h(codePage(next)))">Type a code instead</a></p>
        """
    }

    static func codePage(_ next: String) -> String { "/login/2fa?next=" + FormCoding.percentEncode(next) }

    /// `10:02:30 UTC`
    private static func clock(_ seconds: Int64) -> String {
        String(Time.rfc3339(seconds).dropFirst(11).prefix(8)) + " UTC"
    }
}
