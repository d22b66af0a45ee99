/// Text made safe for one markup by replacing single Unicode scalars: the
/// one loop behind HTML pages, Matrix's HTML body, Slack's three control
/// characters, Google Chat's angle brackets and Prometheus label values.
public enum Escaping {
    /// `s` with every scalar for which `replacement` answers a string
    /// replaced by it; every other scalar kept as it is.
    public static func replacing(_ s: some StringProtocol, _ replacement: (Unicode.Scalar) -> String?) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            if let r = replacement(scalar) { out += r } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// HTML text and double- or single-quoted attribute values: `& < > " '`.
    public static func html(_ s: some StringProtocol) -> String {
        // Most text has none of the five: one pass over the bytes, no scalar
        // loop (exact, since UTF-8 never puts an ASCII byte inside a
        // multi-byte character). 8 % of a 1,000-monitor status page before.
        guard s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
            return String(s)
        }
        return replacing(s) { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "'": "&#39;"
            default: nil
            }
        }
    }
}
