import Store
import Core
import Notify

/// The notify page's "Add channel" form: every `config.<key>` of every
/// channel type (SPEC §6) as one labelled field, each marked with the types
/// that use it. Without JavaScript all fields show and only the chosen
/// type's keys are sent on; `/static/notify.js` hides the others. The form
/// becomes the API's JSON body, so `ChannelValidator` (Notify) and the channel
/// senders validate it with the API's rules and messages.
enum ChannelForm {
    /// `flag`: a checkbox, sent as `true` when ticked, `false` otherwise.
    enum Kind { case url, text, secret, list, headers, flag }

    struct Field {
        let key: String
        let label: String
        let types: [ChannelType]
        let kind: Kind
        let hint: String?
    }

    static let fields: [Field] = [
        Field(key: "url", label: "URL", types: [.webhook, .ntfy, .gotify], kind: .url,
              hint: "Webhook: the address that receives a POST per alert. ntfy, Gotify: the server, such as https://ntfy.sh."),
        Field(key: "secret", label: "Signing secret (optional)", types: [.webhook], kind: .secret,
              hint: "Each body is signed: X-Pingtxt-Signature: sha256=<HMAC>."),
        Field(key: "headers", label: "Extra headers (optional)", types: [.webhook], kind: .headers,
              hint: "One per line, as Name: value."),
        Field(key: "webhook_url", label: "Incoming webhook URL", types: [.slack, .discord, .teams, .mattermost, .googlechat], kind: .url,
              hint: "Google Chat: https://chat.googleapis.com/v1/spaces/…, from the space's Apps & integrations → Webhooks."),
        Field(key: "bot_token", label: "Bot token", types: [.telegram], kind: .secret, hint: nil),
        Field(key: "chat_id", label: "Chat ID", types: [.telegram], kind: .text, hint: nil),
        Field(key: "topic", label: "Topic", types: [.ntfy], kind: .text, hint: nil),
        Field(key: "token", label: "Token", types: [.ntfy, .gotify], kind: .secret,
              hint: "ntfy: an access token, optional. Gotify: the token of an application (Apps → Create application)."),
        Field(key: "routing_key", label: "Integration key", types: [.pagerduty], kind: .secret,
              hint: "The 32-character key of an Events API v2 integration on the PagerDuty service (Integrations → Add integration)."),
        Field(key: "api_key", label: "API key", types: [.opsgenie], kind: .secret,
              hint: "The key of an API integration (Settings → Integrations → API)."),
        Field(key: "region", label: "Region (optional)", types: [.opsgenie], kind: .text,
              hint: "us (default) or eu, where the Opsgenie account lives."),
        Field(key: "app_token", label: "Application API token", types: [.pushover], kind: .secret,
              hint: "From your application's page on pushover.net (Create an Application/API Token)."),
        Field(key: "user_key", label: "User key", types: [.pushover], kind: .secret,
              hint: "Your user (or group) key from the pushover.net dashboard; several separated by commas."),
        Field(key: "homeserver", label: "Homeserver", types: [.matrix], kind: .url, hint: "Such as https://matrix.example.org."),
        Field(key: "access_token", label: "Access token", types: [.matrix], kind: .secret,
              hint: "Of the account that posts (a bot account is best); it must have joined the room."),
        Field(key: "room_id", label: "Room ID", types: [.matrix], kind: .text,
              hint: "Starts with !, found in the room's settings (Advanced); an alias (#…) is not a room ID."),
        Field(key: "api_url", label: "API base URL (optional)", types: [.telegram, .pagerduty, .opsgenie, .pushover], kind: .url,
              hint: "Only for a self-hosted server, a proxy or a regional endpoint: the service's base URL (https), "
                  + "to which the hub appends its path; empty means the public service."),
        Field(key: "to", label: "Recipients", types: [.email], kind: .list, hint: "Email addresses, separated by commas."),
        Field(key: "users", label: "Users", types: [.mobile], kind: .list,
              hint: "Emails of the users whose phones get the alerts, separated by commas; empty means every user."),
        Field(key: "alarm", label: "Alarm", types: [.mobile], kind: .flag,
              hint: "The app plays its alarm screen while open; pushes are at least time-sensitive (quiet hours still apply)."),
    ]

