import CLinux
#if canImport(Glibc)
import Glibc
#endif
import Core

/// The outcome of one query, as a check sees it.
public struct DNSResponse: Sendable, Equatable {
    /// The question asked (canonical name).
    public var name: String
    public var type: DNSRecordType
    public var rcode: DNSRCode
    public var answers: [DNSRecord]
    /// Authority section (the SOA of an NXDOMAIN / NODATA answer).
    public var authority: [DNSRecord]
    /// AA flag.
    public var authoritative: Bool
    /// The UDP answer had TC=1 and this is the answer fetched over TCP.
    public var truncatedRetriedOverTCP: Bool
    /// The server that answered, `127.0.0.1:53` / `[::1]:53`.
    public var server: String
    /// From sending the query that got this answer to receiving it; for a
    /// TC→TCP retry, from the UDP send to the end of the TCP answer.
    public var latencyMs: Double

    public init(name: String, type: DNSRecordType, rcode: DNSRCode, answers: [DNSRecord], authority: [DNSRecord] = [],
                authoritative: Bool = false, truncatedRetriedOverTCP: Bool = false, server: String = "",
                latencyMs: Double = 0) {
        self.name = name
        self.type = type
        self.rcode = rcode
        self.answers = answers
        self.authority = authority
        self.authoritative = authoritative
        self.truncatedRetriedOverTCP = truncatedRetriedOverTCP
        self.server = server
        self.latencyMs = latencyMs
    }
}

/// A blocking stub resolver: recursive queries to configured servers over
/// UDP, TCP when the UDP answer is truncated. No cache, no search list.
///
/// Timing follows resolv.conf semantics: `timeoutMillis` bounds each try
/// (one server, one attempt); tries go round the servers `attempts` times.
/// The worst case is therefore `timeoutMillis × attempts × servers`, plus one
/// more `timeoutMillis` for a TCP retry. A refused port (ICMP) moves on at
/// once. SERVFAIL/REFUSED/NOTIMP move on to the next server when there is
/// one; if no server does better, the first such answer is returned.
public struct DNSClient: Sendable {
    public static let defaultTimeoutMillis = 5000
    public static let defaultAttempts = 2
    public static let fallbackServer = "127.0.0.1"

    /// The server strings as given (or from resolv.conf).
    public let servers: [String]
    public let timeoutMillis: Int
    public let attempts: Int
    private let addresses: [DNSServerAddress?]

    /// `servers` nil → the nameservers of /etc/resolv.conf (or 127.0.0.1
    /// when it lists none). `timeoutMillis` / `attempts` nil → resolv.conf's
    /// `options timeout:` / `attempts:` when servers come from it, else
    /// 5000 ms and 2. Unparseable server strings are kept and fail queries
    /// with `.network` (validate beforehand with `DNSServerAddress(parsing:)`).
    public init(servers: [String]? = nil, timeoutMillis: Int? = nil, attempts: Int? = nil) {
        if let servers {
            self.init(servers: servers, conf: nil, timeoutMillis: timeoutMillis, attempts: attempts)
        } else {
            self.init(resolvConf: ResolvConf.load() ?? ResolvConf(), timeoutMillis: timeoutMillis, attempts: attempts)
        }
    }

    /// Servers and options from a parsed resolv.conf.
    public init(resolvConf: ResolvConf, timeoutMillis: Int? = nil, attempts: Int? = nil) {
        self.init(servers: resolvConf.nameservers.isEmpty ? [Self.fallbackServer] : resolvConf.nameservers,
                  conf: resolvConf, timeoutMillis: timeoutMillis, attempts: attempts)
    }

    private init(servers: [String], conf: ResolvConf?, timeoutMillis: Int?, attempts: Int?) {
        self.servers = servers
        self.addresses = servers.map { DNSServerAddress(parsing: $0) }
        self.timeoutMillis = max(1, timeoutMillis ?? conf?.timeoutSeconds.map { $0 * 1000 } ?? Self.defaultTimeoutMillis)
        self.attempts = max(1, attempts ?? conf?.attempts ?? Self.defaultAttempts)
    }

