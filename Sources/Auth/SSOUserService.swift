import Core
import Store

/// What the hub does with an email a provider vouched for: link it to the
/// existing user, create one (when the provider allows it), or refuse.
public final class SSOUserService: Sendable {
    private let database: Database
    private let users: UserService
    private let clock: @Sendable () -> Int64

    public init(database: Database, users: UserService, clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.users = users
        self.clock = clock
    }

    public enum Outcome: Sendable, Equatable {
        case linked(UserRecord)
        case created(UserRecord)
        /// No user with that email and `auto_create` is off.
        case unknownUser
    }

    /// Links or creates. `role` is the role for a new user (the provider's
    /// `default_role`, or admin when the email is in `admin_emails`); an
    /// existing user's role is never changed by signing in.
    public func signIn(provider: String, email: String, name: String, autoCreate: Bool, role: Role) throws -> Outcome {
        if let user = try users.find(email: email) {
            try database.write { try SSOAccounts.link($0, userID: user.id, provider: provider, now: clock()) }
            return .linked(user)
        }
        guard autoCreate else { return .unknownUser }
        let user: UserRecord
        do {
            user = try users.create(email: email, name: name, role: role, password: nil)
        } catch AuthError.conflict {
            // Two first sign-ins raced; the other created the user: link to it.
            guard let existing = try users.find(email: email) else { throw AuthError.notFound("No user with the email \(email).") }
            try database.write { try SSOAccounts.link($0, userID: existing.id, provider: provider, now: clock()) }
            return .linked(existing)
        }
        try database.write { try SSOAccounts.link($0, userID: user.id, provider: provider, now: clock()) }
        return .created(user)
    }

    public func state(userID: Int64) throws -> SSOAccountState? {
        try database.read { try SSOAccounts.state($0, userID: userID) }
    }

    /// `PATCH /api/users/{id}` `password_login`: when off, the login form
    /// refuses the user's password (signing in through the provider still works).
    public func setPasswordLogin(userID: Int64, enabled: Bool) throws {
        try database.write { c in
            guard try SSOAccounts.setPasswordLogin(c, userID: userID, enabled: enabled, now: clock()) else {
                throw AuthError.notFound("No user with id \(userID).")
            }
        }
    }
}
