import Core
import Crypto
import Store

/// Web sessions of the login page. The cookie value is 32 random bytes in
/// base64url with no prefix (unlike bearer tokens it is never pasted
/// anywhere, so it needs no recognisable kind); the database stores only its
/// SHA-256, like tokens.
///
/// Expiry: a session ends after 12 h without a request (idle) and 7 days
/// after login whatever happens (absolute), so a forgotten browser does not
/// stay signed in forever and a stolen cookie has a bounded life. A session
/// waiting for the TOTP code lives 10 minutes.
public final class SessionService: Sendable {
    public enum Stage: String, Sendable {
        /// The password was right; the TOTP code is awaited. Authenticates nothing.
        case passwordOK = "password_ok"
        case active
    }

    public static let idleTimeout: Int64 = 12 * 3600
    public static let absoluteLifetime: Int64 = 7 * 86400
    public static let pendingLifetime: Int64 = 600
    /// `last_seen_at` is written at most this often, so a page view is not a write.
    static let touchInterval: Int64 = 60

    private let database: Database
    private let clock: @Sendable () -> Int64

    public init(database: Database, clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.clock = clock
    }

    /// Starts a session; `token` goes into the cookie, `csrf` into forms and
    /// the `X-CSRF-Token` header. Both are shown only here.
    /// `fromApp`/`readOnly`: a session the app's web-login link starts
    /// (SPEC §15), limited like the app's sign-in it came from.
    public func create(user: UserRecord, stage: Stage, client: String?, fromApp: Bool = false, readOnly: Bool = false) throws
        -> (session: WebSessionRecord, token: String, csrf: String) {
        let token = Base64URL.encode(SecureRandom.bytes(32))
        let csrf = Base64URL.encode(SecureRandom.bytes(32))
        let now = clock()
        let lifetime = stage == .active ? Self.absoluteLifetime : Self.pendingLifetime
        let record = try database.write { c in
            // Opportunistic clean-up keeps the table small without a timer thread.
            try WebSessions.deleteExpired(c, now: now, idleBefore: now - Self.idleTimeout)
            return try WebSessions.insert(c, userID: user.id, hash: SHA256.hash(token), csrf: csrf, stage: stage.rawValue,
                                          now: now, expiresAt: now + lifetime, client: client, fromApp: fromApp,
                                          readOnly: readOnly)
        }
        Log.shared.info("web session started", ["session_id": "\(record.id)", "user_id": "\(user.id)", "stage": stage.rawValue])
        return (record, token, csrf)
    }

    /// The live session for a cookie value and its user, or nil when the
    /// value is malformed, unknown, idle too long or past its absolute expiry.
    /// Whether the stage suffices is the caller's question.
    public func find(cookieValue: String) -> (session: WebSessionRecord, user: UserRecord)? {
        // Malformed values never reach the database.
        guard cookieValue.utf8.count == 43, Base64URL.decode(cookieValue) != nil else { return nil }
        let hash = SHA256.hash(cookieValue)
        guard let found = try? database.readStatement({ try WebSessions.findByHash($0, hash: hash) }) else { return nil }
        let now = clock()
        if found.session.expiresAt <= now || now - found.session.lastSeenAt >= Self.idleTimeout {
            _ = try? database.write { try WebSessions.delete($0, id: found.session.id) }
            return nil
        }
        if now - found.session.lastSeenAt >= Self.touchInterval {
            _ = try? database.write { try WebSessions.touch($0, id: found.session.id, at: now) }
        }
        return found
    }

    /// After the TOTP code: replaces the waiting session by a new active one
    /// with a new cookie value and CSRF token. A fresh value at each
    /// privilege change means a value planted or seen before login
    /// (session fixation) is worth nothing afterwards.
    public func activate(id: Int64) throws -> (session: WebSessionRecord, token: String, csrf: String)? {
        let pending = try database.write { c -> WebSessionRecord? in
            guard let s = try WebSessions.find(c, id: id) else { return nil }
            _ = try WebSessions.delete(c, id: id)
            return s
        }
        guard let pending, let user = try database.read({ try Users.find($0, id: pending.userID) }) else { return nil }
        return try create(user: user, stage: .active, client: pending.client)
    }

    public func delete(id: Int64) throws {
        _ = try database.write { try WebSessions.delete($0, id: id) }
    }

    /// Ends every session of the user but `keeping` (password change, 2FA off).
    @discardableResult
    public func deleteAll(userID: Int64, keeping: Int64? = nil) throws -> Int {
        try database.write { try WebSessions.deleteAll($0, userID: userID, keeping: keeping) }
    }
}
