/// ICMP echo packets (RFC 792 for IPv4, RFC 4443 §4 for ICMPv6):
/// type, code, checksum, identifier, sequence, then our payload, a token
/// that tells our replies from anyone else's on a raw socket.
enum ICMPPacket {
    static let echoRequestV4: UInt8 = 8, echoReplyV4: UInt8 = 0
    static let echoRequestV6: UInt8 = 128, echoReplyV6: UInt8 = 129

    static func echoRequest(ipv6: Bool, identifier: UInt16, sequence: UInt16, token: [UInt8]) -> [UInt8] {
        var p: [UInt8] = [ipv6 ? echoRequestV6 : echoRequestV4, 0, 0, 0,
                          UInt8(identifier >> 8), UInt8(identifier & 0xFF), UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        p.append(contentsOf: token)
        // The kernel fills in the ICMPv6 checksum (it covers a pseudo-header
        // we do not see); an IPv4 raw socket sends ours as is.
        if !ipv6 {
            let sum = checksum(p)
            p[2] = UInt8(sum >> 8)
            p[3] = UInt8(sum & 0xFF)
        }
        return p
    }

    /// The Internet checksum (RFC 1071).
    static func checksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var i = 0
        while i + 1 < bytes.count {
            sum += UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1])
            i += 2
        }
        if i < bytes.count { sum += UInt32(bytes[i]) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }

    struct Reply: Equatable {
        let identifier: UInt16
        let sequence: UInt16
    }

    /// An echo reply carrying `token`, or nil for anything else (our own
    /// requests looped back on `lo`, other processes' pings, errors).
    /// `hasIPHeader`: IPv4 raw sockets deliver the IP header first.
    static func parseReply(_ b: [UInt8], ipv6: Bool, hasIPHeader: Bool, token: [UInt8]) -> Reply? {
        var start = 0
        if hasIPHeader {
            guard let first = b.first, first >> 4 == 4 else { return nil }
            start = Int(first & 0x0F) * 4
        }
        guard start >= 0, b.count >= start + 8 + token.count else { return nil }
        guard b[start] == (ipv6 ? echoReplyV6 : echoReplyV4), b[start + 1] == 0 else { return nil }
        guard b[(start + 8)..<(start + 8 + token.count)].elementsEqual(token) else { return nil }
        return Reply(identifier: UInt16(b[start + 4]) << 8 | UInt16(b[start + 5]),
                     sequence: UInt16(b[start + 6]) << 8 | UInt16(b[start + 7]))
    }
}
