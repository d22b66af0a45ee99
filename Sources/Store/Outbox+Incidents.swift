/// What went out about an incident, read from the outbox: rows of a channel
/// that announced one of the incident's events. Settled rows are pruned
/// after `[retention] raw_days`, so an incident older than that no longer
/// finds its channels (documented in docs/notifications.md).
extension Outbox {
    enum IncidentSQL {
        // Walks the channel's rows (index outbox_channel) and looks each
        // event up by its key: no index on events.incident_id is needed, and
        // it runs when an incident is acknowledged or closes, not per check.
        static func announced(kinds: Int) -> String {
            """
            SELECT 1 FROM outbox o JOIN events e ON e.id = o.event_id
            WHERE o.channel_id = ? AND o.kind = 'alert' AND e.incident_id = ?
              AND e.kind IN (\(Array(repeating: "?", count: kinds).joined(separator: ", "))) LIMIT 1
            """
        }
    }

    /// Whether `channelID` was queued an alert row (whatever became of it)
    /// for an event of the incident whose kind is one of `eventKinds`.
    public static func announced(_ c: Connection, channelID: Int64, incidentID: Int64,
                                 eventKinds: [String]) throws(StoreError) -> Bool {
        guard !eventKinds.isEmpty else { return false }
        return try c.queryOne(IncidentSQL.announced(kinds: eventKinds.count),
                              [.integer(channelID), .integer(incidentID)] + eventKinds.map { .text($0) }) != nil
    }
}
