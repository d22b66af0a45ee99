/// Whether a host name or address literal (as in a URL, brackets allowed)
/// is this machine: `localhost`, `::1` (in any spelling of its zeros) or a
/// dotted quad 127.x.y.z. The one rule behind every "plain http (or SMTP
/// without TLS) only to loopback" check; stricter than a `127.` prefix,
/// because `127.0.0.1.example.com` is a public name.
public enum LoopbackHost {
    public static func contains(_ host: some StringProtocol) -> Bool {
        var h = host.lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h == "localhost" { return true }
        if h.contains(":") { return isIPv6Loopback(h) }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { p in !p.isEmpty && p.count <= 3 && p.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } && Int(p)! <= 255 }
    }

    /// `::1`, `0::1`, `0:0:0:0:0:0:0:1` and the like: every group zero but the last, which is 1.
    private static func isIPv6Loopback(_ h: String) -> Bool {
        let halves = h.components(separatedByDoubleColon: ())
        let groups: [Substring]
        switch halves.count {
        case 1: groups = h.split(separator: ":", omittingEmptySubsequences: false)
        case 2:
            let head = halves[0].isEmpty ? [] : halves[0].split(separator: ":", omittingEmptySubsequences: false)
            let tail = halves[1].isEmpty ? [] : halves[1].split(separator: ":", omittingEmptySubsequences: false)
            guard head.count + tail.count < 8 else { return false }
            groups = head + Array(repeating: "0", count: 8 - head.count - tail.count) + tail
        default: return false
        }
        guard groups.count == 8, let last = groups.last,
              groups.allSatisfy({ !$0.isEmpty && $0.count <= 4 && $0.allSatisfy(\.isHexDigit) }) else { return false }
        return groups.dropLast().allSatisfy { Int($0, radix: 16) == 0 } && Int(last, radix: 16) == 1
    }
}

private extension String {
    /// Split once on the first "::" (more than one is not an address).
    func components(separatedByDoubleColon _: Void) -> [Substring] {
        var parts: [Substring] = []
        var rest = self[...]
        while let r = rest.firstRange(of: "::") {
            parts.append(rest[..<r.lowerBound])
            rest = rest[r.upperBound...]
        }
        parts.append(rest)
        return parts
    }
}
