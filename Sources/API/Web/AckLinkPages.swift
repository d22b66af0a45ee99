import Core
import Crypto
import HTTP
import Monitoring
import Store

/// `GET /ack/{token}` and its form (SPEC §10, "Acknowledge from the alert
/// itself"): the link in an e-mail or chat message acknowledges one
/// incident without signing in. The GET only shows the incident and a
/// button, because mail scanners and link previews follow links; the
/// button POSTs with a double-submit CSRF value whose cookie is scoped to
/// this one link's path. An unknown, expired or used-up link, or one whose
/// incident has closed, answers the same 404 page. Pages carry the sign-in
/// pages' headers (no framing, no referrer, no caching).
struct AckLinkPages {
    let web: WebLayer
    let monitoring: MonitoringService

    static let cookie = "pingtxt_ack_csrf"
    /// Long enough to read the page and press the button.
    static let cookieMaxAge: Int64 = 3600

    func register(_ r: inout RouteTable) {
        r.get("/ack/{token}", web.guardedPage(show))
        r.post("/ack/{token}", web.guardedPage(acknowledge))
    }

    static let gone = HTTPError(404, "not_found",
                                "This acknowledge link does not work (any more): it is unknown, expired or used, or the incident has closed.")

    func show(_ req: HTTPRequest) throws -> HTTPResponse {
        let token = req.parameters["token"] ?? ""
        guard let target = try monitoring.ackLinkTarget(token: token) else { throw Self.gone }
        let csrf = Base64URL.encode(SecureRandom.bytes(32))
        var r = web.page(title: "Acknowledge", body: Templates.ackLink(target, token: token, csrf: csrf))
        r.headers.add("Set-Cookie", Cookies.header(Self.cookie, csrf, secure: web.secureCookies, maxAge: Self.cookieMaxAge,
                                                   path: "/ack/" + token))
        return r
    }

    func acknowledge(_ req: HTTPRequest) throws -> HTTPResponse {
        let token = req.parameters["token"] ?? ""
        guard WebLayer.tokensMatch(req.form("csrf_token") ?? "", Cookies.value(Self.cookie, in: req) ?? "") else {
            throw WebLayer.csrfFailed
        }
        guard let target = try monitoring.acknowledge(linkToken: token) else { throw Self.gone }
        var r = web.page(title: "Acknowledged", body: Templates.ackLinkDone(target))
        // The link is used up: its CSRF cookie has nothing left to protect.
        r.headers.add("Set-Cookie", Cookies.header(Self.cookie, "", secure: web.secureCookies, maxAge: 0, path: "/ack/" + token))
        return r
    }
}

extension Templates {
    /// The incident and the one button. Every interpolated value goes through `h`.
    static func ackLink(_ t: MonitoringService.AckLinkTarget, token: String, csrf: String) -> String {
        let i = t.incident
        let already = i.acknowledgedBy.map { by in
            "<p>Already acknowledged by \(h(by))\(i.acknowledgedAt.map { " at " + h(WebTime.text($0)) } ?? "").</p>"
        } ?? ""
        return """
        <h1>\(h(t.monitorName)) is down</h1>
        <dl>
        <dt>Cause</dt><dd>\(h(i.cause.isEmpty ? "—" : i.cause))</dd>
        <dt>Since</dt><dd><time datetime="\(h(WebTime.iso(i.openedAt)))">\(h(WebTime.text(i.openedAt)))</time></dd>
        <dt>Incident</dt><dd>#\(i.id)</dd>
        <dt>Link sent to</dt><dd>\(h(t.channelName))</dd>
        </dl>
        \(already)
        <form method="post" action="/ack/\(h(token))">
        <input type="hidden" name="csrf_token" value="\(h(csrf))">
        <button type="submit" data-ack-button>Acknowledge incident #\(i.id)</button>
        </form>
        <p class="muted">Acknowledging stops reminders and escalation for this incident. The link works once.</p>
        """
    }

    static func ackLinkDone(_ t: MonitoringService.AckLinkTarget) -> String {
        let i = t.incident
        return """
        <h1>Acknowledged</h1>
        <p data-acknowledged>Incident #\(i.id) (\(h(t.monitorName))) is acknowledged by \(h(i.acknowledgedBy ?? "link: " + t.channelName)).</p>
        """
    }
}
