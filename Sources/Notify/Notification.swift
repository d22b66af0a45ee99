import Store
import Core

/// One notification to one channel: what every channel type renders.
public struct Notification: Sendable, Equatable {
    static let userAgent = "pingtxt-hub"

    public enum Kind: String, Sendable { case alert, reminder, test }

    public var kind: Kind
    /// nil for a test notification.
    public var event: EventKind?
    public var monitorID: Int64?
    public var monitorName: String
    public var incidentID: Int64?
    /// What failed (`HTTP 503`, `timeout`, …) or, for `monitor_up`, empty.
    public var cause: String
    /// Where from (`hub`, agent names).
    public var locations: [String]
    /// When the event happened.
    public var at: Int64
    /// When the outage began (down/degraded: `at`; up: when it went down).
    public var since: Int64
    /// The outbox row id: the idempotency key peers can use (`outbox-<id>`).
    public var outboxID: Int64
    public var hubName: String
    /// The hub's permanent id (`meta.hub_id`): paging services key an
    /// incident's alert by it (`pingtxt-<hub_id>-incident-<id>`), so two hubs
    /// on one service account never touch each other's alerts. Empty until
    /// the notifier fills it in when it queues the notification.
    public var hubID: String
    /// 0–10 (SPEC §10): the event's default until whoever queues the
    /// notification sets the one it resolved from the monitor's own
    /// (`AlertPriority.resolve`).
    public var priority: Int {
        get { resolvedPriority ?? AlertPriority.standard(event) }
        set { resolvedPriority = newValue }
    }
    private var resolvedPriority: Int?
    /// The `events` row this notification tells of (a reminder: the event
    /// it repeats; nil for tests and follow-ups), so an app or a receiver
    /// can ask `GET /api/events?after=` for what it missed.
    public var eventID: Int64?

    public init(kind: Kind, event: EventKind?, monitorID: Int64?, monitorName: String, incidentID: Int64?, cause: String,
                locations: [String], at: Int64, since: Int64, outboxID: Int64, hubName: String = "pingtxt", hubID: String = "") {
        self.kind = kind
        self.event = event
        self.monitorID = monitorID
        self.monitorName = monitorName
        self.incidentID = incidentID
        self.cause = cause
        self.locations = locations
        self.at = at
        self.since = since
        self.outboxID = outboxID
        self.hubName = hubName
        self.hubID = hubID
    }

    /// A test notification (no event, so no category and no action buttons).
    public static func test(channelName: String, at: Int64, outboxID: Int64, hubName: String = "pingtxt") -> Notification {
        Notification(kind: .test, event: nil, monitorID: nil, monitorName: channelName, incidentID: nil, cause: "",
                     locations: [], at: at, since: at, outboxID: outboxID, hubName: hubName)
    }

    public var messageID: String { "outbox-\(outboxID)" }

    /// What a person wrote (SPEC §15, event `message`): its title, body and
    /// optional link replace the texts the hub builds for its own events.
    public struct Message: Sendable, Equatable {
        public var title: String
        public var body: String
        public var url: String?
        public init(title: String, body: String, url: String?) {
            self.title = title
            self.body = body
            self.url = url
        }
    }

    /// Set for (and only for) event `message`.
    public var message: Message?

    /// SPEC §10: `{public_url}/ack/{token}`, a link that acknowledges this
    /// notification's incident (a `monitor_down`, reminders and escalation
    /// steps included) from the message itself. Set by the notifier for
    /// every channel but the app's (which has its own button); nil otherwise.
    public var acknowledgeURL: String?

