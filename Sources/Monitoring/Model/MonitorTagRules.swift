import Core

/// The rules of tags (SPEC §12): at most 20, each 1–40 characters of
/// `[a-z0-9._:-]` after lowercasing. Upper case is accepted and stored
/// lowercase, so `Prod` and `prod` are one tag; duplicates are dropped.
public enum MonitorTagRules {
    public static let maxTags = 20
    public static let maxLength = 40

    /// The tag lowercased, or nil when it breaks the rules.
    public static func normalize(_ raw: String) -> String? {
        let tag = raw.lowercased()
        guard (1...maxLength).contains(tag.unicodeScalars.count),
              tag.unicodeScalars.allSatisfy({ s in
                  ("a"..."z").contains(s) || ("0"..."9").contains(s) || s == "." || s == "_" || s == ":" || s == "-"
              }) else { return nil }
        return tag
    }

    /// The validated tags of an array field (absent = none), sorted, each
    /// once; the error names the field, or the element that fails.
    public static func parse(_ b: JSONFields, _ field: String = "tags") throws(JSONFieldError) -> [String] {
        guard let raw = try b.stringArray(field) else { return [] }
        var out = Set<String>()
        for (i, item) in raw.enumerated() {
            guard let tag = normalize(item) else {
                throw JSONFieldError(field: "\(field)[\(i)]",
                                     message: "\(field)[\(i)] must be 1 to \(maxLength) characters of a-z, 0-9, '.', '_', ':' and '-'.")
            }
            out.insert(tag)
        }
        guard out.count <= maxTags else {
            throw JSONFieldError(field: field, message: "\(field) holds at most \(maxTags) tags.")
        }
        return out.sorted()
    }
}
