import Core
import Store

/// Changes a user's own password: the current one must be given, and every
/// other web session of the user ends (whoever knew the old password may
/// be signed in elsewhere).
public final class AccountService: Sendable {
    private let database: Database
    private let clock: @Sendable () -> Int64

    public init(database: Database, clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.clock = clock
    }

    /// `keepingSession`: the session that asked, if it was one.
    public func changePassword(userID: Int64, current: String, new: String, keepingSession: Int64?) throws {
        guard let user = try database.read({ try Users.find($0, id: userID) }) else { throw AuthError.notFound("No such user.") }
        guard PasswordHasher.verify(current, against: user.passwordHash ?? PasswordHasher.dummyHash) else {
            throw AuthError.invalid(field: "current_password", message: "current_password is not the account's password.")
        }
        if let problem = PasswordHasher.policyViolation(new) {
            throw AuthError.invalid(field: "new_password", message: problem)
        }
        let hash = try PasswordHasher.hash(new)   // ≈ 0.1 s: outside the write transaction
        let ended = try database.write { c in
            _ = try Users.setPasswordHash(c, id: userID, hash: hash, now: clock())
            return try WebSessions.deleteAll(c, userID: userID, keeping: keepingSession)
        }
        Log.shared.info("password changed", ["user_id": "\(userID)", "sessions_ended": "\(ended)"])
    }
}
