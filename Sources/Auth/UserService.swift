import Core
import Store

/// Users: validation, password hashing and the rules that keep a hub
/// administrable (there is always at least one admin).
public final class UserService: Sendable {
    private let database: Database
    private let clock: @Sendable () -> Int64

    public init(database: Database, clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.clock = clock
    }

    public func create(email: String, name: String?, role: Role, password: String?) throws -> UserRecord {
        let email = try Self.validEmail(email)
        let name = try Self.validName(name ?? "")
        let hash = try password.map(Self.checkedHash)
        do {
            return try database.write { c in
                try Users.insert(c, email: email, name: name, role: role.rawValue, passwordHash: hash, now: clock())
            }
        } catch let e as StoreError where e.isUniqueViolation {
            throw AuthError.conflict(code: "email_taken", message: "A user with the email \(email) already exists.")
        }
    }

    public func list(afterID: Int64?, limit: Int) throws -> [UserRecord] {
        try database.read { try Users.list($0, afterID: afterID, limit: limit) }
    }

    public func find(id: Int64) throws -> UserRecord? {
        try database.read { try Users.find($0, id: id) }
    }

    public func find(email: String) throws -> UserRecord? {
        try database.read { try Users.find($0, email: email) }
    }

    public func count() throws -> Int {
        try database.read { try Users.count($0) }
    }

    /// Partial update; nil means unchanged. Demoting the last admin is refused.
    /// A new password ends the user's web sessions.
    public func update(id: Int64, email: String?, name: String?, role: Role?, password: String?) throws -> UserRecord {
        let email = try email.map(Self.validEmail)
        let name = try name.map(Self.validName)
        let hash = try password.map(Self.checkedHash)
        do {
            return try database.write { c in
                guard let user = try Users.find(c, id: id) else { throw AuthError.notFound("No user with id \(id).") }
                if role == .readonly, user.role == Role.admin.rawValue, try Users.countAdmins(c) <= 1 {
                    throw AuthError.conflict(code: "last_admin", message: "This is the only admin; make another user admin first.")
                }
                let now = clock()
                if let hash {
                    // Someone else knew the old password, perhaps: sign them out.
                    _ = try Users.setPasswordHash(c, id: id, hash: hash, now: now)
                    try WebSessions.deleteAll(c, userID: id)
                }
                guard let updated = try Users.update(c, id: id, name: name, role: role?.rawValue, email: email, now: now) else {
                    throw AuthError.notFound("No user with id \(id).")
                }
                return updated
            }
        } catch let e as StoreError where e.isUniqueViolation {
            throw AuthError.conflict(code: "email_taken", message: "A user with that email already exists.")
        }
    }

    /// Deletes a user with their tokens. Deleting the last admin is refused.
    public func delete(id: Int64) throws {
        try database.write { c in
            guard let user = try Users.find(c, id: id) else { throw AuthError.notFound("No user with id \(id).") }
            if user.role == Role.admin.rawValue, try Users.countAdmins(c) <= 1 {
                throw AuthError.conflict(code: "last_admin", message: "This is the only admin; it cannot be deleted.")
            }
            _ = try Users.delete(c, id: id)
        }
    }

    /// Sets a password (CLI `user passwd`) and ends the user's web sessions.
    public func setPassword(email: String, password: String) throws {
        let hash = try Self.checkedHash(password)
        try database.write { c in
            guard let user = try Users.find(c, email: email) else { throw AuthError.notFound("No user with the email \(email).") }
            _ = try Users.setPasswordHash(c, id: user.id, hash: hash, now: clock())
            try WebSessions.deleteAll(c, userID: user.id)
        }
    }

    /// The user if the password is right. An unknown email costs the same
    /// hash as a known one, so timing does not reveal which emails exist.
    public func verifyPassword(email: String, password: String) throws -> UserRecord? {
        let user = try find(email: email)
        let ok = PasswordHasher.verify(password, against: user?.passwordHash ?? PasswordHasher.dummyHash)
        return ok ? user : nil
    }

    /// First start: creates this admin when the hub has no users yet.
    /// Returns whether it did.
    public func bootstrapAdmin(email: String, password: String) throws -> Bool {
        guard try count() == 0 else { return false }
        _ = try create(email: email, name: nil, role: .admin, password: password)
        return true
    }

    /// Applies the password policy, then hashes. Hashing takes ~0.1 s, so
    /// callers do it before their write transaction, never inside it.
    static func checkedHash(_ password: String) throws -> String {
        if let problem = PasswordHasher.policyViolation(password) { throw AuthError.invalid(field: "password", message: problem) }
        return try PasswordHasher.hash(password)
    }

    static func validEmail(_ raw: String) throws(AuthError) -> String {
        let email = raw.trimmingSpaces()
        guard EmailAddress.isPlausible(email) else {
            throw .invalid(field: "email", message: "email must be an address such as ada@example.com.")
        }
        return email
    }

    static func validName(_ raw: String) throws(AuthError) -> String {
        let name = raw.trimmingSpaces()
        guard TextLimit.fits(name, characters: 200), !name.unicodeScalars.contains(where: JSONText.isControl) else {
            throw .invalid(field: "name", message: "name must be at most \(TextLimit.describe(characters: 200)), without control characters.")
        }
        return name
    }
}
