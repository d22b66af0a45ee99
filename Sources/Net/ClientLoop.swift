import CLinux
import COpenSSL
import CShims
import Core
import Crypto
import HTTP
#if canImport(Glibc)
import Glibc
#endif

/// One exchange in flight on a loop: an HTTP request with its redirect hops,
/// or a TCP / TLS probe. Lives on its loop's thread only.
final class Exchange {
    enum Phase: String { case queued = "queue", dns, connect, tls, send, firstByte = "first_byte", body, done }

    let id: UInt64
    let job: ClientJob
    let deadline: UInt64
    var phase = Phase.queued
    var active = false

    // Current hop target.
    var host = ""
    var port = 0
    var useTLS = false
    var verifyName = ""
    var sni: String?
    var isIPLiteral = false
    var verify = true

    // HTTP only.
    var request: ClientRequest?
    var url: ClientURL?
    var redirects = 0
    var headHandled = false
    var parser = HTTPResponseParser(requestMethod: "GET")
    var body: [UInt8] = []
    var bodyRead = 0
    var truncated = false

    // Connection.
    var hop: UInt32 = 0
    var sockGen: UInt16 = 0
    var fd: Int32 = -1
    var ssl: OpaquePointer?
    var interest: UInt32 = 0
    var addresses: [IPAddress] = []
    var addrIndex = 0
    var connectedAddress: IPAddress?
    var lastConnectError = "no address to connect to"
    var timerSeq: UInt32 = 0
    var out: [UInt8] = []
    var outOffset = 0
    var tlsInfo: TLSInfo?

    // Monotonic marks of the current hop (0 = not reached).
    var dnsStart: UInt64 = 0, dnsEnd: UInt64 = 0
    var connectStart: UInt64 = 0, connectEnd: UInt64 = 0
    var tlsStart: UInt64 = 0, tlsEnd: UInt64 = 0
    var sentAt: UInt64 = 0, firstByteAt: UInt64 = 0

    init(id: UInt64, job: ClientJob) {
        self.id = id
        self.job = job
        deadline = job.submittedAt &+ UInt64(max(1, job.timeoutMillis)) * 1_000_000
    }

    var epollKey: UInt64 { id << 16 | UInt64(sockGen) }

    func resetHopMarks() {
        dnsStart = 0; dnsEnd = 0; connectStart = 0; connectEnd = 0
        tlsStart = 0; tlsEnd = 0; sentAt = 0; firstByteAt = 0
    }
}

/// An epoll loop running outbound exchanges on its own thread. Nothing here is
/// shared: callers reach it through its mailbox, the resolver answers through
/// the mailbox too. Completions are called on this thread.
final class ClientLoop {
    private static let mailboxKey: UInt64 = 0

    private let epfd: Int32
    private let mailbox: ClientMailbox
    private let resolver: Resolver
    private let tls: TLSContext
    private let maxActive: Int
    private let sourceAddress: IPAddress?

    private var exchanges: [UInt64: Exchange] = [:]
    private var pending: [UInt64] = []
    private var pendingHead = 0
    private var activeCount = 0
    private var nextID: UInt64 = 1
    private var timers = TimerHeap()
    private var stopping = false
    private let readBuffer: UnsafeMutableRawBufferPointer

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

    private func drainMailbox() {
        for m in mailbox.drain() {
            switch m {
            case .start(let job): submit(job)
            case .resolved(let id, let hop, let result): resolved(id: id, hop: hop, result)
            case .stop: stopping = true
            }
        }
    }

