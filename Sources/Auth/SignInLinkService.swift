import Core
import Crypto
import Store

/// The one-time links of SPEC §15 (docs/security.md "One-time links"): the
/// app's web-login link (60 s), password recovery (30 min) and invitations
/// (7 days). Each token is 256 random bits (`LinkToken`), only its SHA-256
/// is stored, and using one is a conditional UPDATE in the store, so a link
/// works once even with several hubs on one database.
public final class SignInLinkService: Sendable {
    public static let webLoginLifetime: Int64 = 60
    public static let resetLifetime: Int64 = 30 * 60
    public static let invitationLifetime: Int64 = 7 * 86_400

    private let database: Database
    private let clock: @Sendable () -> Int64

    public init(database: Database, clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.clock = clock
    }

    public static func lifetime(_ purpose: SignInLinkPurpose) -> Int64 {
        switch purpose {
        case .webLogin: webLoginLifetime
        case .passwordReset: resetLifetime
        case .invitation: invitationLifetime
        }
    }

    /// A new link's token (shown once: in the answer or the e-mail).
    /// `canWrite` and `next` matter for web logins only.
    public func create(_ purpose: SignInLinkPurpose, userID: Int64, canWrite: Bool = false, next: String? = nil) throws -> String {
        let (token, hash) = LinkToken.generate()
        let now = clock()
        try database.write { c in
            // Opportunistic clean-up, as for sessions: no timer thread.
            try SignInLinks.deleteExpired(c, before: now - 86_400)
            // A new recovery link makes the older ones worthless.
            if purpose == .passwordReset { try SignInLinks.revoke(c, userID: userID, purpose: purpose, now: now) }
            try SignInLinks.insert(c, tokenHash: hash, purpose: purpose, userID: userID, canWrite: canWrite, next: next, now: now,
                                   expiresAt: now + Self.lifetime(purpose))
        }
        return token
    }

    /// Uses the link up: its user and what it carried, or nil when the
    /// token is malformed, unknown, used or late.
    public func consume(_ purpose: SignInLinkPurpose, token: String) throws -> (user: UserRecord, link: ConsumedSignInLink)? {
        guard let hash = LinkToken.hash(token) else { return nil }
        let now = clock()
        return try database.write { c -> (UserRecord, ConsumedSignInLink)? in
            guard let link = try SignInLinks.consume(c, tokenHash: hash, purpose: purpose, now: now),
                  let user = try Users.find(c, id: link.userID) else { return nil }
            return (user, link)
        }
    }

    /// Whether the link would work now (a form page's GET; nothing used).
    public func isUsable(_ purpose: SignInLinkPurpose, token: String) throws -> Bool {
        guard let hash = LinkToken.hash(token) else { return false }
        let now = clock()
        return try database.read { c in try SignInLinks.isUsable(c, tokenHash: hash, purpose: purpose, now: now) }
    }

    /// Sets the password of the link's user and uses the link up, in one
    /// transaction that also ends every web session of the user (whoever
    /// knew the old password may be signed in) and every other recovery or
    /// invitation link. The password rules are checked first (`AuthError`
    /// with `field` `password`); nil when the link does not work (any more).
    public func setPassword(token: String, password: String) throws -> UserRecord? {
        if let problem = PasswordHasher.policyViolation(password) {
            throw AuthError.invalid(field: "password", message: problem)
        }
        guard let hash = LinkToken.hash(token) else { return nil }
        let passwordHash = try PasswordHasher.hash(password)   // ≈ 0.1 s: outside the write transaction
        let now = clock()
        return try database.write { c -> UserRecord? in
            var link = try SignInLinks.consume(c, tokenHash: hash, purpose: .passwordReset, now: now)
            if link == nil { link = try SignInLinks.consume(c, tokenHash: hash, purpose: .invitation, now: now) }
            guard let link, let user = try Users.find(c, id: link.userID) else { return nil }
            _ = try Users.setPasswordHash(c, id: user.id, hash: passwordHash, now: now)
            try WebSessions.deleteAll(c, userID: user.id)
            try SignInLinks.revoke(c, userID: user.id, purpose: .passwordReset, now: now)
            try SignInLinks.revoke(c, userID: user.id, purpose: .invitation, now: now)
            return user
        }
    }

    /// Whether a recovery or invitation link would set a password now.
    public func setsPassword(token: String) throws -> Bool {
        try isUsable(.passwordReset, token: token) || isUsable(.invitation, token: token)
    }

    /// Users with an invitation not used yet (`GET /api/users` `invited`).
    public func invitedUserIDs() throws -> Set<Int64> {
        let now = clock()
        return try database.read { c in try SignInLinks.invitedUserIDs(c, now: now) }
    }
}
