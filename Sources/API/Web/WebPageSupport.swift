import Core
import HTTP

extension HTTPRequest {
    /// Every value of a repeated form field (a multi-select), in order.
    func formValues(_ name: String) -> [String] {
        let type = headers["Content-Type"]?.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() }
        guard type == "application/x-www-form-urlencoded" else { return [] }
        return FormCoding.decode(String(decoding: body, as: UTF8.self)).filter { $0.name == name }.map(\.value)
    }
}

/// After a successful POST the page answers `303` to a GET page with
/// `?flash=<key>`; only keys from this list show a message, so a crafted
/// link cannot put arbitrary text on the page.
enum Flash {
    static let messages: [String: String] = [
        "created": "Monitor created.",
        "checked": "Check finished; the result is below.",
        "paused": "Monitor paused.",
        "resumed": "Monitor resumed.",
        "deleted": "Monitor deleted.",
        "priority-saved": "Alert priority saved.",
        "confirm-delete": "Nothing was deleted: tick the box to confirm that the monitor and its history go.",
        "acknowledged": "Incident acknowledged.",
        "policy-set": "Escalation policy saved.",
        "scheduled": "Maintenance window scheduled.",
        "window-deleted": "Maintenance window deleted.",
    ]

    static func message(_ req: HTTPRequest) -> String? {
        req.query("flash").flatMap { messages[$0] }
    }
}

/// Times as the pages show them: UTC, minutes, no seconds.
enum WebTime {
    /// `2026-11-30 16:54 UTC`
    static func text(_ seconds: Int64?) -> String {
        guard let seconds else { return "never" }
        let iso = Time.rfc3339(seconds)   // 2026-11-30T16:54:12Z
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5)) + " UTC"
    }

    /// The machine-readable form for `<time datetime>`.
    static func iso(_ seconds: Int64) -> String { Time.rfc3339(seconds) }

    /// A `datetime-local` value (`2026-11-30T16:54`, read as UTC) as RFC 3339;
    /// anything else is passed on unchanged so the API's validator names it.
    static func fromLocalInput(_ text: String) -> String {
        let t = Substring(text).trimmingSpaces()
        let b = Array(t.utf8)
        if b.count == 16, b[10] == UInt8(ascii: "T") { return t + ":00Z" }
        if b.count == 19, b[10] == UInt8(ascii: "T") { return t + "Z" }
        return t
    }

    /// RFC 3339 → a `datetime-local` value (UTC).
    static func localInput(_ seconds: Int64) -> String { String(Time.rfc3339(seconds).prefix(16)) }
}
