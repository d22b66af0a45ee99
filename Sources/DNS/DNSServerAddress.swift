#if canImport(Glibc)
import Glibc
#endif

/// A resolver address: an IP literal and a port (default 53).
/// Accepted text: `1.1.1.1`, `1.1.1.1:5353`, `::1`, `2606:4700::1111`,
/// `[2606:4700::1111]`, `[2606:4700::1111]:53`, and a zone on link-local
/// IPv6 (`fe80::1%eth0`, `[fe80::1%eth0]:53`). Host names are not accepted:
/// resolving the resolver would need a resolver.
public struct DNSServerAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 or 16 bytes.
    public let address: [UInt8]
    public let port: UInt16
    /// Interface index for scoped IPv6 (0 = none).
    public let scopeID: UInt32
    let zone: String?

    public var isIPv6: Bool { address.count == 16 }

    public init?(parsing text: String) {
        var host = text[...]
        var port: UInt16 = 53
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = Self.port(rest.dropFirst()) else { return nil }
                port = p
            }
            guard host.contains(":") else { return nil }
        } else if let colon = host.firstIndex(of: ":"), host[host.index(after: colon)...].firstIndex(of: ":") == nil {
            // Exactly one colon: IPv4 with a port.
            guard let p = Self.port(host[host.index(after: colon)...]) else { return nil }
            port = p
            host = host[..<colon]
        }
        var zone: String? = nil
        if let percent = host.firstIndex(of: "%") {
            zone = String(host[host.index(after: percent)...])
            host = host[..<percent]
            guard let z = zone, !z.isEmpty else { return nil }
        }
        if let v4 = IPAddressText.parseIPv4(host) {
            guard zone == nil else { return nil }
            self.address = v4
        } else if host.contains(":"), let v6 = IPAddressText.parseIPv6(String(host)) {
            self.address = v6
        } else {
            return nil
        }
        self.port = port
        self.zone = zone
        if let zone {
            if let n = UInt32(zone) {
                self.scopeID = n
            } else {
                let index = if_nametoindex(zone)
                guard index != 0 else { return nil }
                self.scopeID = index
            }
        } else {
            self.scopeID = 0
        }
    }

    private static func port(_ s: Substring) -> UInt16? {
        guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let p = UInt16(s), p > 0 else { return nil }
        return p
    }

    /// `1.1.1.1:53`, `[2606:4700::1111]:53`.
    public var description: String {
        if isIPv6 {
            return "[\(IPAddressText.formatIPv6(address))\(zone.map { "%" + $0 } ?? "")]:\(port)"
        }
        return "\(IPAddressText.formatIPv4(address)):\(port)"
    }

    /// Calls `body` with a filled sockaddr_in / sockaddr_in6.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        if isIPv6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = port.bigEndian
            sa.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &sa.sin6_addr) { raw in
                for i in 0..<16 { raw[i] = address[i] }
            }
            return withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = port.bigEndian
        withUnsafeMutableBytes(of: &sa.sin_addr) { raw in
            for i in 0..<4 { raw[i] = address[i] }
        }
        return withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
