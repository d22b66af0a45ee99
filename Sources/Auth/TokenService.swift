import Core
import Store

/// API tokens (`pmk_`): created by a user for themselves, shown once,
/// stored as SHA-256 only.
public final class TokenService: Sendable {
    private let database: Database
    private let clock: @Sendable () -> Int64

    public init(database: Database, clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.clock = clock
    }

    /// Creates a token for `user`; a readonly user cannot get `write`.
    public func create(for user: UserRecord, name: String, scope: Scope, expiresAt: Int64?) throws -> (record: APITokenRecord, token: String) {
        let name = name.trimmingSpaces()
        guard !name.isEmpty, TextLimit.fits(name, characters: 100) else {
            throw AuthError.invalid(field: "name", message: "name is required and at most \(TextLimit.describe(characters: 100)).")
        }
        let role = Role(rawValue: user.role) ?? .readonly
        if scope == .write && role != .admin {
            throw AuthError.forbidden(code: "scope_not_allowed", message: "A readonly user can only have read tokens.")
        }
        let now = clock()
        if let expiresAt, expiresAt <= now {
            throw AuthError.invalid(field: "expires_at", message: "expires_at must be in the future.")
        }
        let (token, hash) = TokenFactory.generate(.apiToken)
        let record = try database.write { c in
            try APITokens.insert(c, userID: user.id, name: name, scope: scope.rawValue, hash: hash, now: now, expiresAt: expiresAt)
        }
        Log.shared.info("api token created", ["token_id": "\(record.id)", "user_id": "\(user.id)", "scope": scope.rawValue])
        return (record, token)
    }

    public func list(userID: Int64, afterID: Int64?, limit: Int) throws -> [APITokenRecord] {
        try database.read { try APITokens.list($0, userID: userID, afterID: afterID, limit: limit) }
    }

    /// Revokes a token of `user`'s own (admins may revoke anyone's). A token
    /// the caller may not see is reported as not found.
    public func revoke(id: Int64, by user: UserRecord, isAdmin: Bool) throws {
        try database.write { c in
            guard let token = try APITokens.find(c, id: id), token.userID == user.id || isAdmin else {
                throw AuthError.notFound("No token with id \(id).")
            }
            _ = try APITokens.delete(c, id: token.id)
        }
        Log.shared.info("api token revoked", ["token_id": "\(id)", "by_user_id": "\(user.id)"])
    }
}
