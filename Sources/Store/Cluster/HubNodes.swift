/// The running hubs of a shared database and the leases they hold
/// (migration 0014). Times are Unix milliseconds: failover is measured in
/// seconds, and a whole-second clock would make the liveness window jitter
/// by a second either way.
public enum HubNodes {
    /// This hub is alive (insert or renew its row).
    public static func beat(_ c: Connection, id: String, startedAt: Int64, now: Int64, version: String) throws(StoreError) {
        try c.execute("""
            INSERT INTO hub_nodes (id, started_at, seen_at, version) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, seen_at = excluded.seen_at, version = excluded.version
            """, [.text(id), .integer(startedAt), .integer(now), .text(version)])
    }

    /// Hubs seen at or after `since`, by id.
    public static func live(_ c: Connection, since: Int64) throws(StoreError) -> [String] {
        try c.query("SELECT id FROM hub_nodes WHERE seen_at >= ? ORDER BY id", [.integer(since)])
            .map { r throws(StoreError) in try r.text("id") }
    }

    /// A clean stop: the others need not wait for the row to age.
    public static func remove(_ c: Connection, id: String) throws(StoreError) {
        try c.execute("DELETE FROM hub_nodes WHERE id = ?", [.text(id)])
    }

    /// Rows of hubs gone for a long time (a renamed host), so the table
    /// does not grow.
    public static func prune(_ c: Connection, before: Int64) throws(StoreError) {
        try c.execute("DELETE FROM hub_nodes WHERE seen_at < ?", [.integer(before)])
    }
}

/// Named leases: one holder at a time, until `expires_at`.
public enum Leases {
    /// Takes or renews the lease for `holder` until `until`. Succeeds when
    /// the lease is free, expired, or already `holder`'s: one conditional
    /// upsert, so two hubs racing for it cannot both win.
    public static func acquire(_ c: Connection, name: String, holder: String, now: Int64, until: Int64) throws(StoreError) -> Bool {
        try c.execute("""
            INSERT INTO leases (name, holder, expires_at) VALUES (?1, ?2, ?3)
            ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
            WHERE leases.holder = excluded.holder OR leases.expires_at < ?4
            """, [.text(name), .text(holder), .integer(until), .integer(now)])
        return c.changes == 1
    }

    /// Gives the lease up (a clean stop), if `holder` has it.
    public static func release(_ c: Connection, name: String, holder: String) throws(StoreError) {
        try c.execute("DELETE FROM leases WHERE name = ? AND holder = ?", [.text(name), .text(holder)])
    }

    public static func holder(_ c: Connection, name: String, now: Int64) throws(StoreError) -> String? {
        try c.queryOne("SELECT holder FROM leases WHERE name = ? AND expires_at >= ?", [.text(name), .integer(now)])
            .map { r throws(StoreError) in try r.text("holder") }
    }
}
