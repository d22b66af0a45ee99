import Core

/// What a POST, PATCH or PUT body says about the object's `key`.
public enum KeyChange: Sendable, Equatable {
    /// The body has no `key`: a PATCH keeps the stored one, a create has none.
    case absent
    /// `"key": null` clears it.
    case clear
    case set(String)
}

/// The rules of a stable key (SPEC §13): 1–64 characters of `a-z`, `0-9`,
/// `.`, `_` and `-`, unique per kind. Keys are not lowercased for the caller
/// (unlike tags): a key is an identifier in files and URLs, and silently
/// changing it would make `apply` look for an object under another name.
public enum KeyRules {
    public static let maxLength = 64

    public static func isValid(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.count <= maxLength else { return false }
        return s.utf8.allSatisfy(isKeyByte)
    }

    static func isKeyByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): return true
        default: return false
        }
    }

    static let message = "key must be 1 to 64 characters of a-z, 0-9, '.', '_' and '-'."

    /// A key given in a URL (`…/by-key/{key}`).
    public static func validate(_ s: String, field: String = "key") throws(JSONFieldError) -> String {
        guard isValid(s) else { throw JSONFieldError(field: field, message: message) }
        return s
    }

    /// The body's `key` field.
    public static func change(in body: JSONFields) throws(JSONFieldError) -> KeyChange {
        guard body.has("key") else { return .absent }
        guard let s = try body.string("key") else { return .clear }
        return .set(try validate(s))
    }

    /// A key made from a name: lowercase, common accented Latin letters
    /// without their accents (`Ünïcode` → `unicode`), ASCII letters, digits,
    /// `.` and `_` kept, every other run of characters one `-`, trimmed, at
    /// most 56 characters (room for a `-NN` suffix that makes it unique); a
    /// name with nothing usable gives `fallback` (the kind: `monitor`).
    public static func slug(_ name: String, fallback: String) -> String {
        var out = ""
        var dash = false
        for ch in name.lowercased() {
            let plain: String = folded[ch] ?? String(ch)
            for b in plain.utf8 {
                let keep = (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                    || b == UInt8(ascii: ".") || b == UInt8(ascii: "_")
                if keep {
                    if dash && !out.isEmpty { out.append("-") }
                    out.unicodeScalars.append(Unicode.Scalar(b))
                    dash = false
                } else {
                    dash = true
                }
            }
            if out.utf8.count >= 56 { break }
        }
        return out.isEmpty ? fallback : out
    }

    static let folded: [Character: String] = {
        var m: [Character: String] = [:]
        let groups: [(String, String)] = [("àáâãäåā", "a"), ("çćč", "c"), ("èéêëēę", "e"), ("ìíîïī", "i"), ("ñń", "n"),
                                          ("òóôõöøō", "o"), ("ùúûüū", "u"), ("ýÿ", "y"), ("śš", "s"), ("źżž", "z"), ("ł", "l")]
        for (letters, plain) in groups { for c in letters { m[c] = plain } }
        m["ß"] = "ss"; m["æ"] = "ae"; m["œ"] = "oe"
        return m
    }()

    /// `base`, or `base-2`, `base-3`, … whichever is not in `taken`.
    public static func unique(_ base: String, taken: Set<String>) -> String {
        if !taken.contains(base) { return base }
        var n = 2
        while taken.contains("\(base)-\(n)") { n += 1 }
        return "\(base)-\(n)"
    }
}
