#if canImport(Glibc)
import Glibc
#endif

/// Addresses and CIDR ranges whose `X-Forwarded-For`/`X-Forwarded-Proto`
/// the server believes. Anyone else could forge them, so from other peers
/// they are ignored.
public struct TrustedProxies: Sendable {
    struct Range: Sendable {
        let bytes: [UInt8]
        let prefix: Int
        func contains(_ addr: [UInt8]) -> Bool {
            guard addr.count == bytes.count else { return false }
            var bits = prefix
            for i in 0..<bytes.count where bits > 0 {
                let take = min(8, bits)
                let mask: UInt8 = take == 8 ? 0xFF : ~(0xFF >> UInt8(take))
                if addr[i] & mask != bytes[i] & mask { return false }
                bits -= take
            }
            return true
        }
    }

    private var ranges: [Range] = []

    public init() {}

    /// Parses `10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`; nil when malformed.
    public init?(_ entries: [String]) {
        for entry in entries {
            let parts = entry.split(separator: "/", maxSplits: 1)
            guard let first = parts.first, let bytes = Self.parse(String(first)) else { return nil }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard let p = Int(parts[1]), p >= 0, p <= prefix else { return nil }
                prefix = p
            }
            ranges.append(Range(bytes: bytes, prefix: prefix))
        }
    }

    public var isEmpty: Bool { ranges.isEmpty }

    public func contains(_ address: String) -> Bool {
        guard !ranges.isEmpty, let bytes = Self.parse(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client's address and scheme given the peer and the request's headers.
    /// X-Forwarded-For is read from the right: the first hop that is not
    /// itself a trusted proxy is the client.
    public func resolve(peer: String, headers: HTTPHeaders) -> (address: String, scheme: String) {
        guard contains(peer) else { return (peer, "http") }
        var client = peer
        let hops = headers.values("X-Forwarded-For")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: " \t") }
            .filter { !$0.isEmpty }
        for hop in hops.reversed() {
            client = hop
            if !contains(hop) { break }
        }
        var scheme = "http"
        if let proto = headers["X-Forwarded-Proto"]?.split(separator: ",").last?.trimmingCharacters(in: " \t").lowercased(),
           proto == "https" || proto == "http" {
            scheme = proto
        }
        return (client, scheme)
    }

    static func parse(_ text: String) -> [UInt8]? {
        if text.contains(":") {
            var addr = in6_addr()
            guard inet_pton(AF_INET6, text, &addr) == 1 else { return nil }
            return withUnsafeBytes(of: &addr) { Array($0) }
        }
        var addr = in_addr()
        guard inet_pton(AF_INET, text, &addr) == 1 else { return nil }
        return withUnsafeBytes(of: &addr) { Array($0) }
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self[...]
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
