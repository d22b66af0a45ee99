import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A numeric IPv4 or IPv6 address (4 or 16 bytes, network order).
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]
    public var isIPv6: Bool { bytes.count == 16 }

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// `127.0.0.1`, `::1` (no brackets, no zone).
    public init?(literal: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, literal, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    public var description: String {
        var buf = [CChar](repeating: 0, count: 64)
        bytes.withUnsafeBytes { raw in
            _ = inet_ntop(isIPv6 ? AF_INET6 : AF_INET, raw.baseAddress, &buf, socklen_t(buf.count))
        }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Calls `body` with a sockaddr for this address and `port`.
    func withSockaddr<R>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        if isIPv6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = UInt16(port).bigEndian
            withUnsafeMutableBytes(of: &sa.sin6_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = UInt16(port).bigEndian
            withUnsafeMutableBytes(of: &sa.sin_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
    }
}
