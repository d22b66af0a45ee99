import CLinux
import Core
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What an echo exchange saw.
public struct PingResult: Sendable, Equatable {
    public var sent = 0
    /// Round trips of the replies that came back, in milliseconds.
    public var roundTripsMs: [Double] = []
    public var kind: ICMPSocketKind?
    public var address: IPAddress?
    public var failure: PingFailure?

    public init() {}

    public var received: Int { roundTripsMs.count }
    /// 0–1; 1 when nothing was sent.
    public var packetLoss: Double { sent == 0 ? 1 : Double(sent - received) / Double(sent) }
    public var meanMs: Double? { roundTripsMs.isEmpty ? nil : roundTripsMs.reduce(0, +) / Double(roundTripsMs.count) }
}

/// One ping check: `count` echo requests to one address over one
/// non-blocking socket, sequentially spaced, waiting with `poll` and never
/// past `deadline` (monotonic nanoseconds). Runs on a ping worker thread.
enum EchoExchange {
    /// Gap between requests: `ping -i 0.2`, the shortest interval ping(8)
    /// allows without privilege; shorter when the timeout would not fit them.
    static let spacingNanos: UInt64 = 200_000_000

    private static let identifiers = Atomic<UInt32>(UInt32(truncatingIfNeeded: getpid()) &* 2_654_435_761)

    static func run(to address: IPAddress, count: Int, deadline: UInt64, allowDatagram: Bool = true) -> PingResult {
        var result = PingResult()
        result.address = address
        let fd: Int32
        switch ICMPSocket.open(ipv6: address.isIPv6, allowDatagram: allowDatagram) {
        case .failure(let f):
            result.failure = f
            return result
        case .success(let s):
            fd = s.fd
            result.kind = s.kind
        }
        defer { close(fd) }
        // A datagram socket's identifier is its bound "port", set by the
        // kernel (icmp(7)), and its replies are filtered for it; a raw
        // socket's is ours, so we pick a fresh one per exchange.
        let identifier = UInt16(truncatingIfNeeded: identifiers.wrappingAdd(40_503, ordering: .relaxed).newValue >> 8)
        let token = makeToken()
        let start = Time.monotonicNanos()
        let budget = deadline > start ? deadline - start : 0
        let spacing = min(spacingNanos, budget / UInt64(max(count, 1)))
        var sentAt = [UInt64](repeating: 0, count: count)
        var answered = [Bool](repeating: false, count: count)
        var nextSend = start
        var buffer = [UInt8](repeating: 0, count: 1500)

        while true {
            let now = Time.monotonicNanos()
            if now >= deadline { break }
            if result.sent < count && now >= nextSend {
                let seq = UInt16(result.sent + 1)
                let packet = ICMPPacket.echoRequest(ipv6: address.isIPv6, identifier: identifier, sequence: seq, token: token)
                let n = address.withSockaddr(port: 0) { sa, len in
                    packet.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, len) }
                }
                if n < 0 && errno != EAGAIN && errno != EINTR {
                    if result.sent == 0 { result.failure = .send(SystemError("sendto", errno: errno).description) }
                    break
                }
                sentAt[result.sent] = Time.monotonicNanos()
                result.sent += 1
                nextSend = now + spacing
                continue
            }
            if result.sent == count && answered.allSatisfy({ $0 }) { break }
            let wakeAt = result.sent < count ? min(nextSend, deadline) : deadline
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let waitMs = Int32(clamping: (wakeAt - min(wakeAt, now) + 999_999) / 1_000_000)
            if poll(&pfd, 1, waitMs) <= 0 { continue }
            drain(fd, &buffer, result.kind == .raw && !address.isIPv6, address.isIPv6, token,
                  result.kind == .raw ? identifier : nil) { seq in
                let i = Int(seq) - 1
                guard i >= 0, i < result.sent, !answered[i] else { return }
                answered[i] = true
                result.roundTripsMs.append(Double(Time.monotonicNanos() - sentAt[i]) / 1e6)
            }
        }
        return result
    }

    /// Reads every datagram waiting and reports the sequence numbers of our replies.
    private static func drain(_ fd: Int32, _ buffer: inout [UInt8], _ hasIPHeader: Bool, _ ipv6: Bool, _ token: [UInt8],
                              _ identifier: UInt16?, _ onReply: (UInt16) -> Void) {
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 { return }
            guard let reply = ICMPPacket.parseReply(Array(buffer[0..<n]), ipv6: ipv6, hasIPHeader: hasIPHeader, token: token)
            else { continue }
            if let identifier, reply.identifier != identifier { continue }
            onReply(reply.sequence)
        }
    }

    /// 8 bytes that no other exchange uses: the monotonic clock and a counter.
    private static func makeToken() -> [UInt8] {
        let n = Time.monotonicNanos() ^ UInt64(identifiers.load(ordering: .relaxed)) << 40
        return (0..<8).map { UInt8(truncatingIfNeeded: n >> (8 * UInt64($0))) }
    }
}
