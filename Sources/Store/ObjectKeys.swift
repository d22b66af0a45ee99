/// The five kinds of object that may carry a stable key (SPEC §13), with the
/// table and the column their generated keys are made from.
public enum KeyedKind: String, Sendable, CaseIterable {
    case monitor, channel, maintenance, escalationPolicy = "escalation_policy", statusPage = "status_page"

    var table: String {
        switch self {
        case .monitor: return "monitors"
        case .channel: return "channels"
        case .maintenance: return "maintenance_windows"
        case .escalationPolicy: return "escalation_policies"
        case .statusPage: return "status_pages"
        }
    }

    /// The human name a key is made from when `pingtxt export` assigns one.
    var nameColumn: String {
        switch self {
        case .monitor, .channel, .escalationPolicy: return "name"
        case .maintenance, .statusPage: return "title"
        }
    }
}

/// Reads and writes the `stable_key` column of the keyed tables (0023). The
/// records themselves do not carry the key: it is an identity beside the
/// configuration, set and read on its own, so the five repositories stay as
/// they are.
public enum ObjectKeys {
    public static func key(_ c: Connection, _ kind: KeyedKind, id: Int64) throws(StoreError) -> String? {
        guard case .text(let k)? = try c.scalar("SELECT stable_key FROM \(kind.table) WHERE id = ?", [.integer(id)]) else { return nil }
        return k
    }

    /// Every key of the kind, by object id (objects without a key absent).
    public static func keys(_ c: Connection, _ kind: KeyedKind) throws(StoreError) -> [Int64: String] {
        var out: [Int64: String] = [:]
        for r in try c.query("SELECT id, stable_key FROM \(kind.table) WHERE stable_key IS NOT NULL") {
            out[try r.int("id")] = try r.text("stable_key")
        }
        return out
    }

    public static func id(_ c: Connection, _ kind: KeyedKind, key: String) throws(StoreError) -> Int64? {
        guard case .integer(let id)? = try c.scalar("SELECT id FROM \(kind.table) WHERE stable_key = ?", [.text(key)]) else { return nil }
        return id
    }

    /// Sets (or, with nil, clears) the key. A key another object holds fails
    /// with the unique index's constraint error. False when no such object.
    @discardableResult
    public static func set(_ c: Connection, _ kind: KeyedKind, id: Int64, key: String?) throws(StoreError) -> Bool {
        try c.execute("UPDATE \(kind.table) SET stable_key = ? WHERE id = ?", [SQLValue(key), .integer(id)])
        return c.changes > 0
    }

    /// Objects without a key, oldest first, with the name their key is made from.
    public static func unkeyed(_ c: Connection, _ kind: KeyedKind) throws(StoreError) -> [(id: Int64, name: String)] {
        try c.query("SELECT id, \(kind.nameColumn) AS name FROM \(kind.table) WHERE stable_key IS NULL ORDER BY id").map { r throws(StoreError) in
            (try r.int("id"), try r.text("name"))
        }
    }
}
