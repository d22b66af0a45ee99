/// Which channels an incident's alert went to, read from the outbox: a row
/// of the channel that announced one of the incident's events. Settled rows
/// are pruned after `[retention] raw_days`, so an incident older than that
/// no longer finds its channels (documented in docs/notifications.md).
extension Outbox {
    enum IncidentSQL {
        // Walks the channel's rows (index outbox_channel) and looks each
        // event up by its key: no index on events.incident_id is needed, and
        // it runs on a person's acknowledgement, not per check.
        static let alerted = """
            SELECT 1 FROM outbox o JOIN events e ON e.id = o.event_id
            WHERE o.channel_id = ? AND o.kind = 'alert' AND e.incident_id = ? LIMIT 1
            """
    }

    /// Whether `channelID` was sent an alert (queued, whatever became of it)
    /// for one of the incident's events.
    public static func alerted(_ c: Connection, channelID: Int64, incidentID: Int64) throws(StoreError) -> Bool {
        try c.queryOne(IncidentSQL.alerted, [.integer(channelID), .integer(incidentID)]) != nil
    }
}
