import CLinux
import COpenSSL
import CShims
import Core
import Crypto
import HTTP
#if canImport(Glibc)
import Glibc
#endif

/// An epoll loop running outbound exchanges on its own thread. Nothing here is
/// shared: callers reach it through its mailbox, the resolver answers through
/// the mailbox too. Completions are called on this thread.
final class ClientLoop {
    static let mailboxKey: UInt64 = 0

    let epfd: Int32
    let mailbox: ClientMailbox
    let resolver: Resolver
    let tls: TLSContext
    let maxActive: Int
    let sourceAddress: IPAddress?

    var exchanges: [UInt64: Exchange] = [:]
    var pending: [UInt64] = []
    var pendingHead = 0
    var activeCount = 0
    var nextID: UInt64 = 1
    var timers = TimerHeap()
    var stopping = false
    let readBuffer: UnsafeMutableRawBufferPointer

    init(mailbox: ClientMailbox, resolver: Resolver, tls: TLSContext, maxActive: Int, sourceAddress: IPAddress?) {
        self.sourceAddress = sourceAddress
        self.mailbox = mailbox
        self.resolver = resolver
        self.tls = tls
        self.maxActive = max(1, maxActive)
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(epfd >= 0, "epoll_create1 failed: errno \(errno)")
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        var ev = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: Self.mailboxKey))
        epoll_ctl(epfd, EPOLL_CTL_ADD, mailbox.eventFD, &ev)
    }

    deinit {
        close(epfd)
        readBuffer.deallocate()
    }

    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 512)
        while !stopping {
            var timeout: Int32 = -1
            if let at = timers.earliest {
                let now = Time.monotonicNanos()
                timeout = at <= now ? 0 : Int32(min((at - now + 999_999) / 1_000_000, 60_000))
            }
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epfd, $0.baseAddress, Int32($0.count), timeout) }
            if n < 0 && errno != EINTR {
                Log.shared.error("client epoll_wait failed", ["errno": "\(errno)"])
                break
            }
            var mail = false
            for i in 0..<max(0, Int(n)) {
                let ev = events[i]
                let key = ev.data.u64
                if key == Self.mailboxKey { mail = true; continue }
                guard let ex = exchanges[key >> 16], ex.fd >= 0, UInt64(ex.sockGen) == key & 0xFFFF else { continue }
                handle(ex, events: ev.events)
            }
            fireTimers()
            if mail { drainMailbox() }
        }
        // Stopping: everything left is cancelled.
        for ex in Array(exchanges.values) { finish(ex, .cancelled) }
        for m in mailbox.closeAndDrain() {
            if case .start(let job) = m { job.cancel() }
        }
    }

    // MARK: mailbox and queueing

    func drainMailbox() {
        for m in mailbox.drain() {
            switch m {
            case .start(let job): submit(job)
            case .resolved(let id, let hop, let result): resolved(id: id, hop: hop, result)
            case .stop: stopping = true
            }
        }
    }

    func submit(_ job: ClientJob) {
        if stopping { job.cancel(); return }
        let ex = Exchange(id: nextID, job: job)
        nextID += 1
        exchanges[ex.id] = ex
        schedule(ex, at: ex.deadline)
        if activeCount < maxActive {
            begin(ex)
        } else {
            pending.append(ex.id)
        }
    }

    func startPending() {
        while activeCount < maxActive && pendingHead < pending.count && !stopping {
            let id = pending[pendingHead]
            pendingHead += 1
            if let ex = exchanges[id], ex.phase == .queued { begin(ex) }
        }
        if pendingHead > 1024 && pendingHead * 2 > pending.count {
            pending.removeFirst(pendingHead)
            pendingHead = 0
        }
    }

    // MARK: starting a hop

    func begin(_ ex: Exchange) {
        ex.active = true
        activeCount += 1
        // Its whole deadline went by in the queue: fail it without starting.
        if Time.monotonicNanos() >= ex.deadline { return finish(ex, .timeout(phase: Exchange.Phase.queued.rawValue)) }
        switch ex.job.kind {
        case .http(let request, _):
            let url: ClientURL
            do { url = try ClientURL.parse(request.url) } catch { return finish(ex, error) }
            if let problem = validate(request) { return finish(ex, .protocolError(problem)) }
            ex.request = request
            ex.verify = request.verifyTLS
            setTarget(ex, url)
        case .tcp(let host, let port, _):
            guard setHostPort(ex, host: host, port: port) else { return }
        case .tls(let host, let port, let serverName, let verify, _):
            guard setHostPort(ex, host: host, port: port) else { return }
            ex.useTLS = true
            ex.verify = verify
            if let serverName, !serverName.isEmpty {
                ex.verifyName = serverName
                ex.sni = IPAddress(literal: serverName) == nil ? serverName : nil
            }
        }
        beginHop(ex)
    }

    func setHostPort(_ ex: Exchange, host: String, port: Int) -> Bool {
        var h = host.lowercased()
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        guard !h.isEmpty, port >= 1 && port <= 65535 else {
            finish(ex, .invalidURL("bad host or port"))
            return false
        }
        ex.host = h
        ex.port = port
        ex.isIPLiteral = IPAddress(literal: h) != nil
        ex.verifyName = h
        ex.sni = ex.isIPLiteral ? nil : h
        return true
    }

    func setTarget(_ ex: Exchange, _ url: ClientURL) {
        ex.url = url
        ex.host = url.host
        ex.port = url.port
        ex.useTLS = url.isTLS
        ex.isIPLiteral = IPAddress(literal: url.host) != nil
        ex.verifyName = url.host
        ex.sni = ex.isIPLiteral ? nil : url.host
    }

    func beginHop(_ ex: Exchange) {
        ex.hop &+= 1
        ex.resetHopMarks()
        ex.addresses = []
        ex.addrIndex = 0
        ex.lastConnectError = "no address to connect to"
        if let ip = IPAddress(literal: ex.host) {
            ex.addresses = [ip]
            connectNext(ex)
            return
        }
        ex.phase = .dns
        ex.dnsStart = Time.monotonicNanos()
        if let cached = resolver.cached(ex.host) {
            resolvedNow(ex, cached)
            return
        }
        let (id, hop, mailbox) = (ex.id, ex.hop, self.mailbox)
        resolver.lookup(ex.host) { result in
            mailbox.post(.resolved(id: id, hop: hop, result: result))
        }
    }

    func resolved(id: UInt64, hop: UInt32, _ result: Result<[IPAddress], ClientFailure>) {
        guard let ex = exchanges[id], ex.phase == .dns, ex.hop == hop else { return }
        resolvedNow(ex, result)
    }

    func resolvedNow(_ ex: Exchange, _ result: Result<[IPAddress], ClientFailure>) {
        ex.dnsEnd = Time.monotonicNanos()
        switch result {
        case .failure(let f): finish(ex, f)
        case .success(let list):
            ex.addresses = list
            connectNext(ex)
        }
    }

    // MARK: events and timers

    func handle(_ ex: Exchange, events: UInt32) {
        switch ex.phase {
        case .connect:
            var err: Int32 = 0
            var len = socklen_t(4)
            if getsockopt(ex.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 { err = errno }
            if err == 0 && events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { err = ECONNREFUSED }
            if err != 0 { connectFailed(ex, errnoText(err)) } else { connected(ex) }
        case .tls: driveHandshake(ex)
        case .send: writeOut(ex)
        case .firstByte, .body: readIn(ex)
        case .queued, .dns, .done: break
        }
    }

    func schedule(_ ex: Exchange, at: UInt64) {
        ex.timerSeq &+= 1
        timers.push(.init(at: at, id: ex.id, seq: ex.timerSeq))
    }

    func fireTimers() {
        let now = Time.monotonicNanos()
        while let e = timers.popDue(now: now) {
            guard let ex = exchanges[e.id], ex.timerSeq == e.seq else { continue }
            if now >= ex.deadline {
                finish(ex, .timeout(phase: ex.phase.rawValue))
            } else if ex.phase == .connect {
                // One address's share of the time ran out: try the next.
                connectFailed(ex, "connect timed out")
            }
        }
    }

    // MARK: finishing

    func setInterest(_ ex: Exchange, _ events: UInt32) {
        guard ex.fd >= 0, ex.interest != events else { return }
        var ev = epoll_event(events: events, data: epoll_data_t(u64: ex.epollKey))
        epoll_ctl(epfd, EPOLL_CTL_MOD, ex.fd, &ev)
        ex.interest = events
    }

    func closeSocket(_ ex: Exchange) {
        if let ssl = ex.ssl {
            SSL_free(ssl)
            ex.ssl = nil
        }
        if ex.fd >= 0 {
            epoll_ctl(epfd, EPOLL_CTL_DEL, ex.fd, nil)
            close(ex.fd)
            ex.fd = -1
        }
        ex.interest = 0
    }

    func finish(_ ex: Exchange, _ failure: ClientFailure?) {
        guard exchanges.removeValue(forKey: ex.id) != nil else { return }
        closeSocket(ex)
        let now = Time.monotonicNanos()
        ex.phase = .done
        var t = ClientTimings()
        func ms(_ a: UInt64, _ b: UInt64) -> Double { a != 0 && b >= a ? Double(b - a) / 1e6 : 0 }
        t.dnsMs = ms(ex.dnsStart, ex.dnsEnd)
        t.connectMs = ms(ex.connectStart, ex.connectEnd)
        t.tlsMs = ms(ex.tlsStart, ex.tlsEnd)
        t.firstByteMs = ms(ex.sentAt, ex.firstByteAt)
        t.totalMs = ms(ex.job.submittedAt, now)
        let text = failure?.describe(timeoutMillis: ex.job.timeoutMillis)
        let address = ex.connectedAddress?.description
        switch ex.job.kind {
        case .http(_, let done):
            var response: ClientResponse?
            if failure == nil, let head = ex.parser.head, let url = ex.url {
                response = ClientResponse(status: head.status, headers: head.headers, body: ex.body,
                                          bodyTruncated: ex.truncated, finalURL: url.description, redirects: ex.redirects)
            }
            let f = failure ?? (response == nil ? .protocolError("no response") : nil)
            ex.body = []
            done(ClientResult(response: response, failure: f, timings: t, tls: ex.tlsInfo,
                              errorDescription: f?.describe(timeoutMillis: ex.job.timeoutMillis)))
        case .tcp(_, _, let done):
            done(TCPProbeResult(failure: failure, timings: t, address: failure == nil ? address : nil, errorDescription: text))
        case .tls(_, _, _, _, let done):
            done(TLSProbeResult(failure: failure, timings: t, tls: ex.tlsInfo, address: address, errorDescription: text))
        }
        if ex.active {
            ex.active = false
            activeCount -= 1
            startPending()
        }
    }

    func validate(_ request: ClientRequest) -> String? {
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(isToken) else { return "invalid method" }
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(isToken) else { return "invalid header name \(name)" }
            guard value.utf8.allSatisfy({ $0 != 13 && $0 != 10 && $0 != 0 }) else { return "invalid value for header \(name)" }
        }
        return nil
    }
}