    /// Asks for `name`/`type` (class IN). Blocks for at most the worst case
    /// above; run it on a worker thread.
    public func query(_ name: String, type: DNSRecordType) throws(DNSError) -> DNSResponse {
        let question = DNSQuestion(name: try DNSName.normalize(name), type: type)
        guard !servers.isEmpty else { throw .network("no DNS servers configured") }
        var lastError: DNSError = .timeout
        var fallback: DNSResponse? = nil
        var settled = Set<Int>()
        for _ in 0..<attempts {
            for (index, address) in addresses.enumerated() where !settled.contains(index) {
                guard let address else {
                    lastError = .network("invalid DNS server address \"\(servers[index])\"")
                    settled.insert(index)
                    continue
                }
                do {
                    let response = try exchange(question, with: address)
                    switch response.rcode {
                    case .servFail, .refused, .notImp:
                        guard addresses.count > 1 else { return response }
                        if fallback == nil { fallback = response }
                        settled.insert(index)
                    default:
                        return response
                    }
                } catch {
                    lastError = error
                }
            }
        }
        if let fallback { return fallback }
        throw lastError
    }

    /// One try against one server: UDP, then TCP on TC=1; a FORMERR to an
    /// EDNS query without OPT in the answer is retried once without EDNS.
    private func exchange(_ question: DNSQuestion, with server: DNSServerAddress) throws(DNSError) -> DNSResponse {
        let start = Time.monotonicNanos()
        var edns: UInt16? = DNSMessage.defaultUDPPayloadSize
        while true {
            let query = try DNSMessage.query(id: DNSMessage.randomID(), name: question.name, type: question.type,
                                             ednsUDPSize: edns)
            let bytes = try query.encode()
            var reply = try DNSTransport.udp(bytes, query: query, server: server,
                                             deadline: Self.deadline(timeoutMillis))
            var overTCP = false
            if reply.header.truncated {
                let tcpQuery = try DNSMessage.query(id: DNSMessage.randomID(), name: question.name,
                                                    type: question.type, ednsUDPSize: edns)
                reply = try DNSTransport.tcp(try tcpQuery.encode(), query: tcpQuery, server: server,
                                             deadline: Self.deadline(timeoutMillis))
                overTCP = true
            }
            if reply.rcode == .formErr, edns != nil, reply.edns == nil {
                edns = nil
                continue
            }
            let elapsed = Double(Time.monotonicNanos() - start) / 1_000_000
            return DNSResponse(name: question.name, type: question.type, rcode: reply.rcode, answers: reply.answers,
                               authority: reply.authority, authoritative: reply.header.authoritative,
                               truncatedRetriedOverTCP: overTCP, server: server.description, latencyMs: elapsed)
        }
    }

    static func deadline(_ millis: Int) -> UInt64 {
        Time.monotonicNanos() + UInt64(max(0, millis)) * 1_000_000
    }
}

/// Socket work for one exchange. Every socket is closed before returning.
enum DNSTransport {
    static let maxUDPReply = 65535

    /// Whether `reply` answers `query`: same id, QR=1, same question (name
    /// case-insensitively, type, class). A reply without a question is
    /// accepted only as an error answer with no records (FORMERR etc.).
    static func matches(_ reply: DNSMessage, _ query: DNSMessage) -> Bool {
        guard reply.header.id == query.header.id, reply.header.isResponse, reply.header.opcode == 0 else { return false }
        guard let q = query.questions.first else { return false }
        if reply.questions.isEmpty {
            return reply.header.rcode != 0 && reply.answers.isEmpty
        }
        guard reply.questions.count == 1, let r = reply.questions.first else { return false }
        return r.name == q.name && r.type == q.type && r.qclass == q.qclass
    }

    static func udp(_ bytes: [UInt8], query: DNSMessage, server: DNSServerAddress,
                    deadline: UInt64) throws(DNSError) -> DNSMessage {
        let fd = try openSocket(server, type: Int32(SOCK_DGRAM.rawValue))
        defer { close(fd) }
        try connectSocket(fd, server, deadline: deadline)
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent < 0 { throw .network("\(server): send: \(SystemError("send", errno: errno).description)") }
        guard sent == bytes.count else { throw .network("\(server): short UDP send") }
        var buffer = [UInt8](repeating: 0, count: maxUDPReply)
        var malformed: DNSError? = nil
        while true {
            try waitFor(fd, events: Int16(POLLIN), deadline: deadline, server: server, pending: malformed)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 {
                let e = errno
                if e == EINTR || e == EAGAIN || e == EWOULDBLOCK { continue }
                throw .network("\(server): \(SystemError("recv", errno: e).description)")
            }
            let datagram = Array(buffer[0..<n])
            // Cheap screen first: a datagram whose id does not match is
            // dropped without being parsed (spoofing, late answers).
            guard let peek = DNSMessage.peekIDAndQuestion(datagram), peek.id == query.header.id else {
                Log.shared.debug("dns: ignored answer with another id", ["server": server.description])
                continue
            }
            do {
                let reply = try DNSMessage.parse(datagram)
                if matches(reply, query) { return reply }
                Log.shared.debug("dns: ignored answer to another question", ["server": server.description])
            } catch {
                // Right id but unparseable: keep waiting for a good one, and
                // report this if none comes.
                if let q = peek.question, q == query.questions.first { malformed = error }
            }
        }
    }

