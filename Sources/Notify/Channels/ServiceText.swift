import Core

/// Text shaping shared by the paging and chat services added in issue 13:
/// the unit their limits are cut in, HTML escaping, path segments, and
/// reading a service's error reason. Pure.
enum ServiceText {
    /// The unit of services that count "characters" (PagerDuty, Opsgenie,
    /// Pushover's "4-byte UTF-8 characters") in `TextLimit.cut`: they count
    /// code points at most, so a scalar bound is safe whatever they mean by
    /// a character. Google Chat and Matrix bound their messages in UTF-8 bytes.
    static let unit = TextLimit.Unit.unicodeScalars

    /// Text for an HTML body (Matrix `formatted_body`): `&`, `<`, `>`, `"`
    /// and `'` become entities, so a monitor name is never markup.
    static func html(_ s: String) -> String { Escaping.html(s) }

    /// One URL path segment: every byte but RFC 3986's unreserved characters
    /// percent-encoded (a Matrix room id's `!` and `:`, an alias's `/`).
    static func pathSegment(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            let unreserved = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
                || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
            if unreserved {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "%" + String(b >> 4, radix: 16, uppercase: true) + String(b & 0x0F, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// A service's reason from its JSON error body: the string at each of
    /// `keys` (joined with ": "), where a value may be a string, an array of
    /// strings, or an object of strings (Opsgenie's `errors`).
    static func reason(_ json: JSON?, _ keys: [String]) -> String? {
        guard let json else { return nil }
        var parts: [String] = []
        for k in keys {
            switch json[k] {
            case .string(let s)? where !s.isEmpty: parts.append(s)
            case .array(let items)?:
                let texts = items.compactMap(\.stringValue).filter { !$0.isEmpty }
                if !texts.isEmpty { parts.append(texts.joined(separator: "; ")) }
            case .object(let o)?:
                let texts = o.entries.compactMap { e in e.value.stringValue.map { "\(e.key): \($0)" } }
                if !texts.isEmpty { parts.append(texts.joined(separator: "; ")) }
            default: break
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: ": ")
    }
}
