/// A paging service's follow-ups on an incident it was alerted about:
/// acknowledged on the hub (`POST /api/incidents/{id}/acknowledge`) → the
/// service's alert is acknowledged too, so its own escalation stops. The
/// notifier queues one row per such channel that was alerted for the
/// incident, in the acknowledgement's transaction.
public protocol IncidentAcknowledging: ChannelSender {
    /// The request that acknowledges the service's alert for `n.incidentID`;
    /// `by` is who acknowledged on the hub. Pure, like `request(for:)`.
    func acknowledgeRequest(for n: Notification, by: String) -> OutboundRequest?
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
        default: return "pingtxt-\(n.hubID)-monitor-\(n.monitorID ?? 0)"
        }
    }

    /// Whether the notification ends the alert (`resolve`, `close`).
    static func ends(_ n: Notification) -> Bool { n.event == .monitorUp || n.event == .agentOnline }
}