    /// The links a chat or e-mail message ends with, one per line: the
    /// hub's page (`pageURL`), then `Acknowledge: <link>`. `wrap` shapes each
    /// link (Discord's `<…>` against previews). nil when there is none.
    public func linkLines(_ wrap: (String) -> String = { $0 }) -> String? {
        var lines: [String] = []
        if let page = pageURL { lines.append(wrap(page)) }
        if let ack = acknowledgeURL { lines.append("Acknowledge: " + wrap(ack)) }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// The hub's `server.public_url`, for links back to the hub; empty = no
    /// links. Set by whoever queues the notification (`Notifier`).
    public var publicURL = ""

    /// The hub's page for what the notification is about (SPEC §10,
    /// tap-through link): the incident, else the monitor, else the agents
    /// page for agent events; a test links to the notify page, where its
    /// channel is. nil when the hub's public URL is not known.
    public var pageURL: String? {
        Self.pageURL(publicURL: publicURL, event: event, monitorID: monitorID, incidentID: incidentID, messageURL: message?.url)
    }

    /// `pageURL` of a notification with these fields (the events feed builds
    /// the link of a stored event with it). A message's own `url` wins, even
    /// when the hub's public URL is not known (it points elsewhere anyway).
    public static func pageURL(publicURL: String, event: EventKind?, monitorID: Int64?, incidentID: Int64?,
                               messageURL: String? = nil) -> String? {
        if let messageURL { return messageURL }
        guard !publicURL.isEmpty else { return nil }
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        switch event {
        case nil: return base + "/notify"
        case .agentOffline?, .agentOnline?: return base + "/agents"
        default:
            if let incidentID { return base + "/incidents/\(incidentID)" }
            return monitorID.map { base + "/monitors/\($0)" } ?? base + "/"
        }
    }

    private var whereFrom: String {
        var parts: [String] = []
        if !cause.isEmpty { parts.append(cause) }
        if !locations.isEmpty { parts.append("from " + locations.joined(separator: ", ")) }
        return parts.joined(separator: " ")
    }

    /// One line: `🔴 API is down — HTTP 503 from hub, since 10:02 UTC`.
    public var title: String {
        let reminder = kind == .reminder ? "Reminder: " : ""
        switch event {
        case nil: return "🔔 Test notification from \(hubName)"
        case .monitorDown: return "🔴 \(reminder)\(monitorName) is down — \(detail)since \(Texts.clock(since))"
        case .monitorDegraded: return "🟡 \(reminder)\(monitorName) is degraded — \(detail)since \(Texts.clock(since))"
        case .monitorUp: return "✅ \(monitorName) is up again after \(Texts.duration(at - since))"
        case .expiry: return "⚠️ \(reminder)\(monitorName): \(cause.isEmpty ? "expires soon" : cause)"
        case .agentOffline: return "🔴 \(reminder)Agent \(monitorName) is offline since \(Texts.clock(since))"
        case .agentOnline: return "✅ Agent \(monitorName) is online again after \(Texts.duration(at - since))"
        case .message: return "💬 " + (message?.title ?? "Message")
        }
    }

    private var detail: String { whereFrom.isEmpty ? "" : whereFrom + ", " }

    /// The longer text: what, where, since when (RFC 3339 and "5 min ago").
    public var body: String {
        switch event {
        case nil: return "This is a test notification for channel \"\(monitorName)\". If you can read it, delivery works."
        case .message: return message?.body ?? ""
        case .monitorUp, .agentOnline:
            return "Down since \(Time.rfc3339(since)) (\(Texts.duration(at - since))), recovered at \(Time.rfc3339(at))."
        default:
            var lines: [String] = []
            if !cause.isEmpty { lines.append("Cause: \(cause)") }
            if !locations.isEmpty { lines.append("From: \(locations.joined(separator: ", "))") }
            lines.append("Since: \(Time.rfc3339(since)) (\(Texts.duration(at - since)) ago)")
            return lines.joined(separator: "\n")
        }
    }

    /// `title` and `body` on separate lines, for the chat channels.
    public var text: String { title + "\n" + body }
}

enum Texts {
    /// `10:02 UTC`
    static func clock(_ t: Int64) -> String {
        let s = Time.rfc3339(t)  // 2026-11-29T10:02:00Z
        let chars = Array(s)
        return String(chars[11..<16]) + " UTC"
    }

    /// `45 s`, `5 min`, `2 h 5 min`, `3 d 4 h`.
    static func duration(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min" }
        if s < 86400 { return s % 3600 >= 60 ? "\(s / 3600) h \(s % 3600 / 60) min" : "\(s / 3600) h" }
        return s % 86400 >= 3600 ? "\(s / 86400) d \(s % 86400 / 3600) h" : "\(s / 86400) d"
    }
}