    static func typeLabel(_ t: ChannelType) -> String {
        switch t {
        case .webhook: "Webhook"
        case .slack: "Slack"
        case .discord: "Discord"
        case .teams: "Microsoft Teams"
        case .mattermost: "Mattermost"
        case .telegram: "Telegram"
        case .ntfy: "ntfy"
        case .email: "Email"
        case .mobile: "Mobile app"
        case .pagerduty: "PagerDuty"
        case .opsgenie: "Opsgenie"
        case .pushover: "Pushover"
        case .gotify: "Gotify"
        case .matrix: "Matrix"
        case .googlechat: "Google Chat"
        }
    }

    static let defaultEvents: Set<String> = [EventKind.monitorDown.rawValue, EventKind.monitorUp.rawValue]

    /// The API's `POST /api/channels` body for the submitted form.
    static func body(_ form: WebForm) throws(JSONFieldError) -> JSON {
        let typeText = form.trimmed("type")
        var config = JSONObject()
        if let type = ChannelType(rawValue: typeText) {
            for f in fields where f.types.contains(type) {
                let v = form.trimmed("config." + f.key)
                switch f.kind {
                // Left out when empty, so the API's "is required" names the field.
                case .url, .text, .secret: if !v.isEmpty { config[f.key] = .string(v) }
                case .list: config[f.key] = .array(list(v).map { .string($0) })
                case .headers: if !v.isEmpty { config[f.key] = .object(try headers(v)) }
                case .flag: config[f.key] = .bool(v == "on")
                }
            }
        }
        var body = JSONObject([
            ("name", .string(form.trimmed("name"))), ("type", .string(typeText)),
            ("events", .array(form.all("events").map { .string($0) })), ("config", .object(config)),
        ])
        // A number as typed (a non-number is passed on, so the API's message names the field).
        let floor = form.trimmed("min_priority")
        if !floor.isEmpty { body["min_priority"] = Int64(floor).map { .int($0) } ?? .string(floor) }
        return .object(body)
    }

    /// "a@x.org, b@y.org" (commas, spaces or line breaks) → the addresses.
    static func list(_ text: String) -> [String] {
        text.split { $0 == "," || $0 == " " || $0 == "\n" || $0 == "\r\n" || $0 == "\r" || $0 == "\t" }.map(String.init)
    }

    /// `Name: value` lines → the webhook's `headers` object (the sender
    /// then checks each header as the API does).
    static func headers(_ text: String) throws(JSONFieldError) -> JSONObject {
        var out = JSONObject()
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else {
                throw JSONFieldError(field: "config.headers", message: "config.headers: write each header as Name: value on its own line.")
            }
            let name = line[..<colon].trimmingSpaces()
            let value = line[line.index(after: colon)...].trimmingSpaces()
            out[name] = .string(value)
        }
        return out
    }

    /// The form's values for the template; `form` (after a refusal) keeps
    /// what was typed, except secrets.
    static func values(_ form: WebForm?) -> TemplateValue {
        let chosen = form.map { $0.trimmed("type") } ?? ChannelType.webhook.rawValue
        let events = form.map { Set($0.all("events")) } ?? defaultEvents
        let types: [TemplateValue] = ChannelType.allCases.map {
            ["value": .string($0.rawValue), "label": .string(typeLabel($0)), "selected": .bool($0.rawValue == chosen)]
        }
        let eventItems: [TemplateValue] = EventKind.allCases.map {
            ["value": .string($0.rawValue), "checked": .bool(events.contains($0.rawValue))]
        }
        let items: [TemplateValue] = fields.map { f in
            // A checkbox's value is what it sends when ticked.
            let kept = f.kind == .secret ? "" : f.kind == .flag ? "on" : (form?["config." + f.key] ?? "")
            return [
                "key": .string(f.key), "label": .string(f.label), "hint": WebFormat.text(f.hint),
                "types": .string(f.types.map(\.rawValue).joined(separator: " ")),
                "for_types": .string(f.types.map(typeLabel).joined(separator: ", ")),
                // URLs as text with a URL keyboard: a `type="url"` field the script hid
                // would block the form with a message nobody can see.
                "input_type": .string(f.kind == .secret ? "password" : f.kind == .flag ? "checkbox" : "text"),
                "inputmode": .string(f.kind == .url ? "url" : "text"),
                "textarea": .bool(f.kind == .headers), "value": .string(kept),
            ]
        }
        return ["name": .string(form?["name"] ?? ""), "types": .list(types), "events": .list(eventItems), "fields": .list(items),
                "min_priority": .string(form?["min_priority"] ?? "0")]
    }
}