    private func submit(_ job: ClientJob) {
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

    private func startPending() {
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

    private func begin(_ ex: Exchange) {
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

    private func setHostPort(_ ex: Exchange, host: String, port: Int) -> Bool {
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

    private func setTarget(_ ex: Exchange, _ url: ClientURL) {
        ex.url = url
        ex.host = url.host
        ex.port = url.port
        ex.useTLS = url.isTLS
        ex.isIPLiteral = IPAddress(literal: url.host) != nil
        ex.verifyName = url.host
        ex.sni = ex.isIPLiteral ? nil : url.host
    }

    private func beginHop(_ ex: Exchange) {
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

    private func resolved(id: UInt64, hop: UInt32, _ result: Result<[IPAddress], ClientFailure>) {
        guard let ex = exchanges[id], ex.phase == .dns, ex.hop == hop else { return }
        resolvedNow(ex, result)
    }

    private func resolvedNow(_ ex: Exchange, _ result: Result<[IPAddress], ClientFailure>) {
        ex.dnsEnd = Time.monotonicNanos()
        switch result {
        case .failure(let f): finish(ex, f)
        case .success(let list):
            ex.addresses = list
            connectNext(ex)
        }
    }

    // MARK: connecting

    /// Tries addresses in order until one connects or none is left. While more
    /// than one is left, an attempt gets a share of the remaining time.
    private func connectNext(_ ex: Exchange) {
        ex.phase = .connect
        while ex.addrIndex < ex.addresses.count {
            let addr = ex.addresses[ex.addrIndex]
            let now = Time.monotonicNanos()
            if ex.connectStart == 0 { ex.connectStart = now }
            let fd = socket(addr.isIPv6 ? AF_INET6 : AF_INET,
                            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 {
                ex.lastConnectError = errnoText(errno)
                ex.addrIndex += 1
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, 4)
            if let source = sourceAddress, let problem = bindSource(fd, source, for: addr) {
                close(fd)
                ex.lastConnectError = problem
                ex.addrIndex += 1
                continue
            }
            let rc = addr.withSockaddr(port: ex.port) { sa, len in connect(fd, sa, len) }
            let code = rc == 0 ? 0 : errno
            if rc != 0 && code != EINPROGRESS {
                close(fd)
                ex.lastConnectError = errnoText(code)
                ex.addrIndex += 1
                continue
            }
            ex.fd = fd
            ex.sockGen &+= 1
            ex.interest = rc == 0 ? 0 : EPOLLOUT.rawValue
            var ev = epoll_event(events: ex.interest, data: epoll_data_t(u64: ex.epollKey))
            if epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0 {
                ex.lastConnectError = errnoText(errno)
                close(fd)
                ex.fd = -1
                ex.addrIndex += 1
                continue
            }
            let left = UInt64(ex.addresses.count - ex.addrIndex)
            if left > 1 && ex.deadline > now {
                schedule(ex, at: min(ex.deadline, now + (ex.deadline - now) / left))
            }
            if rc == 0 { connected(ex) }
            return
        }
        finish(ex, .connect(ex.lastConnectError))
    }

    /// Binds `fd` to the configured source address (port chosen at connect
    /// time); returns the reason when that is impossible.
    private func bindSource(_ fd: Int32, _ source: IPAddress, for target: IPAddress) -> String? {
        guard source.isIPv6 == target.isIPv6 else {
            return "cannot reach \(target) from source address \(source) (other address family)"
        }
        // IP_BIND_ADDRESS_NO_PORT (24, linux/in.h; not in Glibc's overlay):
        // the port is picked at connect, so many checks to different targets
        // do not exhaust the ephemeral ports of the source address.
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_IP), 24, &one, 4)
        let rc = source.withSockaddr(port: 0) { sa, len in bind(fd, sa, len) }
        return rc == 0 ? nil : "cannot bind source address \(source): \(errnoText(errno))"
    }

    private func connectFailed(_ ex: Exchange, _ text: String) {
        closeSocket(ex)
        ex.lastConnectError = text
        ex.addrIndex += 1
        schedule(ex, at: ex.deadline)
        connectNext(ex)
    }

    private func connected(_ ex: Exchange) {
        ex.connectEnd = Time.monotonicNanos()
        ex.connectedAddress = ex.addresses[ex.addrIndex]
        schedule(ex, at: ex.deadline)
        if ex.useTLS {
            startTLS(ex)
        } else if case .tcp = ex.job.kind {
            finish(ex, nil)
        } else {
            startSend(ex)
        }
    }

    // MARK: TLS

    private func startTLS(_ ex: Exchange) {
        let ctx: OpaquePointer
        do {
            ctx = try tls.ready()
        } catch {
            return finish(ex, error)
        }
        guard let ssl = SSL_new(ctx) else { return finish(ex, .tls("SSL_new: \(openSSLErrorReason())")) }
        ex.ssl = ssl
        ex.phase = .tls
        ex.tlsStart = Time.monotonicNanos()
        SSL_set_fd(ssl, ex.fd)
        if let sni = ex.sni { _ = pt_ssl_set_tlsext_host_name(ssl, sni) }
        if IPAddress(literal: ex.verifyName) != nil {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), ex.verifyName)
        } else {
            SSL_set1_host(ssl, ex.verifyName)
        }
        SSL_set_connect_state(ssl)
        driveHandshake(ex)
    }

    private func driveHandshake(_ ex: Exchange) {
        guard let ssl = ex.ssl else { return }
        ERR_clear_error()
        let r = SSL_do_handshake(ssl)
        if r == 1 {
            ex.tlsEnd = Time.monotonicNanos()
            ex.tlsInfo = captureTLSInfo(ssl: ssl, host: ex.verifyName, isIPLiteral: IPAddress(literal: ex.verifyName) != nil)
            if ex.verify {
                guard let info = ex.tlsInfo else { return finish(ex, .tls("no peer certificate")) }
                if !info.verified { return finish(ex, .tls(info.verifyError ?? "certificate verify failed")) }
            }
            if case .tls = ex.job.kind { return finish(ex, nil) }
            startSend(ex)
            return
        }
        let code = SSL_get_error(ssl, r)
        switch code {
        case SSL_ERROR_WANT_READ: setInterest(ex, EPOLLIN.rawValue)
        case SSL_ERROR_WANT_WRITE: setInterest(ex, EPOLLOUT.rawValue)
        case SSL_ERROR_SYSCALL:
            let e = errno
            let text = ERR_peek_error() != 0 ? openSSLErrorReason()
                : (e != 0 ? errnoText(e) : "connection closed during handshake")
            finish(ex, .tls(text))
        case SSL_ERROR_ZERO_RETURN:
            finish(ex, .tls("connection closed during handshake"))
        default:
            finish(ex, .tls(openSSLErrorReason()))
        }
    }

    // MARK: HTTP exchange

    private func startSend(_ ex: Exchange) {
        guard let request = ex.request, let url = ex.url else { return finish(ex, nil) }
        ex.out = encodeRequest(request, url: url)
        ex.outOffset = 0
        ex.parser = HTTPResponseParser(requestMethod: request.method)
        ex.headHandled = false
        ex.body = []
        ex.bodyRead = 0
        ex.truncated = false
        ex.phase = .send
        writeOut(ex)
    }

    private func writeOut(_ ex: Exchange) {
        while ex.outOffset < ex.out.count {
            let remaining = ex.out.count - ex.outOffset
            let offset = ex.outOffset
            if let ssl = ex.ssl {
                ERR_clear_error()
                let n = ex.out.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32(min(remaining, Int(Int32.max)))) }
                if n > 0 { ex.outOffset += Int(n); continue }
                switch SSL_get_error(ssl, n) {
                case SSL_ERROR_WANT_WRITE: setInterest(ex, EPOLLOUT.rawValue); return
                case SSL_ERROR_WANT_READ: setInterest(ex, EPOLLIN.rawValue); return
                case SSL_ERROR_SYSCALL: return finish(ex, .connect(errno != 0 ? errnoText(errno) : "connection closed while sending"))
                default: return finish(ex, .tls(openSSLErrorReason()))
                }
            } else {
                let n = ex.out.withUnsafeBytes { send(ex.fd, $0.baseAddress! + offset, remaining, Int32(MSG_NOSIGNAL)) }
                if n > 0 { ex.outOffset += n; continue }
                let e = errno
                if n < 0 && (e == EAGAIN || e == EWOULDBLOCK) { setInterest(ex, EPOLLOUT.rawValue); return }
                if n < 0 && e == EINTR { continue }
                return finish(ex, .connect(errnoText(e)))
            }
        }
        ex.out = []
        ex.sentAt = Time.monotonicNanos()
        ex.phase = .firstByte
        setInterest(ex, EPOLLIN.rawValue)
    }

