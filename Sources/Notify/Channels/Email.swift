import Store
import Core
import Mail

/// `email`: `to` (one address or a list). Delivered by the `smtp` transport
/// through the hub's `[smtp]` server; the outbox row carries the message as
/// `{"id", "to", "subject", "text"}` (pure, built once, so a retry sends the
/// same text). The transport adds From, Date, Message-ID and headers.
public struct EmailChannel: ChannelSender {
    public static let secretKeys: [String] = []
    let to: [String]

    public init(config f: JSONFields) throws(JSONFieldError) {
        let list: [String]
        if case .string(let s)? = f.object["to"] { list = [s] } else { list = try f.stringArray("to") ?? [] }
        guard !list.isEmpty, list.count <= 50 else {
            throw JSONFieldError(field: f.name("to"), message: "\(f.name("to")) must name 1 to 50 email addresses.")
        }
        // The mailer's own rule too (plain ASCII local@domain, no SMTPUTF8):
        // an address it would refuse is better refused here, at once.
        for (i, a) in list.enumerated() where !EmailAddress.isPlausible(a) || (try? SMTPMessage.validateAddress(a, field: "To")) == nil {
            throw JSONFieldError(field: "\(f.name("to"))[\(i)]", message: "\(f.name("to"))[\(i)] is not an email address.")
        }
        to = list
    }

    /// Not HTTP: see `outboxPayload(for:)`.
    public func request(for n: Notification) -> OutboundRequest? { nil }

    public func outboxPayload(for n: Notification) -> OutboxPayload? {
        let o = JSONObject([("id", .string(n.messageID)), ("to", .array(to.map { .string($0) })),
                            ("subject", .string(n.title)), ("text", .string(Self.text(for: n)))])
        return OutboxPayload(transport: "smtp", text: JSON.object(o).text)
    }

    /// The plain-text body: the title again (some clients hide long
    /// subjects), what and where from, the times, then a footer naming the
    /// hub, so the person on call knows which hub to open.
    static func text(for n: Notification) -> String {
        var lines = [n.title, ""]
        switch n.event {
        case nil: break
        // A message is about its monitor only when it names one.
        case .message: if n.monitorID != nil { lines.append("Monitor: \(n.monitorName)") }
        case .agentOffline, .agentOnline: lines.append("Agent: \(n.monitorName)")
        default: lines.append("Monitor: \(n.monitorName)")
        }
        lines.append(n.body)
        if let incident = n.incidentID { lines.append("Incident: #\(incident)") }
        // The hub's page of it (SPEC §10), on a line of its own so every
        // mail client makes it a link.
        if let page = n.pageURL { lines += ["", "Open: \(page)"] }
        // SPEC §10: acknowledge from the mail. The link shows a page with a
        // button; following it (as mail scanners do) changes nothing.
        if let ack = n.acknowledgeURL { lines += ["", "Acknowledge: \(ack)"] }
        lines += ["", "-- ", "Sent by \"\(n.hubName)\" (pingtxt monitoring hub), notification \(n.messageID)."]
        return lines.joined(separator: "\n")
    }
}
