/// The files of `Resources/templates` and `Resources/static` (templates, CSS,
/// the one small script), embedded in the binary by SwiftPM (`.embedInCode`: no
/// Foundation, nothing to deploy). This target exists so the files can sit
/// at the top of the repository while SwiftPM wants resources inside a
/// target's folder; `API.TemplateLibrary` parses and serves them.
public enum WebAssets {
    public static let app_css: [UInt8] = PackageResources.app_css
    public static let dashboard_html: [UInt8] = PackageResources.dashboard_html
    public static let escalation_html: [UInt8] = PackageResources.escalation_html
    public static let incidents_html: [UInt8] = PackageResources.incidents_html
    public static let layout_html: [UInt8] = PackageResources.layout_html
    public static let maintenance_html: [UInt8] = PackageResources.maintenance_html
    public static let monitor_html: [UInt8] = PackageResources.monitor_html
    public static let monitor_new_html: [UInt8] = PackageResources.monitor_new_html
    public static let notify_html: [UInt8] = PackageResources.notify_html
    public static let notify_js: [UInt8] = PackageResources.notify_js
    public static let settings_html: [UInt8] = PackageResources.settings_html
    public static let status_css: [UInt8] = PackageResources.status_css
    public static let status_layout_html: [UInt8] = PackageResources.status_layout_html
    public static let status_missing_html: [UInt8] = PackageResources.status_missing_html
    public static let status_page_html: [UInt8] = PackageResources.status_page_html
    public static let status_pages_html: [UInt8] = PackageResources.status_pages_html
    public static let twofactor_html: [UInt8] = PackageResources.twofactor_html
    public static let users_html: [UInt8] = PackageResources.users_html
}
