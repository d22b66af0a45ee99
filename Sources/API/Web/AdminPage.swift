import HTTP

/// The signed-in pages' frame: `layout.html` with the navigation, the CSRF
/// token for the sign-out form, and the headers of every page. Pages render
/// their own template into `body` and call `respond`.
struct AdminPage {
    struct NavItem {
        let href: String
        let label: String
        let adminOnly: Bool
    }

    static let nav: [NavItem] = [
        NavItem(href: "/", label: "Monitors", adminOnly: false),
        NavItem(href: "/incidents", label: "Incidents", adminOnly: false),
        NavItem(href: "/maintenance", label: "Maintenance", adminOnly: false),
        NavItem(href: "/notify", label: "Notify", adminOnly: false),
        NavItem(href: "/escalation", label: "Escalation", adminOnly: false),
        NavItem(href: "/status-pages", label: "Status pages", adminOnly: false),
        NavItem(href: "/settings", label: "Settings", adminOnly: false),
        NavItem(href: "/users", label: "Users", adminOnly: true),
    ]

    /// A full page. `current` is the nav entry to mark; `script` an optional
    /// file under /static/ (pages work without it: scripts only add comfort).
    static func respond(_ session: WebSessionContext, hubName: String, title: String, current: String, body: String,
                        flash: String? = nil, error: String? = nil, script: String? = nil, status: Int = 200) -> HTTPResponse {
        let isAdmin = session.user.role == "admin"
        let items: [TemplateValue] = nav.filter { !$0.adminOnly || isAdmin }.map {
            ["href": .string($0.href), "label": .string($0.label), "current": .bool($0.href == current)]
        }
        let html = TemplateLibrary.render("layout.html", [
            "title": .string(title), "hub_name": .string(hubName), "body": .string(body), "csrf": .string(session.csrf),
            "user": ["email": .string(session.user.email), "admin": .bool(isAdmin)], "nav": .list(items),
            "flash": .optional(flash), "error": .optional(error), "script": .optional(script),
        ])
        var r = HTTPResponse(status: status, body: Array(html.utf8))
        r.headers.set("Content-Type", "text/html; charset=utf-8")
        addHeaders(&r.headers)
        return r
    }

    /// Like the sign-in pages, plus a CSP that allows our own scripts and
    /// styles only (no inline script, nothing from elsewhere).
    static func addHeaders(_ h: inout HTTPHeaders) {
        WebLayer.addSecurityHeaders(&h)
        h.set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
              + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
    }
}
