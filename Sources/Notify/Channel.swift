import Store
import Core

/// One channel type: validates its config and builds what to send for a
/// notification as a pure function. HTTP types implement `request(for:)`;
/// others (email) implement `outboxPayload(for:)` with their transport.
/// `mobile` returns nil from both: it fans out to phones (`MobileFanout`).
public protocol ChannelSender: Sendable {
    /// Parses and validates `config` (field errors name `config.<key>`).
    init(config: JSONFields) throws(JSONFieldError)
    /// Keys whose values are write-only (masked in answers).
    static var secretKeys: [String] { get }
    /// URL keys that are themselves the credential (a chat service's
    /// webhook URL): answers show only their scheme and host.
    static var secretURLKeys: [String] { get }
    /// Keys holding a header map whose credential values are write-only.
    static var headerMapKeys: [String] { get }
    /// The HTTP request for `notification`, or nil when the type is not
    /// delivered over plain HTTP.
    func request(for notification: Notification) -> OutboundRequest?
    /// What one outbox row carries for `notification` (default: the HTTP
    /// request); nil writes no row.
    func outboxPayload(for notification: Notification) -> OutboxPayload?
    /// How this service's HTTP answer is read: sent, temporary (with the
    /// service's wait, in whatever form it gives it) or permanent, with the
    /// service's own reason kept in the error (default: `genericVerdict`
    /// with the body's `reason`).
    static func verdict(for answer: ServiceAnswer) -> AttemptVerdict
}

extension ChannelSender {
    public static var secretURLKeys: [String] { [] }
    public static var headerMapKeys: [String] { [] }
    public static func verdict(for answer: ServiceAnswer) -> AttemptVerdict { answer.genericVerdict(reason: answer.reason) }

    /// The HTTP request, stamped with the channel type that reads its answer.
    public func outboxPayload(for notification: Notification) -> OutboxPayload? {
        guard var r = request(for: notification) else { return nil }
        if r.service == nil { r.service = ChannelType.of(Self.self)?.rawValue }
        return OutboxPayload(transport: "http", text: r.storedText)
    }
}

/// The `transport` and `payload` columns of one outbox row.
public struct OutboxPayload: Sendable, Equatable {
    public var transport: String
    public var text: String
    public init(transport: String, text: String) {
        self.transport = transport
        self.text = text
    }
}

public enum ChannelType: String, Sendable, CaseIterable {
    case webhook, slack, discord, teams, mattermost, telegram, ntfy, email, mobile
    case pagerduty, opsgenie, pushover, gotify, matrix, googlechat

    /// The type whose sender is `sender`.
    public static func of(_ sender: any ChannelSender.Type) -> ChannelType? {
        allCases.first { ObjectIdentifier($0.sender) == ObjectIdentifier(sender) }
    }

    public var sender: any ChannelSender.Type {
        switch self {
        case .webhook: WebhookChannel.self
        case .slack: SlackChannel.self
        case .discord: DiscordChannel.self
        case .teams: TeamsChannel.self
        case .mattermost: MattermostChannel.self
        case .telegram: TelegramChannel.self
        case .ntfy: NtfyChannel.self
        case .email: EmailChannel.self
        case .mobile: MobileChannel.self
        case .pagerduty: PagerDutyChannel.self
        case .opsgenie: OpsgenieChannel.self
        case .pushover: PushoverChannel.self
        case .gotify: GotifyChannel.self
        case .matrix: MatrixChannel.self
        case .googlechat: GoogleChatChannel.self
        }
    }
}

/// A validated channel (SPEC §6).
public struct Channel: Sendable {
    public var id: Int64
    public var name: String
    public var type: ChannelType
    public var enabled: Bool
    public var events: [EventKind]
    /// Empty = every monitor.
    public var monitorIDs: [Int64]
    public var reminderMinutes: Int64
    /// Notifications below this 0–10 priority are not sent here, reminders
    /// included; the Test button ignores it (SPEC §10, `Routing.accepts`).
    public var minPriority: Int64
    public var config: JSONObject
    public var sender: any ChannelSender

    public init(id: Int64, name: String, type: ChannelType, enabled: Bool, events: [EventKind], monitorIDs: [Int64],
                reminderMinutes: Int64, minPriority: Int64 = 0, config: JSONObject) throws(JSONFieldError) {
        self.id = id
        self.minPriority = minPriority
        self.name = name
        self.type = type
        self.enabled = enabled
        self.events = events
        self.monitorIDs = monitorIDs
        self.reminderMinutes = reminderMinutes
        self.config = config
        self.sender = try type.sender.init(config: JSONFields(.object(config), path: "config"))
    }

    /// The config with secrets replaced by a mask, for answers.
    public var maskedConfig: JSONObject {
        Self.masked(config, type: type)
    }

    /// `config` of a channel of `type` as answers show it (SPEC §6).
    public static func masked(_ config: JSONObject, type: ChannelType) -> JSONObject {
        var c = config
        for k in type.sender.secretKeys where c[k] != nil && c[k] != .null { c[k] = .string(SecretMask.mask) }
        for k in type.sender.secretURLKeys {
            if case .string(let u)? = c[k] { c[k] = .string(SecretMask.url(u)) }
        }
        for k in type.sender.headerMapKeys {
            if case .object(let h)? = c[k] { c[k] = .object(SecretMask.maskHeaders(h)) }
        }
        return c
    }

    /// A written `config` with what stands for stored secrets (the mask,
    /// the masked URL, a left-out secret key) replaced by the stored values.
    public static func restoringSecrets(_ given: JSONObject, stored: JSONObject, type: ChannelType) -> JSONObject {
        var c = given
        for k in type.sender.secretKeys where SecretMask.keepsStored(c[k], stored: stored[k], isURL: false) { c[k] = stored[k] }
        for k in type.sender.secretURLKeys where SecretMask.keepsStored(c[k], stored: stored[k], isURL: true) { c[k] = stored[k] }
        for k in type.sender.headerMapKeys {
            if case .object(let h)? = c[k], case .object(let old)? = stored[k] { c[k] = .object(SecretMask.restoreHeaders(h, stored: old)) }
        }
        return c
    }
}

/// Shared validators.
enum Validate {
    static func url(_ f: JSONFields, _ key: String, required: Bool = true) throws(JSONFieldError) -> String? {
        guard let u = try required ? f.requiredString(key) : f.string(key) else { return nil }
        let lower = u.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), u.utf8.count > 8, u.utf8.count <= 2048,
              !u.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw JSONFieldError(field: f.name(key), message: "\(f.name(key)) must be an http:// or https:// URL.")
        }
        return u
    }

    static func nonEmpty(_ f: JSONFields, _ key: String) throws(JSONFieldError) -> String {
        let s = try f.requiredString(key)
        if s.isEmpty || s.utf8.count > 1024 { throw JSONFieldError(field: f.name(key), message: "\(f.name(key)) must be 1 to 1024 bytes.") }
        return s
    }
}
