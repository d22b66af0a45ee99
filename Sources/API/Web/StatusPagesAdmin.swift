import Monitoring
import Core
import HTTP
import Store

/// The admin page `GET /status-pages` (docs/web.md): the list of status
/// pages with a create form and delete buttons. Behind the web session;
/// every POST is CSRF-checked; readonly users see the list but no forms.
struct StatusPagesAdmin {
    let web: WebLayer
    let pages: StatusPageService

    /// Flash messages after a successful POST, by the short `?flash=` key.
    static let flashes = ["created": "Status page created.", "deleted": "Status page deleted."]

    func register(_ r: inout RouteTable) {
        r.get("/status-pages", web.signedInPage(show))
        r.post("/status-pages", web.signedInForm(page: "/status-pages", rule: .write, create))
        r.post("/status-pages/{id}/delete", web.signedInForm(page: "/status-pages", rule: .write, delete))
    }

    func show(_ req: HTTPRequest, _ session: SignedIn) throws -> HTTPResponse {
        try render(session, flash: req.query("flash").flatMap { Self.flashes[$0] })
    }

    func create(_ req: HTTPRequest, _ session: SignedIn) throws -> HTTPResponse {
        let fields = FormCoding.decode(String(decoding: req.body, as: UTF8.self))
        let form = FormInput(fields)
        do {
            // The same validator and service as the API: the same messages.
            let input = try StatusPageInput.parse(try JSONFields(form.json))
            _ = try pages.create(input)
        } catch {
            let e = APIErrors.http(error)
            guard e.status == 400 || e.status == 409 else { throw e }
            return try render(session, form: form, error: e.message, status: e.status == 409 ? 409 : 400)
        }
        return web.redirect("/status-pages?flash=created")
    }

    func delete(_ req: HTTPRequest, _ session: SignedIn) throws -> HTTPResponse {
        try pages.delete(id: try req.intParameter("id"))
        return web.redirect("/status-pages?flash=deleted")
    }

    /// What the form sent, kept to re-render it after a validation error.
    struct FormInput {
        var title = "", slug = "", description = ""
        /// As typed: "public, eu" or "public eu".
        var tags = ""
        var monitorIDs: [String] = []

        init() {}
        init(_ fields: [(name: String, value: String)]) {
            for (name, value) in fields {
                switch name {
                case "title": title = value
                case "slug": slug = value
                case "description": description = value
                case "tags": tags = value
                case "monitor_ids": monitorIDs.append(value)
                default: break
                }
            }
        }

        /// As an API body; a non-numeric id stays a string so the
        /// validator names it (`monitor_ids[i]`).
        var json: JSON {
            .object(JSONObject([
                ("title", .string(title)), ("slug", .string(slug)), ("description", .string(description)),
                ("monitor_ids", .array(monitorIDs.map { Int64($0).map(JSON.int) ?? .string($0) })),
                ("tags", .array(tags.split { $0 == "," || $0 == " " }.map { .string(String($0)) })),
            ]))
        }
    }

    func render(_ session: SignedIn, form: FormInput = FormInput(), flash: String? = nil, error: String? = nil,
                status: Int = 200) throws -> HTTPResponse {
        let canWrite = session.canWrite
        let (rows, monitors) = (try pages.list(afterID: nil, limit: 1000), try pages.monitoring.allMonitors())
        let pageItems: [TemplateValue] = rows.map { p in
            ["id": .int(p.id), "title": .string(p.title), "slug": .string(p.slug),
             "monitor_count": .string("\(p.monitorIDs.count)" + (p.tags.isEmpty ? "" : " + tags " + p.tags.joined(separator: ", ")))]
        }
        let options: [TemplateValue] = monitors.map { m in
            ["id": .int(m.id), "name": .string(m.name), "selected": .bool(form.monitorIDs.contains(String(m.id)))]
        }
        let body = TemplateLibrary.render("status_pages.html", [
            "pages": .list(pageItems), "has_pages": .bool(!rows.isEmpty), "can_write": .bool(canWrite),
            "csrf": .string(session.csrf), "monitors": .list(options), "form_error": .optional(error),
            "form": ["title": .string(form.title), "slug": .string(form.slug), "description": .string(form.description),
                     "tags": .string(form.tags)],
        ])
        return AdminPage.respond(session.session, hubName: web.settings.hubName, title: "Status pages", current: "/status-pages",
                                 body: body, flash: flash, status: status)
    }
}
