import CLinux
import Core
import DNS
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A real authoritative-style DNS server for client tests: UDP and TCP on
/// the same 127.0.0.1 port, its own thread, answers from a fixed table.
/// Names not in the table get NXDOMAIN (with an SOA); a known name asked for
/// a type it lacks gets an empty NOERROR. UDP answers larger than the
/// query's payload size (EDNS, else 512) go out with TC=1 and no records.
public final class TestDNSServer: Sendable {
    public enum Behavior: Sendable {
        /// Answer with these records (owner names as given).
        case records([DNSRecord])
        case nxDomain
        case servFail
        /// Read the query, never answer (UDP and TCP).
        case drop
        /// UDP: first an answer with a wrong id, then the right one.
        case wrongIDFirst([DNSRecord])
        /// UDP: first an answer with the right id for another question.
        case wrongQuestionFirst([DNSRecord])
        /// UDP: an id-matching datagram that does not parse; no real answer.
        case garbage
        /// UDP as `.records` (so TC when large); TCP closes without answering.
        case tcpClosesEarly([DNSRecord])
        /// FORMERR (without OPT) to queries carrying EDNS, records otherwise.
        case formErrIfEDNS([DNSRecord])
    }

    public let port: UInt16
    /// Every query received (UDP and TCP).
    public let udpQueries = Atomic<Int>(0)
    public let tcpQueries = Atomic<Int>(0)
    /// Questions seen with EDNS present, for assertions.
    public let ednsQueries = Atomic<Int>(0)

    private let table: [String: Behavior]
    private let dropAll: Bool
    private let udpFD: Int32
    private let tcpFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let thread = Mutex<ThreadHandle?>(nil)

    public static func key(_ name: String, _ type: DNSRecordType) -> String { "\(name) \(type.name)" }

