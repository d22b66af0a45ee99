import CLinux
import CShims
import Core
#if canImport(Glibc)
import Glibc
#endif

/// One epoll loop on its own thread: accepts on its listening socket, reads,
/// parses, runs inline routes, hands other requests to the worker pool and
/// writes answers back. Nothing here is shared; the mailbox is the only door.
/// Its stored `var`s skip the runtime exclusivity check, as `Connection`'s
/// do and for the same reasons: one thread, no overlapping access.
final class EventLoop {
    private static let listenerID: UInt64 = 0
    private static let mailboxID: UInt64 = 1

    private let context: ServerContext
    private let mailbox: LoopMailbox
    @exclusivity(unchecked) private var listener: Int32
    private let epoll: Int32
    @exclusivity(unchecked) private var connections: [UInt64: Connection] = [:]
    @exclusivity(unchecked) private var nextID: UInt64 = 2
    @exclusivity(unchecked) private var encoder = ResponseEncoder()
    /// Not zeroed: read(2) fills what is parsed, and an idle loop touches none of it.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    @exclusivity(unchecked) private var stopping = false
    @exclusivity(unchecked) private var stopDeadline: UInt64 = 0
    private let sweepNanos: UInt64
    @exclusivity(unchecked) private var nextSweep: UInt64 = 0
    @exclusivity(unchecked) private var accessLog = AccessLogBuffer()
    /// Which of the metrics' tallies this loop counts in.
    private let index: Int

