/// `application/x-www-form-urlencoded` and query-string coding.
public enum FormCoding {
    /// Splits `a=1&b=x%20y` into decoded pairs; malformed escapes stay as sent.
    public static func decode(_ text: String) -> [(name: String, value: String)] {
        guard !text.isEmpty else { return [] }
        var out: [(name: String, value: String)] = []
        for part in text.split(separator: "&", omittingEmptySubsequences: true) {
            if let eq = part.firstIndex(of: "=") {
                out.append((percentDecode(part[..<eq]), percentDecode(part[part.index(after: eq)...])))
            } else {
                out.append((percentDecode(part), ""))
            }
        }
        return out
    }

    /// Percent-decodes (with `+` as space in forms and queries, not in paths);
    /// invalid UTF-8 is repaired.
    public static func percentDecode(_ text: Substring, plusAsSpace: Bool = true) -> String {
        // Most path parameters (ids, ping keys) have nothing to decode: one
        // scan, one copy, where the loop below costs two arrays.
        // The scan over the contiguous bytes when there are (always, for a
        // native string): through the view's indices it was several times slower.
        let special = { (c: UInt8) in c == UInt8(ascii: "%") || (plusAsSpace && c == UInt8(ascii: "+")) }
        if !(text.utf8.withContiguousStorageIfAvailable { $0.contains(where: special) } ?? text.utf8.contains(where: special)) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = Array(text.utf8)[...]
        while let c = it.popFirst() {
            if plusAsSpace && c == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if c == UInt8(ascii: "%"), it.count >= 2,
                      let hi = hexValue(it[it.startIndex]), let lo = hexValue(it[it.startIndex + 1]) {
                bytes.append(hi << 4 | lo)
                it = it.dropFirst(2)
            } else {
                bytes.append(c)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    public static func percentEncode(_ text: String) -> String {
        var out = ""
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(digits[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(digits[Int(b & 0xF)]))
            }
        }
        return out
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
