import Core
import WebAssets

/// Every template and static file of the top-level `Resources/`, embedded in the
/// binary by SwiftPM (`.embedInCode`: no Foundation, no files to deploy).
/// Templates are parsed once, at first use; a broken template is a
/// programming error caught by the tests that render each page.
enum TemplateLibrary {
    /// Templates by file name. Add a line per new `.html` file.
    static let sources: [(String, [UInt8])] = [
        ("layout.html", WebAssets.layout_html),
        ("notify.html", WebAssets.notify_html),
        ("settings.html", WebAssets.settings_html),
        ("twofactor.html", WebAssets.twofactor_html),
        ("users.html", WebAssets.users_html),
        ("dashboard.html", WebAssets.dashboard_html),
        ("monitor_new.html", WebAssets.monitor_new_html),
        ("monitor.html", WebAssets.monitor_html),
        ("incidents.html", WebAssets.incidents_html),
        ("maintenance.html", WebAssets.maintenance_html),
        ("escalation.html", WebAssets.escalation_html),
        ("status_layout.html", WebAssets.status_layout_html),
        ("status_page.html", WebAssets.status_page_html),
        ("status_missing.html", WebAssets.status_missing_html),
        ("status_pages.html", WebAssets.status_pages_html),
    ]

    /// Static files served under `/static/`. Add a line per new asset.
    static let assets: [String: (type: String, bytes: [UInt8])] = [
        "app.css": ("text/css; charset=utf-8", WebAssets.app_css),
        "notify.js": ("text/javascript; charset=utf-8", WebAssets.notify_js),
        "status.css": ("text/css; charset=utf-8", WebAssets.status_css),
    ]

    static let all: [String: Template] = {
        var out: [String: Template] = [:]
        for (name, bytes) in sources {
            do {
                out[name] = try Template(name: name, source: String(decoding: bytes, as: UTF8.self))
            } catch {
                Log.shared.error("template does not parse", ["template": name, "error": "\(error)"])
            }
        }
        return out
    }()

    /// Renders `name` (partials: every other template, by file name).
    static func render(_ name: String, _ context: TemplateValue) -> String {
        guard let t = all[name] else { return "" }
        return t.render(context, partials: all)
    }
}
