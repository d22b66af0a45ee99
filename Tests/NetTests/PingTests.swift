import Core
@testable import Net
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What this machine allows: ICMP datagram sockets need the process's group
/// inside `net.ipv4.ping_group_range` (icmp(7)); raw ones need CAP_NET_RAW.
enum ICMPPermission {
    static func allows(_ type: Int32, ipv6: Bool = false) -> Bool {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, type, Int32(ipv6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP))
        if fd >= 0 { close(fd) }
        return fd >= 0
    }
    static let datagram = allows(Int32(SOCK_DGRAM.rawValue))
    static let raw = allows(Int32(SOCK_RAW.rawValue))
    static let any = datagram || raw
    static var note: String {
        "ICMP sockets on this machine: datagram \(datagram ? "allowed" : "refused (net.ipv4.ping_group_range)"), raw \(raw ? "allowed" : "refused (no CAP_NET_RAW)")"
    }
}

@Suite struct ICMPPacketTests {
    @Test func checksumFollowsRFC1071() {
        // RFC 1071 §3's example bytes sum to ddf2; the checksum is its complement.
        #expect(ICMPPacket.checksum([0x00, 0x01, 0xF2, 0x03, 0xF4, 0xF5, 0xF6, 0xF7]) == ~UInt16(0xDDF2))
        let p = ICMPPacket.echoRequest(ipv6: false, identifier: 0x1234, sequence: 7, token: [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(Array(p[0..<2]) == [8, 0])
        #expect(Array(p[4..<8]) == [0x12, 0x34, 0, 7])
        #expect(ICMPPacket.checksum(p) == 0, "a packet with its checksum sums to zero")
        let v6 = ICMPPacket.echoRequest(ipv6: true, identifier: 1, sequence: 2, token: [9])
        #expect(Array(v6[0..<4]) == [128, 0, 0, 0], "the kernel computes ICMPv6 checksums")
    }

    @Test func repliesAreMatchedByTypeAndToken() {
        let token: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        var reply = ICMPPacket.echoRequest(ipv6: false, identifier: 0xBEEF, sequence: 3, token: token)
        reply[0] = 0
        #expect(ICMPPacket.parseReply(reply, ipv6: false, hasIPHeader: false, token: token)
            == ICMPPacket.Reply(identifier: 0xBEEF, sequence: 3))
        let ipHeader: [UInt8] = [0x45] + [UInt8](repeating: 0, count: 19)
        #expect(ICMPPacket.parseReply(ipHeader + reply, ipv6: false, hasIPHeader: true, token: token)?.sequence == 3)
        #expect(ICMPPacket.parseReply(reply, ipv6: false, hasIPHeader: false, token: [9, 9, 9, 9, 9, 9, 9, 9]) == nil, "another's ping")
        let request = ICMPPacket.echoRequest(ipv6: false, identifier: 0xBEEF, sequence: 3, token: token)
        #expect(ICMPPacket.parseReply(request, ipv6: false, hasIPHeader: false, token: token) == nil, "our request looped back")
        #expect(ICMPPacket.parseReply(Array(reply.prefix(10)), ipv6: false, hasIPHeader: false, token: token) == nil, "short")
        #expect(ICMPPacket.parseReply([0x4F] + reply, ipv6: false, hasIPHeader: true, token: token) == nil, "IHL past the end")
        #expect(ICMPPacket.parseReply([], ipv6: false, hasIPHeader: true, token: token) == nil)
        var v6 = ICMPPacket.echoRequest(ipv6: true, identifier: 5, sequence: 1, token: token)
        v6[0] = 129
        #expect(ICMPPacket.parseReply(v6, ipv6: true, hasIPHeader: false, token: token)?.identifier == 5)
        #expect(ICMPPacket.parseReply(v6, ipv6: false, hasIPHeader: false, token: token) == nil)
    }
}

@Suite(.serialized) struct EchoExchangeTests {
    static let loopback = IPAddress(literal: "127.0.0.1")!

    @Test func socketKindFollowsWhatTheSystemAllows() throws {
        print(ICMPPermission.note)
        switch ICMPSocket.open(ipv6: false) {
        case .success(let s):
            close(s.fd)
            #expect(s.kind == (ICMPPermission.datagram ? .datagram : .raw), "datagram first, raw as the fallback")
        case .failure(let f):
            #expect(!ICMPPermission.any, "\(f)")
            #expect(f.description.contains("ping_group_range") && f.description.contains("CAP_NET_RAW"))
        }
    }

    @Test(.enabled(if: ICMPPermission.raw, "raw ICMP sockets are refused here (no CAP_NET_RAW)"))
    func rawSocketPingsLoopback() {
        let r = EchoExchange.run(to: Self.loopback, count: 3, deadline: Time.monotonicNanos() + 2_000_000_000, allowDatagram: false)
        #expect(r.kind == .raw)
        #expect(r.failure == nil)
        #expect(r.sent == 3 && r.received == 3 && r.packetLoss == 0)
        #expect((r.meanMs ?? -1) >= 0 && (r.meanMs ?? 99) < 50)
    }

    @Test(.enabled(if: ICMPPermission.datagram, "ICMP datagram sockets are refused here: net.ipv4.ping_group_range excludes our group"))
    func datagramSocketPingsLoopback() {
        let r = EchoExchange.run(to: Self.loopback, count: 2, deadline: Time.monotonicNanos() + 2_000_000_000)
        #expect(r.kind == .datagram)
        #expect(r.sent == 2 && r.received == 2)
    }

    @Test(.enabled(if: ICMPPermission.allows(Int32(SOCK_RAW.rawValue), ipv6: true) || ICMPPermission.allows(Int32(SOCK_DGRAM.rawValue), ipv6: true),
                   "no ICMPv6 socket is allowed here"))
    func pingsIPv6Loopback() {
        let r = EchoExchange.run(to: IPAddress(literal: "::1")!, count: 2, deadline: Time.monotonicNanos() + 2_000_000_000)
        #expect(r.failure == nil)
        #expect(r.received == 2, "\(r)")
    }

    @Test(.enabled(if: ICMPPermission.any, "no ICMP socket is allowed here"))
    func stopsAtTheDeadlineWhenNothingAnswers() {
        // 198.51.100.0/24 is TEST-NET-2 (RFC 5737): nothing answers, or there is no route
        // (not TEST-NET-1: some sandboxes use 192.0.2.1 as their gateway).
        let started = Time.monotonicNanos()
        let r = EchoExchange.run(to: IPAddress(literal: "198.51.100.1")!, count: 3, deadline: started + 600_000_000)
        let tookMs = Double(Time.monotonicNanos() - started) / 1e6
        #expect(r.received == 0 && r.packetLoss == 1)
        #expect(tookMs < 800, "bounded by the deadline: \(tookMs) ms")
    }

    @Test(.enabled(if: ICMPPermission.any, "no ICMP socket is allowed here"))
    func engineResolvesNamesAndReportsFailures() {
        let engine = ClientEngine()
        defer { engine.shutdown() }
        let byName = engine.ping(host: "localhost", count: 1, timeoutMillis: 2000)
        #expect(byName.received == 1, "\(byName)")
        let unknown = engine.ping(host: "no-such-host.invalid", count: 1, timeoutMillis: 2000)
        #expect(unknown.sent == 0 && unknown.packetLoss == 1)
        #expect(unknown.failure.map { "\($0)".hasPrefix("DNS") } == true, "\(unknown)")
    }
}
