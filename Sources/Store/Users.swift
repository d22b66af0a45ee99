/// A row of `users`.
public struct UserRecord: Sendable, Equatable {
    public var id: Int64
    public var email: String
    public var name: String
    /// "admin" or "readonly" (a CHECK constraint enforces it).
    public var role: String
    public var passwordHash: String?
    public var totpSecret: String?
    public var totpEnabled: Bool
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(id: Int64, email: String, name: String, role: String, passwordHash: String?,
                totpSecret: String?, totpEnabled: Bool, createdAt: Int64, updatedAt: Int64) {
        self.id = id
        self.email = email
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.totpSecret = totpSecret
        self.totpEnabled = totpEnabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Decodes columns named `<prefix>id`, `<prefix>email`… (a prefix lets a
    /// JOIN carry user columns next to another table's).
    init(row r: Row, prefix: String = "") throws(StoreError) {
        // The joined reads of every authenticated request use "u_": its
        // names are spelt once, not concatenated nine times a request.
        let n = prefix.isEmpty ? Self.names : prefix == "u_" ? Self.joinedNames : Self.names.map { prefix + $0 }
        self.init(id: try r.int(n[0]), email: try r.text(n[1]), name: try r.text(n[2]), role: try r.text(n[3]),
                  passwordHash: try r.optionalText(n[4]), totpSecret: try r.optionalText(n[5]),
                  totpEnabled: try r.bool(n[6]), createdAt: try r.int(n[7]), updatedAt: try r.int(n[8]))
    }

    private static let names = ["id", "email", "name", "role", "password_hash", "totp_secret", "totp_enabled",
                                "created_at", "updated_at"]
    private static let joinedNames = names.map { "u_" + $0 }
}

/// Queries on `users`. Each takes the connection of the caller's `read` or
/// `write` so several calls compose into one transaction.
public enum Users {
    static let columns = "id, email, name, role, password_hash, totp_secret, totp_enabled, created_at, updated_at"
    /// Built once: interpolating on every call would cost an allocation per query.
    enum SQL {
        static let insert = """
            INSERT INTO users (email, name, role, password_hash, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?) RETURNING \(columns)
            """
        static let findByID = "SELECT \(columns) FROM users WHERE id = ?"
        static let findByEmail = "SELECT \(columns) FROM users WHERE email = ?"
        static let list = "SELECT \(columns) FROM users WHERE id > ? ORDER BY id LIMIT ?"
        static let update = """
            UPDATE users SET name = coalesce(?, name), role = coalesce(?, role), email = coalesce(?, email),
                updated_at = ?
            WHERE id = ? RETURNING \(columns)
            """
    }

    /// Duplicate email (compared case-insensitively) → `StoreError.isUniqueViolation`;
    /// unknown role → `isConstraint`.
    public static func insert(_ c: Connection, email: String, name: String, role: String, passwordHash: String?,
                              now: Int64) throws(StoreError) -> UserRecord {
        let row = try c.queryOne(SQL.insert, [
            .text(email), .text(name), .text(role), SQLValue(passwordHash), .integer(now), .integer(now)])
        guard let row else { throw StoreError.misuse("INSERT … RETURNING gave no row") }
        return try UserRecord(row: row)
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> UserRecord? {
        try c.queryOne(SQL.findByID, [.integer(id)]).map { r throws(StoreError) in
            try UserRecord(row: r)
        }
    }

    /// Case-insensitive (ASCII, the column's NOCASE collation).
    public static func find(_ c: Connection, email: String) throws(StoreError) -> UserRecord? {
        try c.queryOne(SQL.findByEmail, [.text(email)]).map { r throws(StoreError) in
            try UserRecord(row: r)
        }
    }

    /// Keyset pagination: users with id > afterID, by id, at most `limit`.
    public static func list(_ c: Connection, afterID: Int64?, limit: Int) throws(StoreError) -> [UserRecord] {
        try c.query(SQL.list,
                    [.integer(afterID ?? Int64.min), .integer(Int64(max(0, limit)))])
            .map { r throws(StoreError) in try UserRecord(row: r) }
    }

    public static func count(_ c: Connection) throws(StoreError) -> Int {
        try countWhere(c, "SELECT count(*) FROM users")
    }

    /// Used to refuse removing or demoting the last admin.
    public static func countAdmins(_ c: Connection) throws(StoreError) -> Int {
        try countWhere(c, "SELECT count(*) FROM users WHERE role = 'admin'")
    }

    private static func countWhere(_ c: Connection, _ sql: String) throws(StoreError) -> Int {
        guard case .integer(let n)? = try c.scalar(sql) else { return 0 }
        return Int(n)
    }

    /// Updates the non-nil fields; nil if no such user. Making a user
    /// readonly also downgrades their write tokens in the same transaction,
    /// because a readonly user's tokens are always read (SPEC §3).
    public static func update(_ c: Connection, id: Int64, name: String?, role: String?, email: String?,
                              now: Int64) throws(StoreError) -> UserRecord? {
        let row = try c.queryOne(SQL.update, [
            SQLValue(name), SQLValue(role), SQLValue(email), .integer(now), .integer(id)])
        guard let row else { return nil }
        c.changedCredentials = true
        let user = try UserRecord(row: row)
        if user.role == "readonly" { try APITokens.downgradeToRead(c, userID: id) }
        return user
    }

    public static func setPasswordHash(_ c: Connection, id: Int64, hash: String, now: Int64) throws(StoreError) -> Bool {
        try c.execute("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?",
                      [.text(hash), .integer(now), .integer(id)])
        c.changedCredentials = true
        return c.changes > 0
    }

    /// Deletes the user and (ON DELETE CASCADE) their tokens.
    public static func delete(_ c: Connection, id: Int64) throws(StoreError) -> Bool {
        try c.execute("DELETE FROM users WHERE id = ?", [.integer(id)])
        c.changedCredentials = true
        return c.changes > 0
    }
}
