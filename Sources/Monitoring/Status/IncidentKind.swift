/// The `kind` of an incident.
public enum IncidentKind: String, Sendable, Equatable, Hashable, CaseIterable {
    case down, degraded, expiry
}
