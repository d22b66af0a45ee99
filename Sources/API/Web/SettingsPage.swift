import Auth
import Core
import HTTP
import Notify
import Store

/// `/settings`: "Mobile app" (admins: push relay settings and registration),
/// "API tokens", "Connected apps" with their phones, and the link to
/// two-factor authentication (docs/web.md). Each write uses the API's
/// parsing and services with the same access rule as its API endpoint.
struct SettingsPage {
    let web: WebLayer
    let tokens: TokenService
    let oauth: OAuthService
    let devices: MobileDeviceService
    /// Nil when the hub runs without alerting (then there is no push section).
    let notify: NotifyService

    static let flashes = [
        "push-saved": "Mobile app settings saved.",
        "quiet-hours-saved": "Quiet hours saved.",
        "token-revoked": "Token revoked.",
        "app-disconnected": "App disconnected: its tokens no longer work and its phones get no more notifications.",
    ]

    /// A signed-in user has at most this many tokens and sign-ins listed.
    static let listLimit = 200

    func register(_ r: inout RouteTable) {
        r.get("/settings", web.signedInPage(show))
        // Saving may register with the relay, a network call: the blocking pool.
        r.add("POST", "/settings/mobile-push", .blocking,
              web.signedInForm(page: "/settings", rule: .adminAccountWrite, savePush))
        // Own settings, like the API's PUT: a readonly user may save theirs.
        r.post("/settings/quiet-hours", web.signedInForm(page: "/settings", rule: .ownWrite, saveQuietHours))
        r.post("/settings/tokens", web.signedInForm(page: "/settings", rule: .accountWrite, createToken))
        r.post("/settings/tokens/{id}/delete", web.signedInForm(page: "/settings", rule: .accountWrite, revokeToken))
        r.post("/settings/connected-apps/{id}/delete", web.signedInForm(page: "/settings", rule: .accountWrite, disconnect))
    }

    func show(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        try render(ctx, flash: WebFormat.flash(req, Self.flashes))
    }

    func savePush(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        let body: JSON = ["mobile_push": ["enabled": .bool(ctx.form.checked("enabled")),
                                          "relay_url": .string(ctx.form.trimmed("relay_url"))]]
        do {
            _ = try SettingsRoutes.apply(try JSONFields(body), push: notify.push)
        } catch {
            guard let e = WebLayer.formError(error) else { throw error }
            return try render(ctx, error: e.message, pushForm: ctx.form, status: e.status)
        }
        return web.redirect("/settings?flash=push-saved#mobile-app")
    }

    /// The form as the API's body, validated by the same `QuietHoursValidator`.
    func saveQuietHours(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        let f = ctx.form
        let floor = f.trimmed("min_priority")
        var body = JSONObject([("enabled", .bool(f.checked("enabled"))), ("start", .string(f.trimmed("start"))),
                               ("end", .string(f.trimmed("end"))), ("timezone", .string(f.trimmed("timezone")))])
        if !floor.isEmpty { body["min_priority"] = Int64(floor).map { .int($0) } ?? .string(floor) }
        do {
            let q = try QuietHoursValidator.parse(try JSONFields(.object(body)))
            _ = try notify.quietHours.set(userID: ctx.principal.user.id, q)
        } catch {
            guard let e = WebLayer.formError(error) else { throw error }
            return try render(ctx, error: e.message, quietForm: f, status: e.status)
        }
        return web.redirect("/settings?flash=quiet-hours-saved#quiet-hours")
    }

    func createToken(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        let body: JSON = ["name": .string(ctx.form.trimmed("name")), "scope": .string(ctx.form.trimmed("scope"))]
        do {
            let (record, secret) = try AccountRoutes.createToken(try JSONFields(body), for: ctx.principal.user, tokens: tokens)
            // The answer page itself shows the secret (it exists nowhere else);
            // admin pages are sent with `Cache-Control: no-store`.
            return try render(ctx, flash: "Token created.", newToken: (record.name, secret))
        } catch {
            guard let e = WebLayer.formError(error) else { throw error }
            return try render(ctx, error: e.message, tokenForm: ctx.form, status: e.status)
        }
    }

    func revokeToken(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        try tokens.revoke(id: try req.intParameter("id"), by: ctx.principal.user, isAdmin: ctx.isAdmin)
        return web.redirect("/settings?flash=token-revoked#api-tokens")
    }

