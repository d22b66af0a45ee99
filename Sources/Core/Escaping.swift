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
        replacing(s) { scalar in
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
