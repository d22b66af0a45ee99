import CSQLite

/// Hub-wide key/value facts (e.g. a permanent hub_id).
public enum Meta {
    public static func get(_ c: Connection, _ key: String) throws(StoreError) -> String? {
        guard let v = try c.scalar("SELECT value FROM meta WHERE key = ?", [.text(key)]) else { return nil }
        guard case .text(let s) = v else {
            throw StoreError(code: SQLITE_MISMATCH, message: "meta '\(key)' is \(v.typeName), expected TEXT")
        }
        return s
    }

    /// Inserts or replaces.
    public static func set(_ c: Connection, _ key: String, _ value: String) throws(StoreError) {
        try c.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                      [.text(key), .text(value)])
    }
}