    func disconnect(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        try oauth.revokeSignIn(id: try req.intParameter("id"), by: ctx.principal.user, isAdmin: ctx.isAdmin)
        return web.redirect("/settings?flash=app-disconnected#connected-apps")
    }

    func render(_ ctx: SignedIn, flash: String? = nil, error: String? = nil, newToken: (name: String, token: String)? = nil,
                pushForm: WebForm? = nil, tokenForm: WebForm? = nil, quietForm: WebForm? = nil,
                status: Int = 200) throws -> HTTPResponse {
        let user = ctx.principal.user
        let tokenRows: [TemplateValue] = try tokens.list(userID: user.id, afterID: nil, limit: Self.listLimit).map {
            ["id": .int($0.id), "name": .string($0.name), "scope": .string($0.scope), "created": .string(WebFormat.time($0.createdAt)),
             "last_used": .string(WebFormat.time($0.lastUsedAt)), "expires": .string(WebFormat.time($0.expiresAt))]
        }
        let scope = tokenForm?.trimmed("scope") ?? "read"
        var values: [String: TemplateValue] = [
            "csrf": .string(ctx.csrf), "can_write": .bool(ctx.canWrite), "own_account": true, "is_admin": .bool(ctx.isAdmin),
            "tokens": .list(tokenRows), "has_tokens": .bool(!tokenRows.isEmpty),
            "token_form": ["name": .string(tokenForm?["name"] ?? ""), "read": .bool(scope != "write"), "write": .bool(scope == "write")],
            "new_token": newToken.map { ["name": .string($0.name), "token": .string($0.token)] } ?? .bool(false),
            "apps": .list(try apps(user.id)), "totp_enabled": .bool(user.totpEnabled),
            "quiet": Self.quiet(try notify.quietHours.get(userID: user.id), form: quietForm),
        ]
        // The push settings are an admin account endpoint in the API: readonly users do not see them.
        if ctx.isAdmin { values["push"] = Self.push(notify.push.settings, form: pushForm) }
        return web.adminPage(ctx, title: "Settings", current: "/settings", template: "settings.html", .object(values),
                             flash: flash, error: error, status: status)
    }

    /// The quiet hours as stored, or as typed when the form came back refused.
    static func quiet(_ q: QuietHours, form: WebForm?) -> TemplateValue {
        let stored = q.json
        func value(_ key: String) -> TemplateValue {
            if let form { return .string(form[key] ?? "") }
            switch stored[key] {
            case .string(let s)?: return .string(s)
            case .int(let n)?: return .string(String(n))
            default: return .string("")
            }
        }
        return ["enabled": .bool(form.map { $0.checked("enabled") } ?? q.enabled), "start": value("start"), "end": value("end"),
                "timezone": value("timezone"), "min_priority": value("min_priority")]
    }

    static func push(_ s: PushSettings, form: WebForm?) -> TemplateValue {
        [
            "on": .bool(s.enabled), "enabled": .bool(form.map { $0.checked("enabled") } ?? s.enabled),
            "relay_url": .string(form?["relay_url"] ?? s.relayURL),
            "registered": .bool(s.registered), "last_error": WebFormat.text(s.lastError),
            "hub_id": .string(s.hubID), "relay_epoch": .int(s.relayEpoch),
        ]
    }

    /// The user's own sign-ins, each with its phones (as `/api/connected-apps`).
    func apps(_ userID: Int64) throws -> [TemplateValue] {
        let rows = try oauth.signIns(userID: userID, afterID: nil, limit: Self.listLimit)
        let phones = try devices.devices(signInIDs: rows.map(\.signIn.id))
        return zip(rows, phones).map { row, phones in
            let s = row.signIn
            let scope = Scope.effective(Scope(rawValue: s.scope) ?? .read, role: Role(rawValue: row.user.role) ?? .readonly)
            let phoneRows: [TemplateValue] = phones.map {
                ["name": .string($0.name), "platform": .string($0.platform == "ios" ? "iOS" : "Android"),
                 "app_version": .string($0.appVersion), "enrolled": .string(WebFormat.time($0.createdAt))]
            }
            return ["id": .int(s.id), "client_name": .string(oauth.clients.find(s.clientID)?.name ?? s.clientID),
                    "client_id": .string(s.clientID), "scope": .string(scope.oauthString),
                    "created": .string(WebFormat.time(s.createdAt)), "last_used": .string(WebFormat.time(s.lastUsedAt)),
                    "phones": .list(phoneRows), "has_phones": .bool(!phoneRows.isEmpty)]
        }
    }
}
