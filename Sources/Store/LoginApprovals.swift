/// A row of `login_approvals`: one request to approve a web sign-in on the phone.
public struct LoginApprovalRecord: Sendable, Equatable {
    /// Random, base64url; what the phone names the approval by.
    public var id: String
    public var userID: Int64
    /// The waiting web session this approval signs in; nil once that session ended.
    public var sessionID: Int64?
    /// The two-digit number the browser shows and the phone must send back.
    public var code: String
    /// "<address> · <browser>", shown on the phone.
    public var client: String
    /// The browser's address (the rate limiter counts a refusal on it).
    public var address: String
    /// `pending`, `approved`, `refused` or `used`.
    public var status: String
    public var createdAt: Int64
    public var expiresAt: Int64
    public var decidedAt: Int64?

    public init(id: String, userID: Int64, sessionID: Int64?, code: String, client: String, address: String,
                status: String = "pending", createdAt: Int64, expiresAt: Int64, decidedAt: Int64? = nil) {
        self.id = id
        self.userID = userID
        self.sessionID = sessionID
        self.code = code
        self.client = client
        self.address = address
        self.status = status
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.decidedAt = decidedAt
    }

    init(row r: Row) throws(StoreError) {
        self.init(id: try r.text("id"), userID: try r.int("user_id"), sessionID: try r.optionalInt("session_id"),
                  code: try r.text("code"), client: try r.text("client"), address: try r.text("address"),
                  status: try r.text("status"), createdAt: try r.int("created_at"), expiresAt: try r.int("expires_at"),
                  decidedAt: try r.optionalInt("decided_at"))
    }
}

/// Queries on `login_approvals`. Every state change is a compare-and-set on
/// the old status (and, for the phone's answer, on the expiry), so two
/// answers racing for one approval cannot both win.
public enum LoginApprovals {
    public static func insert(_ c: Connection, _ a: LoginApprovalRecord) throws(StoreError) {
        try c.execute("""
            INSERT INTO login_approvals (id, user_id, session_id, code, client, address, status, created_at, expires_at, seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM login_approvals))
            """, [.text(a.id), .integer(a.userID), SQLValue(a.sessionID), .text(a.code), .text(a.client), .text(a.address),
                  .text(a.status), .integer(a.createdAt), .integer(a.expiresAt)])
    }

    public static func find(_ c: Connection, id: String) throws(StoreError) -> LoginApprovalRecord? {
        try c.queryOne("SELECT * FROM login_approvals WHERE id = ?", [.text(id)])
            .map { r throws(StoreError) in try LoginApprovalRecord(row: r) }
    }

    /// The newest approval of a waiting session (the one its browser shows).
    public static func latest(_ c: Connection, sessionID: Int64) throws(StoreError) -> LoginApprovalRecord? {
        try c.queryOne("SELECT * FROM login_approvals WHERE session_id = ? ORDER BY created_at DESC, seq DESC LIMIT 1",
                       [.integer(sessionID)])
            .map { r throws(StoreError) in try LoginApprovalRecord(row: r) }
    }

    /// The user's approvals still waiting for the phone at `now`, oldest first.
    public static func pending(_ c: Connection, userID: Int64, now: Int64) throws(StoreError) -> [LoginApprovalRecord] {
        try c.query("""
            SELECT * FROM login_approvals
            WHERE user_id = ? AND status = 'pending' AND expires_at > ? AND session_id IS NOT NULL
            ORDER BY created_at, seq
            """, [.integer(userID), .integer(now)])
            .map { r throws(StoreError) in try LoginApprovalRecord(row: r) }
    }

    /// When the user's approvals created since `since` were created, oldest first.
    public static func createdSince(_ c: Connection, userID: Int64, since: Int64) throws(StoreError) -> [Int64] {
        try c.query("SELECT created_at FROM login_approvals WHERE user_id = ? AND created_at > ? ORDER BY created_at",
                    [.integer(userID), .integer(since)])
            .map { r throws(StoreError) in try r.int("created_at") }
    }

    /// The phone's answer: `pending` → `approved` or `refused`, only while
    /// the approval is unexpired and its session alive. False when another
    /// answer, the expiry or the session's end came first.
    public static func decide(_ c: Connection, id: String, to status: String, now: Int64) throws(StoreError) -> Bool {
        try c.execute("""
            UPDATE login_approvals SET status = ?, decided_at = ?
            WHERE id = ? AND status = 'pending' AND expires_at > ? AND session_id IS NOT NULL
            """, [.text(status), .integer(now), .text(id), .integer(now)])
        return c.changes > 0
    }

    /// The browser picks an approved approval up: `approved` → `used`, once.
    public static func markUsed(_ c: Connection, id: String) throws(StoreError) -> Bool {
        try c.execute("UPDATE login_approvals SET status = 'used' WHERE id = ? AND status = 'approved'", [.text(id)])
        return c.changes > 0
    }

    /// Removes approvals that ended before `before` (they only matter for a
    /// late `409` and for the creation limit, both short-lived).
    @discardableResult
    public static func deleteExpired(_ c: Connection, before: Int64) throws(StoreError) -> Int {
        try c.execute("DELETE FROM login_approvals WHERE expires_at < ?", [.integer(before)])
        return c.changes
    }
}