    init(context: ServerContext, index: Int, listener: Int32, mailbox: LoopMailbox) throws(SystemError) {
        self.context = context
        self.index = index
        self.listener = listener
        self.mailbox = mailbox
        epoll = try sys("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        let c = context.configuration
        let shortest = UInt64(max(1, min(c.headerTimeoutMillis, c.idleTimeoutMillis)))
        // Sweep often enough that a timeout fires within a quarter of itself.
        sweepNanos = min(max(shortest / 4, 5), 1000) * 1_000_000
        try register(listener, id: Self.listenerID, events: EPOLLIN.rawValue)
        try register(mailbox.eventFD, id: Self.mailboxID, events: EPOLLIN.rawValue)
    }

    deinit { close(epoll); readBuffer.deallocate() }

    /// Runs until stopped and every connection is done.
    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let timeout = Int32(sweepNanos / 1_000_000)
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, Int32($0.count), timeout) }
            if n < 0 && errno != EINTR {
                Log.shared.error("epoll_wait failed", ["errno": "\(errno)"])
                break
            }
            for i in 0..<max(0, Int(n)) {
                let ev = events[i]
                switch ev.data.u64 {
                case Self.listenerID: acceptAll()
                case Self.mailboxID: drainMailbox()
                default:
                    guard let conn = connections[ev.data.u64] else { continue }
                    handle(conn, events: ev.events)
                }
            }
            accessLog.flush()
            let now = Time.monotonicNanos()
            if now >= nextSweep {
                sweep(now: now)
                nextSweep = now + sweepNanos
            }
            if stopping && (connections.isEmpty || now >= stopDeadline) { break }
        }
        for conn in Array(connections.values) { closeConnection(conn) }
        accessLog.flush()
    }

    // MARK: accepting

    private func acceptAll() {
        let now = Time.monotonicNanos()
        while !stopping {
            var storage = sockaddr_storage()
            var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    pt_accept4(listener, $0, &len, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE {
                    Log.shared.warn("out of file descriptors; not accepting for now")
                }
                return
            }
            let open = context.connectionCount.wrappingAdd(1, ordering: .relaxed).newValue
            if open > context.configuration.maxConnections {
                // Over the limit: a short best-effort answer, then close.
                var bytes = encoder.encode(.error(HTTPError(503, "too_many_connections",
                    "The server has too many open connections; try again shortly.")),
                    headOnly: false, close: true, http10KeepAlive: false)
                _ = write(fd, &bytes, bytes.count)
                close(fd)
                context.connectionCount.wrappingSubtract(1, ordering: .relaxed)
                continue
            }
            Socket.setNoDelay(fd)
            let conn = Connection(id: nextID, fd: fd, peer: Socket.addressString(storage),
                                  limits: context.configuration.limits, now: now)
            nextID += 1
            connections[conn.id] = conn
            context.metrics.openConnections.wrappingAdd(1, ordering: .relaxed)
            do {
                try register(fd, id: conn.id, events: EPOLLIN.rawValue)
                conn.interest = EPOLLIN.rawValue
            } catch {
                closeConnection(conn)
            }
        }
    }

    // MARK: I/O events

    private func handle(_ conn: Connection, events: UInt32) {
        if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 && events & EPOLLIN.rawValue == 0 {
            closeConnection(conn)
            return
        }
        if events & EPOLLOUT.rawValue != 0 {
            if !conn.flush(now: Time.monotonicNanos()) { closeConnection(conn); return }
            afterWrite(conn)
            if connections[conn.id] == nil { return }
        }
        if events & EPOLLIN.rawValue != 0 { readAvailable(conn) }
    }

    private func readAvailable(_ conn: Connection) {
        let now = Time.monotonicNanos()
        if case .lingering = conn.state {
            // Discard until EOF.
            let n = read(conn.fd, readBuffer.baseAddress, readBuffer.count)
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) { closeConnection(conn) }
            return
        }
        guard case .reading = conn.state else {
            // Input while a handler runs (a pipelined request, or the
            // peer's FIN): stop reading until the answer is written, which
            // turns reading on again. Done here, when it happens, rather
            // than at every hand-off: two epoll_ctl calls per request for
            // what clients almost never do.
            if case .waiting = conn.state { setInterest(conn, 0) }
            return
        }
        let n = read(conn.fd, readBuffer.baseAddress, readBuffer.count)
        if n > 0 {
            if conn.parser.isAtRequestBoundary && conn.head == nil { conn.requestStartedAt = now }
            conn.lastActivity = now
            conn.parser.feed(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]))
            if conn.parser.isAtRequestBoundary && conn.head == nil { conn.requestStartedAt = nil }
        } else if n == 0 {
            conn.peerClosed = true
            setInterest(conn, 0)
        } else {
            if errno == EAGAIN || errno == EINTR { return }
            closeConnection(conn)
            return
        }
        processInput(conn)
    }

    /// Takes parser events while the connection is free to start a request.
    private func processInput(_ conn: Connection) {
        while case .reading = conn.state {
            let event: HTTPParserEvent?
            do {
                event = try conn.parser.next()
            } catch {
                fail(conn, error)
                return
            }
            guard let event else {
                if conn.peerClosed {
                    // EOF: nothing more will come; a half-received request is dropped.
                    if conn.hasPendingOutput { conn.state = .closing } else { closeConnection(conn) }
                }
                return
            }
            switch event {
            case .head(let head):
                conn.head = head
                conn.body = []
                if head.expectsContinue && conn.parser.bufferedByteCount == 0 && head.version.minor >= 1 {
                    conn.queue(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                    if !conn.flush(now: Time.monotonicNanos()) { closeConnection(conn); return }
                }
            case .body(let bytes):
                conn.body.append(contentsOf: bytes)
            case .end:
                dispatch(conn)
            }
        }
    }

    // MARK: requests

    private func dispatch(_ conn: Connection) {
        // The head moves into the request (its last use), not copied.
        guard let head = conn.head.take() else { return }
        conn.exchange = .init(method: head.method, path: head.path, keepAlive: head.keepAlive, minorVersion: head.version.minor)
        let (client, scheme) = context.configuration.trustedProxies.resolve(peer: conn.peer, headers: head.headers)
        conn.client = client
        let body = conn.body
        conn.body = []
        conn.requestStartedAt = nil
        conn.dispatchedAt = Time.monotonicNanos()
        conn.state = .waiting
        let match: RouteMatch
        do {
            match = try context.router.match(method: head.method, path: head.path)
        } catch {
            complete(conn, .error(error), route: nil)
            return
        }
        // Built with the match's parameters and pattern in place: every
        // copy of a request retains each of its strings again (a copy made
        // to add them afterwards was 4 % of `/api/me`'s instructions).
        let request = HTTPRequest(head: head, body: body, clientAddress: client, scheme: scheme,
                                  parameters: match.parameters, route: match.pattern)
        if case .deferred(let handler) = match.handler {
            // Answered later from another thread, through the mailbox like a
            // pool handler's answer; the loop does not wait.
            context.metrics.inFlight.wrappingAdd(1, ordering: .relaxed)
            let id = conn.id
            let mailbox = self.mailbox
            let pattern = match.pattern
            handler(request) { response in
                mailbox.post(.init(connectionID: id, response: response, route: pattern))
            }
            return
        }
        if let response = context.answerOnLoop(match, request) {
            complete(conn, response, route: match.pattern)
            return
        }
        // Reading stops while the handler runs, should more input arrive
        // (`readAvailable`): pipelined requests wait in the socket.
        context.metrics.inFlight.wrappingAdd(1, ordering: .relaxed)
        let id = conn.id
        let context = self.context
        let mailbox = self.mailbox
        let pool = match.execution == .blocking ? context.blockingPool : context.pool
        pool.submit {
            mailbox.post(.init(connectionID: id, response: context.run(match, request), route: match.pattern))
        }
    }

    private func drainMailbox() {
        for completion in mailbox.drain() {
            context.metrics.inFlight.wrappingSubtract(1, ordering: .relaxed)
            guard let conn = connections[completion.connectionID], case .waiting = conn.state else { continue }
            complete(conn, completion.response, route: completion.route)
            if case .reading = conn.state, connections[conn.id] != nil {
                processInput(conn)
            }
        }
        if mailbox.isStopRequested && !stopping { beginStop() }
    }

    /// Queues a request's answer and moves the connection on.
    private func complete(_ conn: Connection, _ response: HTTPResponse, route: String?) {
        guard let exchange = conn.exchange.take() else { return }
        let close = !exchange.keepAlive || stopping || conn.peerClosed
        let bytes = encoder.encode(response, headOnly: exchange.method == "HEAD", close: close,
                                   http10KeepAlive: exchange.minorVersion == 0 && exchange.keepAlive)
        conn.queue(bytes)
        record(conn, method: exchange.method, path: exchange.path, status: response.status, bytes: response.body.count,
               route: route)
        conn.state = close ? .closing : .reading
        if !conn.flush(now: Time.monotonicNanos()) { closeConnection(conn); return }
        afterWrite(conn)
    }

    /// A request the parser refused: answer it and close (RFC 9112 §9.6).
    private func fail(_ conn: Connection, _ error: HTTPError) {
        let response = HTTPResponse.error(error)
        conn.queue(encoder.encode(response, headOnly: false, close: true, http10KeepAlive: false))
        conn.dispatchedAt = Time.monotonicNanos()
        record(conn, method: conn.head?.method ?? "-", path: conn.head?.path ?? "-", status: error.status,
               bytes: response.body.count, route: nil)
        conn.head = nil
        conn.client = nil
        conn.state = .closing
        if !conn.flush(now: Time.monotonicNanos()) { closeConnection(conn); return }
        afterWrite(conn)
    }

    /// After a write: keep waiting for EPOLLOUT, half-close, or read on.
    private func afterWrite(_ conn: Connection) {
        if conn.hasPendingOutput {
            setInterest(conn, EPOLLOUT.rawValue)
            return
        }
        switch conn.state {
        case .closing:
            if conn.peerClosed {
                closeConnection(conn)
            } else {
                shutdown(conn.fd, Int32(SHUT_WR))
                conn.state = .lingering(until: Time.monotonicNanos() + 2_000_000_000)
                setInterest(conn, EPOLLIN.rawValue)
            }
        case .reading:
            setInterest(conn, conn.peerClosed ? 0 : EPOLLIN.rawValue)
        case .waiting, .lingering:
            break
        }
    }

    private func record(_ conn: Connection, method: String, path: String, status: Int, bytes: Int, route: String?) {
        let seconds = Double(Time.monotonicNanos() - conn.dispatchedAt) / 1e9
        context.metrics.record(shard: index, method: method, route: route ?? "unmatched", status: status, seconds: seconds)
        if context.configuration.accessLog {
            accessLog.append(method: method, path: path, route: route, status: status, bytes: bytes, seconds: seconds,
                             client: conn.client ?? conn.peer)
        }
    }

    // MARK: timeouts and stopping

    private func sweep(now: UInt64) {
        let c = context.configuration
        let headerLimit = UInt64(c.headerTimeoutMillis) * 1_000_000
        let idleLimit = UInt64(c.idleTimeoutMillis) * 1_000_000
        for conn in Array(connections.values) {
            switch conn.state {
            case .reading:
                if let started = conn.requestStartedAt, conn.head == nil, now - started > headerLimit {
                    fail(conn, HTTPError(408, "request_timeout", "The request headers did not arrive in time."))
                } else if now - conn.lastActivity > idleLimit {
                    if conn.head != nil || !conn.parser.isAtRequestBoundary {
                        fail(conn, HTTPError(408, "request_timeout", "The request stalled."))
                    } else {
                        closeConnection(conn)
                    }
                } else if stopping && conn.head == nil && conn.parser.isAtRequestBoundary && conn.parser.bufferedByteCount == 0 {
                    closeConnection(conn)
                }
            case .closing:
                if now - conn.lastActivity > idleLimit { closeConnection(conn) }
            case .lingering(let until):
                if now > until { closeConnection(conn) }
            case .waiting:
                break
            }
        }
    }

    private func beginStop() {
        stopping = true
        stopDeadline = Time.monotonicNanos() + UInt64(context.configuration.shutdownTimeoutMillis) * 1_000_000
        epoll_ctl(epoll, EPOLL_CTL_DEL, listener, nil)
        close(listener)
        listener = -1
        sweep(now: Time.monotonicNanos())
    }

    // MARK: epoll plumbing

    private func register(_ fd: Int32, id: UInt64, events: UInt32) throws(SystemError) {
        var ev = epoll_event(events: events, data: epoll_data_t(u64: id))
        _ = try sys("epoll_ctl(ADD)") { epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &ev) }
    }

    private func setInterest(_ conn: Connection, _ events: UInt32) {
        guard conn.interest != events else { return }
        var ev = epoll_event(events: events, data: epoll_data_t(u64: conn.id))
        epoll_ctl(epoll, EPOLL_CTL_MOD, conn.fd, &ev)
        conn.interest = events
    }

    private func closeConnection(_ conn: Connection) {
        guard connections.removeValue(forKey: conn.id) != nil else { return }
        epoll_ctl(epoll, EPOLL_CTL_DEL, conn.fd, nil)
        close(conn.fd)
        context.connectionCount.wrappingSubtract(1, ordering: .relaxed)
        context.metrics.openConnections.wrappingSubtract(1, ordering: .relaxed)
    }
}