    static func tcp(_ bytes: [UInt8], query: DNSMessage, server: DNSServerAddress,
                    deadline: UInt64) throws(DNSError) -> DNSMessage {
        let fd = try openSocket(server, type: Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
        defer { close(fd) }
        try connectSocket(fd, server, deadline: deadline)
        var framed: [UInt8] = []
        framed.put16(UInt16(bytes.count))
        framed.append(contentsOf: bytes)
        var off = 0
        while off < framed.count {
            let n = framed.withUnsafeBytes { send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK {
                    try waitFor(fd, events: Int16(POLLOUT), deadline: deadline, server: server, pending: nil)
                    continue
                }
                throw .network("\(server): TCP \(SystemError("send", errno: e).description)")
            }
            off += n
        }
        let lengthBytes = try readExactly(fd, 2, deadline: deadline, server: server)
        let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
        guard length >= 12 else { throw .malformedResponse("TCP answer of \(length) bytes") }
        let reply = try DNSMessage.parse(try readExactly(fd, length, deadline: deadline, server: server))
        guard matches(reply, query) else { throw .malformedResponse("TCP answer does not match the query") }
        return reply
    }

    private static func readExactly(_ fd: Int32, _ count: Int, deadline: UInt64,
                                    server: DNSServerAddress) throws(DNSError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
            if n > 0 { got += n; continue }
            if n == 0 { throw .network("\(server): TCP connection closed after \(got) of \(count) bytes") }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK {
                try waitFor(fd, events: Int16(POLLIN), deadline: deadline, server: server, pending: nil)
                continue
            }
            throw .network("\(server): TCP \(SystemError("recv", errno: e).description)")
        }
        return out
    }

    private static func openSocket(_ server: DNSServerAddress, type: Int32) throws(DNSError) -> Int32 {
        let family = server.isIPv6 ? AF_INET6 : AF_INET
        do {
            return try sys("socket") { socket(family, type | Int32(SOCK_CLOEXEC.rawValue), 0) }
        } catch {
            throw .network("\(server): \(error.description)")
        }
    }

    /// Connects (UDP: sets the peer so the kernel drops datagrams from any
    /// other address; TCP non-blocking: waits for the handshake).
    private static func connectSocket(_ fd: Int32, _ server: DNSServerAddress, deadline: UInt64) throws(DNSError) {
        let rc = server.withSockaddr { connect(fd, $0, $1) }
        if rc == 0 { return }
        var e = errno
        if e == EINTR || e == EINPROGRESS {
            try waitFor(fd, events: Int16(POLLOUT), deadline: deadline, server: server, pending: nil)
            var soError: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
            if soError == 0 { return }
            e = soError
        }
        throw .network("\(server): \(SystemError("connect", errno: e).description)")
    }

    /// Polls until `events` or the deadline; at the deadline throws
    /// `pending` if set (a malformed answer seen meanwhile), else timeout.
    private static func waitFor(_ fd: Int32, events: Int16, deadline: UInt64, server: DNSServerAddress,
                                pending: DNSError?) throws(DNSError) {
        while true {
            let now = Time.monotonicNanos()
            guard now < deadline else { throw pending ?? .timeout }
            let millis = Int32(min(Int((deadline - now + 999_999) / 1_000_000), Int(Int32.max)))
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let rc = poll(&pfd, 1, millis)
            if rc < 0 {
                if errno == EINTR { continue }
                throw .network("\(server): \(SystemError("poll", errno: errno).description)")
            }
            if rc > 0 { return } // readable, writable, or an error the next call reports
        }
    }
}
