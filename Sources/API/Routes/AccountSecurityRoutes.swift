import Auth
import Core
import HTTP

/// The caller's own password and two-factor authentication (ACCT: a web
/// session or an API token, never an OAuth access token).
struct AccountSecurityRoutes {
    let access: Access
    let account: AccountService
    let twoFactor: TwoFactorService
    let limiter: LoginRateLimiter

    func register(_ r: inout RouteTable) {
        r.post("/api/account/password", access.rule(.accountWrite, changePassword))
        r.post("/api/account/2fa", access.rule(.accountWrite, enroll))
        r.post("/api/account/2fa/confirm", access.rule(.accountWrite, confirm))
        r.delete("/api/account/2fa", access.rule(.accountWrite, disable))
    }

    func changePassword(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let body = try req.jsonFields()
        let current = try body.requiredString("current_password")
        let new = try body.requiredString("new_password")
        // A stolen session must not become a way to guess the password.
        try throttle(p, req.clientAddress)
        var keep: Int64?
        if case .session(let id) = p.credential { keep = id }
        do {
            try account.changePassword(userID: p.user.id, current: current, new: new, keepingSession: keep)
        } catch AuthError.invalid(let field, let message) where field == "current_password" {
            limiter.recordFailure(account: p.user.email, address: req.clientAddress)
            throw AuthError.invalid(field: field, message: message)
        }
        return .json(["status": "ok"])
    }

    func enroll(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let (secret, uri) = try twoFactor.enroll(userID: p.user.id)
        return .json(["secret": .string(secret), "otpauth_uri": .string(uri)])
    }

    func confirm(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let codes = try confirm(p, code: try req.jsonFields().requiredString("code"), address: req.clientAddress)
        return .json(["recovery_codes": .array(codes.map { .string($0) })])
    }

    /// Turns 2FA on with a first code (throttled like a login: a stolen
    /// session must not become a way to guess codes). The 2FA page uses it too.
    func confirm(_ p: Principal, code: String, address: String) throws -> [String] {
        try throttle(p, address)
        do {
            return try twoFactor.confirm(userID: p.user.id, code: code)
        } catch let e as AuthError {
            if case .invalid = e { limiter.recordFailure(account: p.user.email, address: address, factor: .secondFactor) }
            throw e
        }
    }

    func disable(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try disable(p, code: try req.jsonFields().requiredString("code"), address: req.clientAddress)
        return .noContent()
    }

    /// Turns 2FA off after a valid code (TOTP or recovery code), throttled.
    func disable(_ p: Principal, code: String, address: String) throws {
        try throttle(p, address)
        do {
            try twoFactor.disable(userID: p.user.id, code: code)
        } catch let e as AuthError {
            if case .invalid = e { limiter.recordFailure(account: p.user.email, address: address, factor: .secondFactor) }
            throw e
        }
    }

    private func throttle(_ p: Principal, _ address: String) throws {
        if let wait = limiter.retryAfter(account: p.user.email, address: address) {
            throw HTTPError(429, "rate_limited", "Too many wrong passwords or codes; try again later.",
                            headers: ["Retry-After": String(wait)])
        }
    }
}
