/// An absolute `http`/`https` URL split into what a client needs
/// (RFC 3986). The fragment is dropped; userinfo is refused.
public struct ClientURL: Sendable, Equatable, CustomStringConvertible {
    public var scheme: String          // "http" | "https", lower-case
    /// Lower-cased host; IPv6 literals without brackets.
    public var host: String
    public var port: Int
    /// Path plus `?query`, never empty (`/` at least).
    public var target: String
    public var isIPv6Literal: Bool

    public var isTLS: Bool { scheme == "https" }
    public var defaultPort: Int { isTLS ? 443 : 80 }

    /// `host` or `host:port` (port only when not the default), brackets for IPv6.
    public var hostHeader: String {
        let h = isIPv6Literal ? "[\(host)]" : host
        return port == defaultPort ? h : "\(h):\(port)"
    }

    public var description: String { "\(scheme)://\(hostHeader)\(target)" }

    public init(scheme: String, host: String, port: Int, target: String, isIPv6Literal: Bool) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.target = target
        self.isIPv6Literal = isIPv6Literal
    }

    /// Parses an absolute URL; the error text says what is wrong.
    public static func parse(_ text: String) throws(ClientFailure) -> ClientURL {
        let bytes = Array(text.utf8)
        for b in bytes where b <= 0x20 || b == 0x7F {
            throw .invalidURL("contains whitespace or control characters")
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { throw .invalidURL("no scheme") }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else { throw .invalidURL("scheme must be http or https") }
        var i = colon + 1
        guard bytes.count >= i + 2,
              bytes[i] == UInt8(ascii: "/"), bytes[i + 1] == UInt8(ascii: "/") else {
            throw .invalidURL("missing //authority")
        }
        i += 2
        var end = i
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"),
              bytes[end] != UInt8(ascii: "#") { end += 1 }
        let authority = Array(bytes[i..<end])
        if authority.contains(UInt8(ascii: "@")) { throw .invalidURL("credentials in URLs are not supported") }
        var rest = Array(bytes[end...])
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest.removeSubrange(hash...) }
        var target = String(decoding: rest, as: UTF8.self)
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }

        var host: String
        var portText: [UInt8] = []
        var v6 = false
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw .invalidURL("unclosed [ in host") }
            host = String(decoding: authority[1..<close], as: UTF8.self).lowercased()
            guard IPAddress(literal: host)?.isIPv6 == true else { throw .invalidURL("bad IPv6 literal") }
            v6 = true
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { throw .invalidURL("junk after ]") }
                portText = Array(after.dropFirst())
            }
        } else {
            if let c = authority.firstIndex(of: UInt8(ascii: ":")) {
                host = String(decoding: authority[..<c], as: UTF8.self).lowercased()
                portText = Array(authority[(c + 1)...])
            } else {
                host = String(decoding: authority, as: UTF8.self).lowercased()
            }
            guard !host.isEmpty else { throw .invalidURL("empty host") }
            for b in host.utf8 {
                let ok = (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 45 || b == 46 || b == 95
                guard ok else { throw .invalidURL("bad character in host") }
            }
            if host.hasSuffix(".") && host.count > 1 { host.removeLast() }
        }
        var port = scheme == "https" ? 443 : 80
        if !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { throw .invalidURL("bad port") }
            port = portText.reduce(0) { $0 * 10 + Int($1 - 48) }
            guard port >= 1 && port <= 65535 else { throw .invalidURL("port out of range") }
        }
        return ClientURL(scheme: scheme, host: host, port: port, target: target, isIPv6Literal: v6)
    }

    /// Resolves a `Location` value against this URL (RFC 3986 §5.2).
    public func resolve(_ reference: String) throws(ClientFailure) -> ClientURL {
        let ref = reference.trimmingWhitespace()
        guard !ref.isEmpty else { return self }
        // Absolute: has a scheme (letters, digits, + - . before the first ':' and no '/' before it).
        if let colon = ref.utf8.firstIndex(of: UInt8(ascii: ":")) {
            let head = ref.utf8[..<colon]
            if let first = head.first, isAlpha(first),
               head.allSatisfy({ isAlpha($0) || ($0 >= 48 && $0 <= 57) || $0 == 43 || $0 == 45 || $0 == 46 }) {
                return try ClientURL.parse(ref)
            }
        }
        if ref.hasPrefix("//") { return try ClientURL.parse("\(scheme):\(ref)") }
        var refPath = ref
        if let hash = refPath.firstIndex(of: "#") { refPath = String(refPath[..<hash]) }
        let (basePath, _) = splitQuery(target)
        var out = self
        if refPath.isEmpty { return out }  // fragment only
        if refPath.hasPrefix("?") {
            out.target = basePath + refPath
            return out
        }
        let (rp, rq) = splitQuery(refPath)
        let merged: String
        if rp.hasPrefix("/") {
            merged = rp
        } else if rp.isEmpty {
            merged = basePath
        } else {
            let dir = basePath.lastIndex(of: "/").map { String(basePath[...$0]) } ?? "/"
            merged = dir + rp
        }
        out.target = removeDotSegments(merged) + rq
        if out.target.isEmpty || !out.target.hasPrefix("/") { out.target = "/" + out.target }
        return out
    }
}

private func isAlpha(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) }

private func splitQuery(_ s: String) -> (String, String) {
    if let q = s.firstIndex(of: "?") { return (String(s[..<q]), String(s[q...])) }
    return (s, "")
}

/// RFC 3986 §5.2.4.
func removeDotSegments(_ path: String) -> String {
    var input = Substring(path)
    var output: [Substring] = []
    var absolute = false
    if input.hasPrefix("/") { absolute = true }
    let segments = input.split(separator: "/", omittingEmptySubsequences: false)
    input = ""
    var trailingSlash = false
    for (n, seg) in segments.enumerated() {
        if n == 0 && absolute { continue }
        let last = n == segments.count - 1
        switch seg {
        case ".":
            if last { trailingSlash = true }
        case "..":
            if !output.isEmpty { output.removeLast() }
            if last { trailingSlash = true }
        default:
            output.append(seg)
            trailingSlash = false
        }
    }
    var result = (absolute ? "/" : "") + output.joined(separator: "/")
    if trailingSlash && !result.hasSuffix("/") { result += "/" }
    return result
}
