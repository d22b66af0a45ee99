/// One stored acknowledge link (`ack_links`).
public struct AckLinkRecord: Sendable, Equatable {
    public var id: Int64
    public var incidentID: Int64
    public var channelID: Int64?
    public var channelName: String
    public var createdAt: Int64
    public var expiresAt: Int64
    public var usedAt: Int64?
}

/// Queries on `ack_links`. Links are found by the hash of their token only.
public enum AckLinks {
    public static func insert(_ c: Connection, tokenHash: [UInt8], incidentID: Int64, channelID: Int64?, channelName: String,
                              now: Int64, expiresAt: Int64) throws(StoreError) {
        try c.executeDeferred("""
            INSERT INTO ack_links (token_hash, incident_id, channel_id, channel_name, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [.blob(tokenHash), .integer(incidentID), SQLValue(channelID), .text(channelName), .integer(now),
                  .integer(expiresAt)])
    }

    /// The link with that token hash, locked until COMMIT when `lock` (the
    /// form's POST: two clicks must not both use it).
    public static func find(_ c: Connection, tokenHash: [UInt8], lock: Bool = false) throws(StoreError) -> AckLinkRecord? {
        guard let r = try c.queryOne("SELECT * FROM ack_links WHERE token_hash = ?" + (lock ? c.forUpdate : ""),
                                     [.blob(tokenHash)]) else { return nil }
        return AckLinkRecord(id: try r.int("id"), incidentID: try r.int("incident_id"), channelID: try r.optionalInt("channel_id"),
                             channelName: try r.text("channel_name"), createdAt: try r.int("created_at"),
                             expiresAt: try r.int("expires_at"), usedAt: try r.optionalInt("used_at"))
    }

    /// Uses the link up (compare-and-set: false when it already was).
    public static func markUsed(_ c: Connection, id: Int64, at: Int64) throws(StoreError) -> Bool {
        try c.execute("UPDATE ack_links SET used_at = ? WHERE id = ? AND used_at IS NULL", [.integer(at), .integer(id)])
        return c.changes > 0
    }

    /// Deletes links expired before `before` (retention).
    @discardableResult
    public static func deleteExpired(_ c: Connection, before: Int64) throws(StoreError) -> Int {
        try c.execute("DELETE FROM ack_links WHERE expires_at < ?", [.integer(before)])
        return c.changes
    }
}
