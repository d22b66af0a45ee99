import Core
import HTTP

/// Small text helpers shared by the admin pages.
enum WebFormat {
    /// `2026-11-30 16:54 UTC` (the hub works in UTC), or `never`.
    static func time(_ seconds: Int64?, never: String = "never") -> String {
        guard let seconds else { return never }
        let t = Time.rfc3339(seconds)
        // "2026-11-30T16:54:13Z" → "2026-11-30 16:54 UTC"
        return String(t.prefix(10)) + " " + String(t.dropFirst(11).prefix(5)) + " UTC"
    }

    /// The flash message after a redirect: `?flash=<key>` names one of the
    /// page's fixed messages (never text from the URL, so a link cannot make
    /// the hub say something it did not).
    static func flash(_ req: HTTPRequest, _ messages: [String: String]) -> String? {
        req.query("flash").flatMap { messages[$0] }
    }

    /// A row value that is always present: templates look names up from the
    /// innermost section outwards, so a missing key would show an outer one.
    static func text(_ s: String?) -> TemplateValue { .optional(s.flatMap { $0.isEmpty ? nil : $0 }) }
}
