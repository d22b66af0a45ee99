import Monitoring
import Core
import HTTP

/// The public status pages (SPEC §7, docs/web.md): `GET /status/{slug}`
/// (HTML), `/status/{slug}.json` and `/status/{slug}/badge/{id}.svg`. No
/// authentication and no session is read: the answers are the same for
/// everyone, so shared caches may keep them briefly.
struct PublicStatusRoutes {
    let pages: StatusPageService
    let cache: StatusPageCache

    func register(_ r: inout RouteTable) {
        // `{slug}` is a whole path segment, so `acme.json` arrives here too;
        // a slug never contains a dot, so the suffix is unambiguous.
        r.get("/status/{slug}", guardedPublic(page))
        r.get("/status/{slug}/badge/{file}", guardedPublic(badge))
    }

    func page(_ req: HTTPRequest) throws -> HTTPResponse {
        let segment = req.parameters["slug"] ?? ""
        let json = segment.hasSuffix(".json")
        let slug = json ? String(segment.dropLast(5)) : segment
        guard StatusPageInput.validSlug(slug), let stored = try pages.page(slug: slug) else {
            return json ? Self.jsonNotFound() : Self.htmlNotFound()
        }
        // Read first (one indexed row), so an unknown slug never fills the
        // cache and an edited page is a new version.
        return try cache.response(for: "\(stored.id)/\(json ? "json" : "html")", version: stored.hashValue) {
            let view = try StatusPageView.build(stored, ids: try pages.listedMonitorIDs(stored), monitoring: pages.monitoring,
                                                now: Time.now())
            var r = json ? HTTPResponse.json(StatusPageRepresentation.publicView(view))
                : HTTPResponse.text(200, StatusPageHTML.render(view), contentType: "text/html; charset=utf-8")
            Self.addPublicHeaders(&r.headers, maxAge: 30)
            return r
        }
    }

    func badge(_ req: HTTPRequest) throws -> HTTPResponse {
        let slug = req.parameters["slug"] ?? ""
        let file = req.parameters["file"] ?? ""
        guard file.hasSuffix(".svg"), let id = Int64(file.dropLast(4)), id > 0,
              StatusPageInput.validSlug(slug), let monitor = try pages.listedMonitor(slug: slug, monitorID: id) else {
            // Same answer for an unknown page, an unlisted monitor and a
            // missing one: nothing tells whether a monitor id exists.
            return Self.htmlNotFound()
        }
        let status = StatusPageView.displayedStatus(monitor, monitoring: pages.monitoring, now: Time.now())
        var r = HTTPResponse.text(200, StatusBadge.svg(name: monitor.name, status: status),
                                  contentType: "image/svg+xml; charset=utf-8")
        Self.addPublicHeaders(&r.headers, maxAge: 60)
        return r
    }

    /// Cacheable (public, short), never framed, nothing loaded from
    /// elsewhere; SVG badges are embedded by other sites as images, which
    /// `frame-ancestors` does not affect.
    static func addPublicHeaders(_ h: inout HTTPHeaders, maxAge: Int) {
        h.set("Cache-Control", "public, max-age=\(maxAge)")
        h.set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; "
              + "form-action 'none'; frame-ancestors 'none'; base-uri 'none'")
        h.set("X-Frame-Options", "DENY")
        h.set("Referrer-Policy", "no-referrer")
        h.set("X-Content-Type-Options", "nosniff")
    }

    static func htmlNotFound() -> HTTPResponse {
        let html = TemplateLibrary.render("status_layout.html", [
            "title": "Status page not found", "body": .string(TemplateLibrary.render("status_missing.html", [:])),
        ])
        var r = HTTPResponse.text(404, html, contentType: "text/html; charset=utf-8")
        addPublicHeaders(&r.headers, maxAge: 30)
        return r
    }

    static func jsonNotFound() -> HTTPResponse {
        var r = HTTPResponse.error(HTTPError.notFound("No status page at this address."))
        addPublicHeaders(&r.headers, maxAge: 30)
        return r
    }

    /// A failure (the database, say) is a plain 500 page, not an API error.
    func guardedPublic(_ body: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) -> HTTPHandler {
        return { req in
            do {
                return try body(req)
            } catch {
                let e = APIErrors.http(error)
                var r = HTTPResponse.text(e.status, "The status page could not be shown (\(e.message))\n")
                r.headers.set("Cache-Control", "no-store")
                for (k, v) in e.headers.sorted(by: { $0.key < $1.key }) { r.headers.set(k, v) }
                return r
            }
        }
    }
}
