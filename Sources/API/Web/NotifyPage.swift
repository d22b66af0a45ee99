import Core
import HTTP
import Notify
import Store

/// `/notify`: the channels with their delivery counts, "Add channel", and
/// "Send test" / "Delete" per channel (docs/web.md). Writes go through the
/// API's parsing and `NotifyService`, so the rules and messages are the API's.
struct NotifyPage {
    let web: WebLayer
    let notify: NotifyService

    static let flashes = [
        "added": "Channel added.",
        "test": "Test notification queued.",
        "test-none": "Nothing to send the test to: no phone is enrolled for this channel.",
        "deleted": "Channel deleted.",
    ]

    func register(_ r: inout RouteTable) {
        r.get("/notify", web.signedInPage(show))
        r.post("/notify/channels", web.signedInForm(page: "/notify", rule: .write, add))
        r.post("/notify/channels/{id}/test", web.signedInForm(page: "/notify", rule: .write, test))
        r.post("/notify/channels/{id}/delete", web.signedInForm(page: "/notify", rule: .write, delete))
    }

    func show(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        try render(ctx, flash: WebFormat.flash(req, Self.flashes))
    }

    func add(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        do {
            let record = try ChannelValidator.create(try JSONFields(try ChannelForm.body(ctx.form)))
            _ = try notify.create(record)
        } catch {
            guard let e = WebLayer.formError(error) else { throw error }
            return try render(ctx, error: e.message, form: ctx.form, status: e.status)
        }
        return web.redirect("/notify?flash=added")
    }

    func test(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        guard let record = try notify.find(id) else { throw HTTPError.notFound("No channel with id \(id).") }
        let ids = try notify.sendTest(try Channel(record: record))
        return web.redirect(ids.isEmpty ? "/notify?flash=test-none" : "/notify?flash=test")
    }

    func delete(_ req: HTTPRequest, _ ctx: SignedIn) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        do {
            guard try notify.delete(id) else { throw HTTPError.notFound("No channel with id \(id).") }
        } catch {
            // A step of an escalation policy: the page again, saying which.
            guard let e = WebLayer.formError(error), e.status == 409 else { throw error }
            return try render(ctx, error: e.message, status: e.status)
        }
        return web.redirect("/notify?flash=deleted")
    }

    func render(_ ctx: SignedIn, flash: String? = nil, error: String? = nil, form: WebForm? = nil,
                status: Int = 200) throws -> HTTPResponse {
        let channels: [TemplateValue] = try notify.all().map(row)
        let values: TemplateValue = [
            "csrf": .string(ctx.csrf), "can_write": .bool(ctx.canWrite), "channels": .list(channels),
            "has_channels": .bool(!channels.isEmpty),
            "form": ChannelForm.values(form),
        ]
        return web.adminPage(ctx, title: "Notify", current: "/notify", template: "notify.html", values,
                             flash: flash, error: error, script: ctx.canWrite ? "notify.js" : nil, status: status)
    }

    /// One channel as the list shows it: secrets masked as in the API.
    func row(_ r: ChannelRecord) throws -> TemplateValue {
        let d = try notify.delivery(r.id)
        let ch = try? Channel(record: r)
        let config: [TemplateValue] = (ch?.maskedConfig.entries ?? []).map { key, value in
            ["key": .string(key), "value": .string(Self.configText(value))]
        }
        return [
            "id": .int(r.id), "name": .string(r.name),
            "type": .string(ChannelType(rawValue: r.type).map(ChannelForm.typeLabel) ?? r.type),
            "events": .string(ch.map { $0.events.map(\.rawValue).joined(separator: ", ") } ?? ""),
            "enabled": .bool(r.enabled), "config": .list(config), "min_priority": .int(r.minPriority),
            "sent": .int(d.sent), "failed": .int(d.failed), "pending": .int(d.pending),
            "last_error": WebFormat.text(d.lastError), "last_sent": .string(WebFormat.time(d.lastSentAt)),
        ]
    }

    /// A config value as text: lists joined, objects as `Name: value` pairs.
    static func configText(_ v: JSON) -> String {
        switch v {
        case .string(let s): return s
        case .array(let items): return items.isEmpty ? "(none)" : items.map(configText).joined(separator: ", ")
        case .object(let o): return o.entries.map { "\($0.0): \(configText($0.1))" }.joined(separator: "; ")
        case .null: return ""
        default: return v.text
        }
    }
}
