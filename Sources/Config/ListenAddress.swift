#if canImport(Glibc)
import Glibc
#endif

/// A value that failed validation; `message` says why.
public struct InvalidValue: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Where the HTTP server listens: `host:port`, with IPv6 literals in
/// brackets (`[::1]:8080`). Port 0 asks the kernel for any free port.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case ipv4, ipv6, hostname }

    /// The host without brackets: `127.0.0.1`, `::1`, `localhost`.
    public var host: String
    public var port: Int
    public var family: Family

    public init(host: String, port: Int, family: Family) {
        self.host = host
        self.port = port
        self.family = family
    }

    /// Parses `host:port`; IPv6 addresses must be bracketed.
    public init(parsing text: String) throws(InvalidValue) {
        let example = "expected host:port, e.g. 127.0.0.1:8080 or [::1]:8080"
        guard !text.isEmpty else { throw InvalidValue("is empty; \(example)") }
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw InvalidValue("\"\(text)\": missing ']' after IPv6 address") }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw InvalidValue("\"\(text)\": missing ':port' after ']'") }
            portPart = rest.dropFirst()
            guard IPNetwork.parseAddress(String(hostPart))?.count == 16 else {
                throw InvalidValue("\"\(text)\": invalid IPv6 address \"\(hostPart)\"")
            }
            family = .ipv6
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw InvalidValue("\"\(text)\": missing port; \(example)") }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") {
                throw InvalidValue("\"\(text)\": IPv6 addresses must be in brackets, e.g. [::1]:8080")
            }
            guard !hostPart.isEmpty else {
                throw InvalidValue("\"\(text)\": missing host (use 0.0.0.0 for all IPv4 interfaces or [::] for all IPv6 interfaces)")
            }
            if hostPart.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
                guard IPNetwork.parseAddress(String(hostPart))?.count == 4 else {
                    throw InvalidValue("\"\(text)\": invalid IPv4 address \"\(hostPart)\"")
                }
                family = .ipv4
            } else {
                guard ListenAddress.isHostname(hostPart) else { throw InvalidValue("\"\(text)\": invalid host name \"\(hostPart)\"") }
                family = .hostname
            }
        }
        guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portPart) else {
            throw InvalidValue("\"\(text)\": invalid port \"\(portPart)\"; \(example)")
        }
        guard port <= 65535 else { throw InvalidValue("\"\(text)\": port must be between 0 and 65535") }
        self.host = String(hostPart)
        self.port = port
    }

    /// `host:port`, bracketing IPv6 hosts.
    public var description: String { family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static func isHostname(_ s: Substring) -> Bool {
        guard s.utf8.count <= 253 else { return false }
        let labels = s.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}

/// An IPv4 or IPv6 address or CIDR block (`10.0.0.0/8`, `::1`), as used by
/// `server.trusted_proxies`.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// 4 or 16 bytes in network order, host bits cleared.
    public let address: [UInt8]
    public let prefixLength: Int

    public var isIPv6: Bool { address.count == 16 }

    public init(parsing text: String) throws(InvalidValue) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = IPNetwork.parseAddress(String(parts[0])) else {
            throw InvalidValue("\"\(text)\" is not an IP address or CIDR block (e.g. 10.0.0.0/8, ::1)")
        }
        let bits = bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].count <= 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
                  let n = Int(parts[1]), n <= bits else {
                throw InvalidValue("\"\(text)\": prefix length must be between 0 and \(bits)")
            }
            length = n
        }
        self.address = IPNetwork.mask(bytes, length)
        self.prefixLength = length
    }

    /// Whether `address` (4 or 16 bytes) is inside this block. IPv4-mapped
    /// IPv6 addresses (`::ffff:a.b.c.d`) match IPv4 blocks.
    public func contains(_ other: [UInt8]) -> Bool {
        var candidate = other
        if address.count == 4, other.count == 16, other[0..<10].allSatisfy({ $0 == 0 }), other[10] == 0xFF, other[11] == 0xFF {
            candidate = Array(other[12...])
        }
        guard candidate.count == address.count else { return false }
        return IPNetwork.mask(candidate, prefixLength) == address
    }

    /// Whether the textual address is inside this block (false if it doesn't parse).
    public func contains(_ text: String) -> Bool {
        guard let bytes = IPNetwork.parseAddress(text) else { return false }
        return contains(bytes)
    }

    /// Address text, plus `/len` unless the block is a single address.
    public var description: String {
        let text = IPNetwork.format(address)
        return prefixLength == address.count * 8 ? text : "\(text)/\(prefixLength)"
    }

    /// Parses an IPv4 (dotted quad) or IPv6 address into 4 or 16 bytes.
    public static func parseAddress(_ text: String) -> [UInt8]? {
        var v4 = [UInt8](repeating: 0, count: 4)
        if text.withCString({ inet_pton(AF_INET, $0, &v4) }) == 1 { return v4 }
        var v6 = [UInt8](repeating: 0, count: 16)
        if text.withCString({ inet_pton(AF_INET6, $0, &v6) }) == 1 { return v6 }
        return nil
    }

    /// Canonical text of a 4- or 16-byte address.
    public static func format(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, bytes, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        let utf8 = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        return String(decoding: utf8, as: UTF8.self)
    }

    static func mask(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        var out = bytes
        for k in 0..<out.count {
            let keep = max(0, min(8, length - k * 8))
            out[k] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
        return out
    }
}
