import Core

/// A status page as the API (and the admin form) accepts it. One validator
/// for both, so the form's error box says what the API would.
public struct StatusPageInput: Sendable, Equatable {
    public var slug: String
    public var title: String
    public var description: String
    /// In display order, without duplicates.
    public var monitorIDs: [Int64]
    /// Monitors with any of these tags are listed after `monitorIDs`.
    public var tags: [String]

    public init(slug: String, title: String, description: String, monitorIDs: [Int64], tags: [String] = []) {
        self.slug = slug
        self.title = title
        self.description = description
        self.monitorIDs = monitorIDs
        self.tags = tags
    }

    /// What one page lists at most (its ids, or ids plus tagged monitors).
    /// Its reads are batched (`BatchReads`) and its closed days kept
    /// (`ClosedDaysCache`); 1,000 monitors are 662 KB of HTML and 5.3 MB of
    /// JSON (bench/pages.sh, bench/README.md).
    public static let maxMonitors = 1000

    /// Validates a create body, or a PATCH merged onto `existing`. Whether
    /// the monitors exist is checked by the service (it needs the database).
    public static func parse(_ b: JSONFields, existing: StatusPageInput? = nil) throws(JSONFieldError) -> StatusPageInput {
        let title = Substring(try b.string("title") ?? existing?.title ?? "").trimmingSpaces()
        guard !title.isEmpty, TextLimit.fits(String(title), characters: 200) else {
            throw JSONFieldError(field: "title", message: "title is required, at most \(TextLimit.describe(characters: 200)).")
        }
        let slug = try b.string("slug") ?? existing?.slug ?? ""
        guard validSlug(slug) else {
            throw JSONFieldError(field: "slug", message: "slug must be 1 to 64 characters of a-z, 0-9 and -, not starting with -.")
        }
        let description = Substring(try b.string("description") ?? existing?.description ?? "").trimmingSpaces()
        guard TextLimit.fits(String(description), characters: 2000) else {
            throw JSONFieldError(field: "description", message: "description is at most \(TextLimit.describe(characters: 2000)).")
        }
        var ids = existing?.monitorIDs ?? []
        if b.has("monitor_ids") {
            guard let items = b.object["monitor_ids"]?.arrayValue else {
                throw JSONFieldError(field: "monitor_ids", message: "monitor_ids must be an array of monitor ids.")
            }
            ids = []
            for (i, item) in items.enumerated() {
                guard let id = item.intValue, id > 0 else {
                    throw JSONFieldError(field: "monitor_ids[\(i)]", message: "monitor_ids[\(i)] must be a monitor id.")
                }
                if !ids.contains(id) { ids.append(id) }
            }
            guard ids.count <= maxMonitors else {
                throw JSONFieldError(field: "monitor_ids", message: "a status page lists at most \(maxMonitors) monitors.")
            }
        }
        let tags = b.has("tags") ? try MonitorTagRules.parse(b) : existing?.tags ?? []
        return StatusPageInput(slug: slug, title: title, description: description, monitorIDs: ids, tags: tags)
    }

    /// 1–64 of `a-z 0-9 -`, not starting with `-`: safe in a URL path and
    /// a file-like suffix (`.json`, `/badge/`) can never be part of one.
    public static func validSlug(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        guard (1...64).contains(bytes.count), bytes[0] != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }
    }
}
