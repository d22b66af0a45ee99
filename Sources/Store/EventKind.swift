/// The event kinds of SPEC §6 (and §15's `message`): the one vocabulary of the `events` table,
/// which Monitoring writes (monitor and agent events) and Notify reads.
public enum EventKind: String, Sendable, Equatable, Hashable, CaseIterable {
    case monitorDown = "monitor_down"
    case monitorUp = "monitor_up"
    case monitorDegraded = "monitor_degraded"
    case expiry = "expiry"
    case agentOffline = "agent_offline"
    case agentOnline = "agent_online"
    /// A message someone sent through the channels (SPEC §15,
    /// `POST /api/messages`): no incident, no reminders, no escalation.
    case message = "message"

    /// The push category (`aps.category`).
    public var category: String { rawValue.uppercased() }
}
