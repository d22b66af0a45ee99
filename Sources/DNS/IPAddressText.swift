/// Pure IPv4/IPv6 text ⇄ bytes, so A/AAAA values have one canonical form
/// (RFC 5952 for IPv6) independent of libc's `inet_ntop`.
public enum IPAddressText {
    /// "1.2.3.4" → 4 bytes. Exactly four decimal parts 0…255, no leading
    /// zeros beyond a lone "0" (so "010.1.1.1" is rejected, not octal).
    public static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(4)
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            if part.count > 1 && part.first == "0" { return nil }
            guard let v = Int(part), v <= 255 else { return nil }
            out.append(UInt8(v))
        }
        return out
    }

    public static func parseIPv4(_ text: String) -> [UInt8]? { parseIPv4(text[...]) }

    /// IPv6 text (any valid form: "::", "2001:db8:0::1", "::ffff:1.2.3.4",
    /// upper or lower case) → 16 bytes. No zone ("%eth0") here.
    public static func parseIPv6(_ text: String) -> [UInt8]? {
        let s = text[...]
        guard !s.isEmpty else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawGap = false
        // Split on "::" at most once.
        let pieces: [Substring]
        if let r = s.firstRange(of: "::") {
            sawGap = true
            let before = s[s.startIndex..<r.lowerBound]
            let after = s[r.upperBound...]
            if after.contains("::") { return nil }
            pieces = [before, after]
        } else {
            pieces = [s]
        }
        func groups(_ part: Substring, allowIPv4: Bool) -> [UInt16]? {
            if part.isEmpty { return [] }
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            var out: [UInt16] = []
            for (i, f) in fields.enumerated() {
                if i == fields.count - 1, allowIPv4, f.contains(".") {
                    guard let v4 = parseIPv4(f) else { return nil }
                    out.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                    out.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                    continue
                }
                guard !f.isEmpty, f.count <= 4, let v = UInt16(f, radix: 16),
                      f.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) })
                else { return nil }
                out.append(v)
            }
            return out
        }
        if sawGap {
            guard let h = groups(pieces[0], allowIPv4: false), let t = groups(pieces[1], allowIPv4: true) else { return nil }
            head = h
            tail = t
            guard head.count + tail.count <= 7 else { return nil }
        } else {
            guard let h = groups(pieces[0], allowIPv4: true), h.count == 8 else { return nil }
            head = h
        }
        let words = head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for w in words { out.append(UInt8(w >> 8)); out.append(UInt8(w & 0xFF)) }
        return out
    }

    /// Either family: 4 or 16 bytes, nil when the text is neither.
    public static func parse(_ text: String) -> [UInt8]? {
        parseIPv4(text) ?? (text.contains(":") ? parseIPv6(text) : nil)
    }

    public static func formatIPv4(_ b: some Collection<UInt8>) -> String {
        b.map { String($0) }.joined(separator: ".")
    }

    /// RFC 5952 §4: lowercase hex, no leading zeros, the longest run of two
    /// or more zero groups (the first when tied) becomes "::". §5: the
    /// IPv4-mapped prefix ::ffff:0:0/96 shows its last 32 bits dotted.
    public static func formatIPv6(_ bytes: some Collection<UInt8>) -> String {
        let b = Array(bytes)
        precondition(b.count == 16, "IPv6 address needs 16 bytes")
        var words: [UInt16] = []
        for i in stride(from: 0, to: 16, by: 2) { words.append(UInt16(b[i]) << 8 | UInt16(b[i + 1])) }
        if words[0..<5].allSatisfy({ $0 == 0 }) && words[5] == 0xFFFF {
            return "::ffff:" + formatIPv4(b[12..<16])
        }
        var bestStart = -1, bestLen = 0
        var i = 0
        while i < 8 {
            if words[i] == 0 {
                var j = i
                while j < 8 && words[j] == 0 { j += 1 }
                if j - i > bestLen { bestStart = i; bestLen = j - i }
                i = j
            } else {
                i += 1
            }
        }
        if bestLen < 2 { bestStart = -1 }
        var out = ""
        i = 0
        while i < 8 {
            if i == bestStart {
                out += "::"
                i += bestLen
                continue
            }
            if !out.isEmpty && !out.hasSuffix(":") { out += ":" }
            out += String(words[i], radix: 16)
            i += 1
        }
        return out
    }
}