    private func readIn(_ ex: Exchange) {
        let buf = readBuffer
        while ex.fd >= 0 {
            var n: Int
            if let ssl = ex.ssl {
                ERR_clear_error()
                let r = SSL_read(ssl, buf.baseAddress, Int32(buf.count))
                if r > 0 {
                    n = Int(r)
                } else {
                    switch SSL_get_error(ssl, r) {
                    case SSL_ERROR_WANT_READ: setInterest(ex, EPOLLIN.rawValue); return
                    case SSL_ERROR_WANT_WRITE: setInterest(ex, EPOLLOUT.rawValue); return
                    case SSL_ERROR_ZERO_RETURN: n = 0
                    case SSL_ERROR_SYSCALL:
                        if errno == 0 || errno == ECONNRESET && ex.parser.isCloseDelimited { n = 0 } else {
                            return finish(ex, .connect(errnoText(errno)))
                        }
                    default: return finish(ex, .tls(openSSLErrorReason()))
                    }
                }
            } else {
                n = recv(ex.fd, buf.baseAddress, buf.count, 0)
                if n < 0 {
                    let e = errno
                    if e == EAGAIN || e == EWOULDBLOCK { return }
                    if e == EINTR { continue }
                    return finish(ex, .connect(errnoText(e)))
                }
            }
            if n == 0 { return endOfStream(ex) }
            if ex.firstByteAt == 0 {
                ex.firstByteAt = Time.monotonicNanos()
                ex.phase = .body
            }
            do {
                try ex.parser.feed(UnsafeRawBufferPointer(rebasing: buf[0..<n])) { chunk in
                    ex.bodyRead += chunk.count
                    let room = ex.request!.maxBodyBytes - ex.body.count
                    if chunk.count <= room {
                        ex.body.append(contentsOf: chunk)
                    } else {
                        if room > 0 { ex.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<room])) }
                        ex.truncated = true
                    }
                }
            } catch {
                return finish(ex, .protocolError(error.description))
            }
            if !ex.headHandled, let head = ex.parser.head {
                ex.headHandled = true
                if shouldRedirect(ex, head) { return redirect(ex, head) }
            }
            if ex.parser.isComplete { return finish(ex, nil) }
            if ex.bodyRead > ex.request!.maxReadBytes {
                ex.truncated = true
                return finish(ex, nil)
            }
            if ex.ssl == nil && n < buf.count { return }  // level-triggered: epoll says when more is there
        }
    }

    private func endOfStream(_ ex: Exchange) {
        do {
            try ex.parser.finish()
        } catch {
            return finish(ex, .protocolError(error.description))
        }
        if !ex.headHandled, let head = ex.parser.head {
            ex.headHandled = true
            if shouldRedirect(ex, head) { return redirect(ex, head) }
        }
        finish(ex, nil)
    }

    private func shouldRedirect(_ ex: Exchange, _ head: ResponseHead) -> Bool {
        guard let request = ex.request, request.followRedirects else { return false }
        switch head.status {
        case 301, 302, 303, 307, 308: return head.headers["Location"] != nil
        default: return false
        }
    }

    private func redirect(_ ex: Exchange, _ head: ResponseHead) {
        guard var request = ex.request, let url = ex.url, let location = head.headers["Location"] else { return }
        if ex.redirects >= request.maxRedirects { return finish(ex, .tooManyRedirects) }
        let next: ClientURL
        do { next = try url.resolve(location) } catch {
            if case .invalidURL(let why) = error { return finish(ex, .invalidURL("redirect to \(location): \(why)")) }
            return finish(ex, error)
        }
        let toGET = head.status == 303 ? request.method != "HEAD"
            : (head.status == 301 || head.status == 302) && request.method == "POST"
        if toGET {
            request.method = "GET"
            request.body = nil
            request.headers.removeAll { HTTPHeaders.equalNames($0.0, "Content-Type") }
        }
        if next.scheme != url.scheme || next.host != url.host || next.port != url.port {
            request.headers.removeAll { HTTPHeaders.equalNames($0.0, "Authorization") || HTTPHeaders.equalNames($0.0, "Cookie") }
        }
        // Connection pooling would go here: a keep-alive connection to the
        // same origin could be reused instead of closed.
        closeSocket(ex)
        ex.redirects += 1
        ex.request = request
        ex.tlsInfo = nil
        ex.connectedAddress = nil
        setTarget(ex, next)
        beginHop(ex)
    }

    // MARK: events and timers

    private func handle(_ ex: Exchange, events: UInt32) {
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

    private func schedule(_ ex: Exchange, at: UInt64) {
        ex.timerSeq &+= 1
        timers.push(.init(at: at, id: ex.id, seq: ex.timerSeq))
    }

    private func fireTimers() {
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

    private func setInterest(_ ex: Exchange, _ events: UInt32) {
        guard ex.fd >= 0, ex.interest != events else { return }
        var ev = epoll_event(events: events, data: epoll_data_t(u64: ex.epollKey))
        epoll_ctl(epfd, EPOLL_CTL_MOD, ex.fd, &ev)
        ex.interest = events
    }

    private func closeSocket(_ ex: Exchange) {
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

    private func finish(_ ex: Exchange, _ failure: ClientFailure?) {
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

    private func validate(_ request: ClientRequest) -> String? {
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
