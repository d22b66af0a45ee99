/// A row of `agents`, with its token hash (the roster keeps it in memory to
/// authenticate agents without a query; it never leaves the hub).
public struct AgentRecord: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var tokenHash: [UInt8]
    public var createdAt: Int64
    public var lastSeenAt: Int64?
    /// "pending", "online" or "offline".
    public var status: String
    public var statusSince: Int64
    public var version: String?
    public var address: String?

    public init(id: Int64 = 0, name: String, tokenHash: [UInt8], createdAt: Int64, lastSeenAt: Int64? = nil,
                status: String = "pending", statusSince: Int64, version: String? = nil, address: String? = nil) {
        self.id = id
        self.name = name
        self.tokenHash = tokenHash
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.status = status
        self.statusSince = statusSince
        self.version = version
        self.address = address
    }

    init(row r: Row) throws(StoreError) {
        guard case .blob(let hash) = try r.value("token_hash") else {
            throw StoreError.misuse("agents.token_hash is not a blob")
        }
        self.init(id: try r.int("id"), name: try r.text("name"), tokenHash: hash, createdAt: try r.int("created_at"),
                  lastSeenAt: try r.optionalInt("last_seen_at"), status: try r.text("status"),
                  statusSince: try r.int("status_since"), version: try r.optionalText("version"),
                  address: try r.optionalText("address"))
    }
}

/// Queries on `agents` (the only SQL that touches that table).
public enum Agents {
    enum SQL {
        static let insert = """
            INSERT INTO agents (name, token_hash, created_at, status, status_since) VALUES (?, ?, ?, 'pending', ?)
            RETURNING *
            """
        static let list = "SELECT * FROM agents WHERE id > ? ORDER BY id LIMIT ?"
        static let all = "SELECT * FROM agents ORDER BY id"
        static let find = "SELECT * FROM agents WHERE id = ?"
        static let findByName = "SELECT * FROM agents WHERE name = ?"
        static let delete = "DELETE FROM agents WHERE id = ?"
        static let seen = "UPDATE agents SET last_seen_at = ?, version = ?, address = ? WHERE id = ?"
        static let status = "UPDATE agents SET status = ?, status_since = ? WHERE id = ?"
    }

    /// A taken name → `isUniqueViolation`.
    public static func insert(_ c: Connection, name: String, tokenHash: [UInt8], now: Int64) throws(StoreError) -> AgentRecord {
        guard let row = try c.queryOne(SQL.insert, [.text(name), .blob(tokenHash), .integer(now), .integer(now)]) else {
            throw StoreError.misuse("INSERT … RETURNING gave no row")
        }
        return try AgentRecord(row: row)
    }

    /// By id, keyset-paginated.
    public static func list(_ c: Connection, afterID: Int64?, limit: Int) throws(StoreError) -> [AgentRecord] {
        try c.query(SQL.list, [.integer(afterID ?? Int64.min), .integer(Int64(max(0, limit)))])
            .map { r throws(StoreError) in try AgentRecord(row: r) }
    }

    public static func all(_ c: Connection) throws(StoreError) -> [AgentRecord] {
        try c.query(SQL.all).map { r throws(StoreError) in try AgentRecord(row: r) }
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> AgentRecord? {
        try c.queryOne(SQL.find, [.integer(id)]).map { r throws(StoreError) in try AgentRecord(row: r) }
    }

    /// The agent, its row locked until the transaction ends: two hubs
    /// seeing one agent change status take turns, so one event is written.
    public static func findForUpdate(_ c: Connection, id: Int64) throws(StoreError) -> AgentRecord? {
        try c.queryOne(SQL.find + c.forUpdate, [.integer(id)]).map { r throws(StoreError) in try AgentRecord(row: r) }
    }

    public static func find(_ c: Connection, name: String) throws(StoreError) -> AgentRecord? {
        try c.queryOne(SQL.findByName, [.text(name)]).map { r throws(StoreError) in try AgentRecord(row: r) }
    }

    /// Its results stay (history under its location name).
    public static func delete(_ c: Connection, id: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.delete, [.integer(id)])
        return c.changes > 0
    }

    /// Records contact: when, what version the agent reported, from where.
    public static func touch(_ c: Connection, id: Int64, at: Int64, version: String?, address: String?) throws(StoreError) {
        try c.execute(SQL.seen, [.integer(at), SQLValue(version), SQLValue(address), .integer(id)])
    }

    public static func setStatus(_ c: Connection, id: Int64, status: String, since: Int64) throws(StoreError) {
        try c.execute(SQL.status, [.text(status), .integer(since), .integer(id)])
    }
}
