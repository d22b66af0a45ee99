/// A paging service's follow-ups on an incident it was alerted about, so
/// its alert lives exactly as long as the hub's incident:
/// - acknowledged on the hub (`POST /api/incidents/{id}/acknowledge`) → the
///   service's alert is acknowledged too, and its own escalation stops;
/// - closed on the hub without a `monitor_up` reaching this channel (the
///   monitor was paused, recovered during maintenance, a degraded incident
///   turned into a down one, a certificate was renewed, or the channel does
///   not subscribe to `monitor_up`) → the alert is resolved.
/// The notifier queues one row per such channel that was alerted for the
/// incident, in the transaction that acknowledges or closes it.
public protocol IncidentFollowing: ChannelSender {
    /// The request that acknowledges the service's alert for `n.incidentID`;
    /// `by` is who acknowledged on the hub. Pure, like `request(for:)`.
    func acknowledgeRequest(for n: Notification, by: String) -> OutboundRequest?
    /// The request that resolves it; `reason` is why the incident closed.
    func resolveRequest(for n: Notification, reason: String) -> OutboundRequest?
}

/// How the paging services name one hub's alerts.
enum AlertKey {
    /// `pingtxt-<hub_id>-incident-<id>` for a monitor's incident (SPEC §6);
    /// an agent has no incident, so its offline/online pair shares
    /// `pingtxt-<hub_id>-agent-<name>`; a test gets a key of its own.
    static func of(_ n: Notification) -> String {
        if let incident = n.incidentID { return "pingtxt-\(n.hubID)-incident-\(incident)" }
        switch n.event {
        case nil: return "pingtxt-\(n.hubID)-test-\(n.outboxID)"
        case .agentOffline?, .agentOnline?: return "pingtxt-\(n.hubID)-agent-\(n.monitorName)"
        // Each message stands alone: it never folds into a monitor's alert.
        case .message?: return "pingtxt-\(n.hubID)-message-\(n.eventID ?? n.outboxID)"
        default: return "pingtxt-\(n.hubID)-monitor-\(n.monitorID ?? 0)"
        }
    }

    /// Whether the notification ends the alert (`resolve`, `close`).
    static func ends(_ n: Notification) -> Bool { n.event == .monitorUp || n.event == .agentOnline }
}