    /// `table` keys are `"name TYPE"` (see `key`); `dropAll` answers nothing.
    public init(_ table: [String: Behavior] = [:], dropAll: Bool = false) throws {
        self.table = table
        self.dropAll = dropAll
        var found: (Int32, Int32, UInt16)? = nil
        for _ in 0..<50 {
            let u = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard u >= 0 else { throw SystemError("socket", errno: errno) }
            var addr = Self.loopback(port: 0)
            guard Self.bind(u, &addr) == 0 else { close(u); throw SystemError("bind udp", errno: errno) }
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(u, $0, &len) }
            }
            let port = UInt16(bigEndian: addr.sin_port)
            let t = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var one: Int32 = 1
            setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var taddr = Self.loopback(port: port)
            if Self.bind(t, &taddr) == 0 && listen(t, 16) == 0 {
                found = (u, t, port)
                break
            }
            close(u)
            close(t) // port taken for TCP: try another one
        }
        guard let (u, t, p) = found else { throw SystemError("bind same port", errno: EADDRINUSE) }
        udpFD = u
        tcpFD = t
        port = p
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SystemError("pipe", errno: errno) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        let handle = startThread(name: "test-dns") { [self] in self.run() }
        thread.withLock { $0 = handle }
    }

    /// "127.0.0.1:port"
    public var address: String { "127.0.0.1:\(port)" }

    public func stop() {
        var b: UInt8 = 1
        _ = write(wakeWrite, &b, 1)
        let handle = thread.withLock { h -> ThreadHandle? in defer { h = nil }; return h }
        handle?.join()
        close(udpFD)
        close(tcpFD)
        close(wakeRead)
        close(wakeWrite)
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return addr
    }

    private static func bind(_ fd: Int32, _ addr: inout sockaddr_in) -> Int32 {
        withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    // MARK: - Serving

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 65535)
        while true {
            var fds = [pollfd(fd: udpFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: tcpFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let rc = poll(&fds, 3, -1)
            if rc < 0 { if errno == EINTR { continue }; return }
            if fds[2].revents != 0 { return }
            if fds[0].revents != 0 { serveUDP(&buffer) }
            if fds[1].revents != 0 { serveTCP() }
        }
    }

    private func serveUDP(_ buffer: inout [UInt8]) {
        var peer = sockaddr_storage()
        var peerLen = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let n = buffer.withUnsafeMutableBytes { buf in
            withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(udpFD, buf.baseAddress, buf.count, Int32(MSG_DONTWAIT), $0, &peerLen)
                }
            }
        }
        guard n > 0 else { return }
        udpQueries.add(1, ordering: .relaxed)
        guard !dropAll, let query = try? DNSMessage.parse(Array(buffer[0..<n])) else { return }
        if query.edns != nil { ednsQueries.add(1, ordering: .relaxed) }
        func reply(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { b in
                withUnsafePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(udpFD, b.baseAddress, b.count, 0, $0, peerLen)
                    }
                }
            }
        }
        let behavior = self.behavior(for: query)
        switch behavior {
        case .drop?:
            return
        case .garbage?:
            // Right id and question, then an A record whose RDATA is cut off.
            var m = response(to: query, records: [], rcode: 0)
            m.header.truncated = false
            var bytes = (try? m.encode()) ?? []
            bytes[7] = 1 // ANCOUNT = 1 with no record following
            reply(bytes)
            return
        case .wrongIDFirst(let records)?:
            var fake = response(to: query, records: records.map { r in
                var r = r; r.data = .a([6, 6, 6, 6]); r.type = .a; return r
            }, rcode: 0)
            fake.header.id ^= 0x5A5A
            reply((try? fake.encode()) ?? [])
        case .wrongQuestionFirst?:
            var fake = response(to: query, records: [DNSRecord(name: "evil.example", type: .a, ttl: 1,
                                                               data: .a([6, 6, 6, 6]))], rcode: 0)
            fake.questions = [DNSQuestion(name: "evil.example", type: .a)]
            reply((try? fake.encode()) ?? [])
        default:
            break
        }
        var message = answer(to: query, behavior)
        var bytes = (try? message.encode()) ?? []
        let limit = Int(query.edns.map { max(512, $0.udpPayloadSize) } ?? 512)
        if bytes.count > limit {
            message.answers = []
            message.authority = []
            message.additional = []
            message.header.truncated = true
            bytes = (try? message.encode()) ?? []
        }
        reply(bytes)
    }

    /// One connection at a time, inline: read length-prefixed queries until
    /// EOF, answer each in small pieces so the client sees partial reads.
    private func serveTCP() {
        let conn = accept(tcpFD, nil, nil)
        guard conn >= 0 else { return }
        defer { close(conn) }
        var tv = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        while true {
            guard let lengthBytes = readExactly(conn, 2) else { return }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard let body = readExactly(conn, length) else { return }
            tcpQueries.add(1, ordering: .relaxed)
            if dropAll { return }
            guard let query = try? DNSMessage.parse(body) else { return }
            if query.edns != nil { ednsQueries.add(1, ordering: .relaxed) }
            let behavior = self.behavior(for: query)
            if case .drop? = behavior { return }
            if case .tcpClosesEarly? = behavior { return }
            guard let bytes = try? answer(to: query, behavior).encode() else { return }
            var framed: [UInt8] = [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)]
            framed.append(contentsOf: bytes)
            // Length prefix split across writes, body in two halves.
            let cuts = [0, 1, 2, 2 + bytes.count / 2, framed.count]
            for i in 0..<(cuts.count - 1) where cuts[i] < cuts[i + 1] {
                writeAll(conn, Array(framed[cuts[i]..<cuts[i + 1]]))
                usleep(5_000)
            }
        }
    }

    private func readExactly(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, count - got) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            got += n
        }
        return out
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            off += n
        }
    }

    // MARK: - Answers

    private func behavior(for query: DNSMessage) -> Behavior? {
        guard let q = query.questions.first else { return nil }
        return table[Self.key(q.name, q.type)]
    }

    private func knowsName(_ name: String) -> Bool {
        table.keys.contains { $0.hasPrefix(name + " ") }
    }

    private func response(to query: DNSMessage, records: [DNSRecord], rcode: UInt8) -> DNSMessage {
        DNSMessage(header: DNSHeader(id: query.header.id, isResponse: true, authoritative: true,
                                     recursionDesired: query.header.recursionDesired,
                                     recursionAvailable: true, rcode: rcode),
                   questions: query.questions, answers: records,
                   edns: query.edns == nil ? nil : DNSEDNS(udpPayloadSize: 1232))
    }

    public static let soa = DNSRecord(name: "test", type: .soa, ttl: 300,
                               data: .soa(DNSSOA(mname: "ns1.test", rname: "hostmaster.test", serial: 2024010101,
                                                 refresh: 3600, retry: 600, expire: 86400, minimum: 60)))

    private func answer(to query: DNSMessage, _ behavior: Behavior?) -> DNSMessage {
        guard let q = query.questions.first else { return response(to: query, records: [], rcode: 1) }
        switch behavior {
        case .records(let r)?, .wrongIDFirst(let r)?, .wrongQuestionFirst(let r)?, .tcpClosesEarly(let r)?:
            return response(to: query, records: r, rcode: 0)
        case .formErrIfEDNS(let r)?:
            if query.edns != nil {
                var m = response(to: query, records: [], rcode: 1)
                m.edns = nil
                return m
            }
            return response(to: query, records: r, rcode: 0)
        case .servFail?:
            var m = response(to: query, records: [], rcode: 2)
            m.header.authoritative = false
            return m
        case .nxDomain?, .drop?, .garbage?:
            var m = response(to: query, records: [], rcode: 3)
            m.authority = [Self.soa]
            return m
        case nil:
            var m = response(to: query, records: [], rcode: knowsName(q.name) ? 0 : 3)
            m.authority = [Self.soa]
            return m
        }
    }
}