/// The HTTP/1.1 request bytes: Host (port when not the default), the caller's
/// headers, `User-Agent` and `Accept` unless given, Content-Length for bodies
/// (and for empty POST/PUT/PATCH), `Connection: close`.
func encodeRequest(_ request: ClientRequest, url: ClientURL) -> [UInt8] {
    var s = "\(request.method) \(url.target) HTTP/1.1\r\n"
    var hasHost = false, hasUA = false, hasAccept = false
    for (n, _) in request.headers {
        if HTTPHeaders.equalNames(n, "Host") { hasHost = true }
        if HTTPHeaders.equalNames(n, "User-Agent") { hasUA = true }
        if HTTPHeaders.equalNames(n, "Accept") { hasAccept = true }
    }
    if !hasHost { s += "Host: \(url.hostHeader)\r\n" }
    for (n, v) in request.headers {
        if HTTPHeaders.equalNames(n, "Connection") || HTTPHeaders.equalNames(n, "Content-Length")
            || HTTPHeaders.equalNames(n, "Transfer-Encoding") { continue }
        s += "\(n): \(v)\r\n"
    }
    if !hasUA { s += "User-Agent: pingtxt/0.1\r\n" }
    if !hasAccept { s += "Accept: */*\r\n" }
    if let body = request.body {
        s += "Content-Length: \(body.count)\r\n"
    } else if request.method == "POST" || request.method == "PUT" || request.method == "PATCH" {
        s += "Content-Length: 0\r\n"
    }
    s += "Connection: close\r\n\r\n"
    var bytes = Array(s.utf8)
    if let body = request.body { bytes.append(contentsOf: body) }
    return bytes
}

@inline(__always) private func isToken(_ b: UInt8) -> Bool {
    switch b {
    case 48...57, 65...90, 97...122: return true
    case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: return true
    default: return false
    }
}

/// strerror text with a lower-case first letter ("connection refused").
func errnoText(_ code: Int32) -> String {
    var s = String(cString: strerror(code))
    if let f = s.first, f.isUppercase, s.dropFirst().first?.isLowercase ?? true {
        s = f.lowercased() + s.dropFirst()
    }
    return s
}
