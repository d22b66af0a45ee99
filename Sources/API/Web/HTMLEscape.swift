/// HTML escaping for every value a page shows. One helper, used for text and
/// for attribute values (always double-quoted in our templates), so there is
/// no second, subtly different escaper to forget.
enum HTML {
    /// Escapes `& < > " '`: enough for element text and quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}

/// Shorthand for templates: `\(h(value))`.
func h(_ text: String) -> String { HTML.escape(text) }
