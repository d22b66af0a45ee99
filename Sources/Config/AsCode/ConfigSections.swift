// The sections of a config-as-code file (SPEC §13) and how each object's
// API representation maps onto it: which fields are the hub's own (ids,
// state, timestamps: left out of the file), and which fields refer to other
// objects by id (written as their keys in the file). Everything else passes
// through unchanged, so fields the API gains later appear in the file
// without code here.

/// One section of the file, an array of tables (`[[monitors]]`).
public enum ConfigSection: String, Sendable, CaseIterable {
    case monitors, channels, escalationPolicies = "escalation_policies", maintenance, statusPages = "status_pages"

    /// How errors and plan lines name one object: `monitor "api"`.
    public var singular: String {
        switch self {
        case .monitors: return "monitor"
        case .channels: return "channel"
        case .escalationPolicies: return "escalation_policy"
        case .maintenance: return "maintenance"
        case .statusPages: return "status_page"
        }
    }

    /// The API's collection path.
    public var apiPath: String {
        switch self {
        case .monitors: return "/api/monitors"
        case .channels: return "/api/channels"
        case .escalationPolicies: return "/api/escalation-policies"
        case .maintenance: return "/api/maintenance"
        case .statusPages: return "/api/status-pages"
        }
    }

    /// Fields of the representation the hub owns; never written to the file.
    public static let readOnly: Set<String> = [
        "id", "created_at", "updated_at", "status", "status_since", "last_check", "open_incident_id", "in_maintenance",
        "ping_url", "delivery", "created_by", "active", "next_start", "secret_fields",
    ]

    /// The fields of this section that refer to other objects.
    public var references: [ConfigReference] {
        switch self {
        case .monitors:
            return [ConfigReference(apiField: "escalation_policy_id", fileField: "escalation_policy", target: .escalationPolicies, many: false),
                    ConfigReference(apiField: "depends_on", fileField: "depends_on", target: .monitors, many: true)]
        case .channels, .maintenance:
            return [ConfigReference(apiField: "monitor_ids", fileField: "monitors", target: .monitors, many: true)]
        case .statusPages:
            // A status page's monitor_ids is its display order, not a set.
            return [ConfigReference(apiField: "monitor_ids", fileField: "monitors", target: .monitors, many: true, ordered: true)]
        case .escalationPolicies:
            return [ConfigReference(apiField: "channel_ids", fileField: "channels", target: .channels, many: true, inArray: "steps")]
        }
    }
}

/// A field that names other objects: by id in the API, by key in the file.
public struct ConfigReference: Sendable {
    public var apiField: String
    public var fileField: String
    public var target: ConfigSection
    /// An array of references (`depends_on`) rather than one (`escalation_policy`).
    public var many: Bool
    /// The field sits in each table of this array (`steps[].channel_ids`).
    public var inArray: String?
    /// The order means something (a status page's display order): kept as
    /// it is rather than sorted.
    public var ordered: Bool

    public init(apiField: String, fileField: String, target: ConfigSection, many: Bool, inArray: String? = nil, ordered: Bool = false) {
        self.ordered = ordered
        self.apiField = apiField
        self.fileField = fileField
        self.target = target
        self.many = many
        self.inArray = inArray
    }
}
