import Auth
import Core
import HTTP

/// `/settings/2fa`: "Set up" → the QR code of the `otpauth://` URI and the
/// secret; "Confirm" with a first code → the recovery codes, shown once;
/// "Turn off" with a code. The same service calls and throttling as
/// `/api/account/2fa` (an own-account write: every signed-in user may protect their account).
struct TwoFactorPage {
    let web: WebLayer
    let twoFactor: TwoFactorService
    let security: AccountSecurityRoutes

    static let flashes = ["off": "Two-factor authentication is off."]

    enum Stage {
        case overview
        case enrolled(secret: String, uri: String)
        case confirming
        case recoveryCodes([String])
    }

    func register(_ r: inout RouteTable) {
        r.get("/settings/2fa", web.signedInPage(show))
        r.post("/settings/2fa", web.signedInForm(page: "/settings/2fa", rule: .accountWrite, enroll))
        r.post("/settings/2fa/confirm", web.signedInForm(page: "/settings/2fa", rule: .accountWrite, confirm))
        r.post("/settings/2fa/disable", web.signedInForm(page: "/settings/2fa", rule: .accountWrite, disable))
    }

    func show(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        try render(ctx, .overview, flash: WebFormat.flash(req, Self.flashes))
    }

    func enroll(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        do {
            let (secret, uri) = try twoFactor.enroll(userID: ctx.principal.user.id)
            return try render(ctx, .enrolled(secret: secret, uri: uri))
        } catch {
            guard let e = WebLayer.formError(error) else { throw error }
            return try render(ctx, .overview, error: e.message, status: e.status)
        }
    }

    func confirm(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        do {
            let codes = try security.confirm(ctx.principal, code: ctx.form.trimmed("code"), address: req.clientAddress)
            return try render(ctx, .recoveryCodes(codes), flash: "Two-factor authentication is on.")
        } catch {
            guard let e = WebLayer.formError(error) else { throw error }
            return try render(ctx, .confirming, error: e.message, status: e.status)
        }
    }

    func disable(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        do {
            try security.disable(ctx.principal, code: ctx.form.trimmed("code"), address: req.clientAddress)
        } catch {
            guard let e = WebLayer.formError(error) else { throw error }
            return try render(ctx, .overview, error: e.message, status: e.status)
        }
        return web.redirect("/settings/2fa?flash=off")
    }

    func render(_ ctx: SignedIn, _ stage: Stage, flash: String? = nil, error: String? = nil,
                status: Int = 200) throws -> HTTPResponse {
        // After confirming, the session's copy of the user predates the change.
        let enabled: Bool
        if case .recoveryCodes = stage { enabled = true } else { enabled = ctx.principal.user.totpEnabled }
        var values: [String: TemplateValue] = [
            "csrf": .string(ctx.csrf), "can_write": .bool(ctx.canWrite), "own_account": true, "enabled": .bool(enabled),
            "overview": false, "enrolled": false, "confirming": false, "codes": false, "has_codes": false, "remaining": "0",
        ]
        switch stage {
        case .overview:
            values["overview"] = true
            if enabled { values["remaining"] = .int(try twoFactor.remainingRecoveryCodes(userID: ctx.principal.user.id)) }
        case .enrolled(let secret, let uri):
            values["enrolled"] = ["secret": .string(secret), "uri": .string(uri), "qr": .optional(qrCodeSVG(uri))]
            values["confirming"] = true
        case .confirming:
            values["confirming"] = true
        case .recoveryCodes(let codes):
            values["codes"] = .list(codes.map { .string($0) })
            values["has_codes"] = true
        }
        return web.adminPage(ctx, title: "Two-factor authentication", current: "/settings", template: "twofactor.html",
                             .object(values), flash: flash, error: error, status: status)
    }
}
