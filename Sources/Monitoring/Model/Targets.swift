import Core
#if canImport(Glibc)
import Glibc
#endif

/// Validation of monitor targets and small syntactic pieces. Any address is
/// allowed, loopback and private ranges included: hubs watch internal
/// services, and only write tokens can create monitors (SPEC §5).
enum Targets {
    static func validate(_ target: String?, type: MonitorType) throws(JSONFieldError) -> String? {
        switch type {
        case .heartbeat:
            if let target, !target.isEmpty {
                throw JSONFieldError(field: "target", message: "heartbeat monitors have no target; they are pinged at their ping_url.")
            }
            return nil
        case .http:
            guard let t = target?.trimmingWhitespace(), t.utf8.count <= 2048, let url = ParsedURL(t) else {
                throw JSONFieldError(field: "target", message: "target must be an http:// or https:// URL (at most 2048 bytes) such as https://api.example.com/health.")
            }
            _ = url
            return t
        case .tcp, .tls:
            guard let t = target?.trimmingWhitespace(), hostPort(t) != nil else {
                throw JSONFieldError(field: "target", message: "target must be host:port, such as db.internal:5432 or [::1]:443.")
            }
            return t
        case .ping:
            guard let t = target?.trimmingWhitespace(), isHostname(t) || isIPv6(t) else {
                throw JSONFieldError(field: "target", message: "target must be a host name or an IP address, such as db.internal, 10.0.0.5 or ::1.")
            }
            return t
        case .dns:
            guard let t = target?.trimmingWhitespace(), isHostname(t) else {
                throw JSONFieldError(field: "target", message: "target must be a host name such as example.com.")
            }
            return t
        }
    }

    /// `host:port` with IPv6 in brackets; port 1–65535.
    static func hostPort(_ text: String) -> (host: String, port: Int)? {
        var host: Substring
        var portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard isIPv6(String(host)) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard isHostname(String(host)) else { return nil }
        }
        guard let port = Int(portText), (1...65_535).contains(port), portText.allSatisfy(\.isNumber) else { return nil }
        return (String(host), port)
    }

    /// Host names (RFC 1123 labels) and IPv4 literals.
    static func isHostname(_ s: String) -> Bool {
        let name = s.hasSuffix(".") ? String(s.dropLast()) : s
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { c in
                    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 45 || c == 95
                }
        }
    }

    static func isIPv6(_ s: String) -> Bool {
        var addr = in6_addr()
        return inet_pton(AF_INET6, s, &addr) == 1
    }

    static func isIPv4(_ s: String) -> Bool {
        var addr = in_addr()
        return inet_pton(AF_INET, s, &addr) == 1
    }

    /// `1.1.1.1`, `1.1.1.1:53`, `::1`, `[::1]:53`.
    static func isResolverAddress(_ s: String) -> Bool {
        if isIPv4(s) || isIPv6(s) { return true }
        if let hp = hostPort(s) { return isIPv4(hp.host) || isIPv6(hp.host) }
        return false
    }

    static func isLocationName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64 && s.utf8.allSatisfy { c in
            (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 45 || c == 95
        }
    }

    static func isHeaderName(_ s: String) -> Bool {
        let tchar = Set("!#$%&'*+-.^_`|~".utf8)
        return !s.isEmpty && s.utf8.allSatisfy { c in
            (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || tchar.contains(c)
        }
    }

    static func isHeaderValue(_ s: String) -> Bool {
        s.utf8.allSatisfy { $0 == 9 || ($0 >= 32 && $0 != 127) }
    }
}

/// The parts of an http(s) URL a monitor needs: scheme, host, port.
public struct ParsedURL: Sendable, Equatable {
    public let scheme: String
    public let host: String
    public let port: Int

    public init?(_ text: String) {
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else { return nil }
        guard !text.contains(where: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }) else { return nil }
        let rest = text.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            guard Targets.isIPv6(host) else { return nil }
            let after = authority[authority.index(after: close)...]
            if after.isEmpty {
                port = defaultPort
            } else {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65_535).contains(p) else { return nil }
                port = p
            }
            self.host = host
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2, Targets.isHostname(String(parts[0])) else { return nil }
            if parts.count == 2 {
                guard let p = Int(parts[1]), (1...65_535).contains(p) else { return nil }
                port = p
            } else {
                port = defaultPort
            }
            host = String(parts[0])
        }
        self.scheme = scheme
    }
}
