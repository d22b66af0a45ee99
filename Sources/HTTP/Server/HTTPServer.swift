import Core
#if canImport(Glibc)
import Glibc
#endif

/// The hub's HTTP/1.1 server: `eventLoops` epoll threads, each with its own
/// `SO_REUSEPORT` listening socket, and a worker pool for handlers.
///
/// Life cycle: `start()` binds (errors surface here, synchronously), then
/// `shutdown()` stops accepting, lets in-flight requests finish within
/// `shutdownTimeoutMillis`, closes every connection and joins the threads.
public final class HTTPServer: Sendable {
    private let context: ServerContext
    private let mailboxes: [LoopMailbox]
    private let threads: [ThreadHandle]
    /// The bound port (the configured one, or the kernel's pick for port 0).
    public let port: UInt16

    public var metrics: HTTPMetrics { context.metrics }

    public init(configuration: ServerConfiguration, router: Router, metrics: HTTPMetrics = HTTPMetrics()) throws(SystemError) {
        var config = configuration
        if config.eventLoops <= 0 { config.eventLoops = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
        // Listeners first, so a port in use fails before any thread starts.
        var listeners: [Int32] = []
        do {
            // Every loop's socket carries SO_REUSEPORT, which would also let a
            // second hub join the port silently. A plain bind first proves the
            // port is free (and picks one for port 0).
            // With port 0 another socket can take the probed port before we
            // bind it again: then probe anew (a fixed port is never retried).
            var attempt = 0
            while true {
                let probe = try Socket.listen(host: config.host, port: config.port, reusePort: false)
                let free = Socket.localPort(probe)
                close(probe)
                do {
                    listeners.append(try Socket.listen(host: config.host, port: free, reusePort: true))
                    break
                } catch where config.port == 0 && error.errno == EADDRINUSE && attempt < 20 {
                    attempt += 1
                }
            }
            let first = listeners[0]
            let bound = Socket.localPort(first)
            for _ in 1..<config.eventLoops {
                listeners.append(try Socket.listen(host: config.host, port: bound, reusePort: true))
            }
            port = bound
        } catch {
            for fd in listeners { close(fd) }
            throw error
        }
        let context = ServerContext(configuration: config, router: router, metrics: metrics)
        self.context = context
        var boxes: [LoopMailbox] = []
        var handles: [ThreadHandle] = []
        for (i, fd) in listeners.enumerated() {
            let mailbox = try LoopMailbox()
            let loop = try LoopSeed(context: context, index: i, listener: fd, mailbox: mailbox)
            boxes.append(mailbox)
            handles.append(startThread(name: "http-loop-\(i)") { loop.run() })
        }
        mailboxes = boxes
        threads = handles
    }

    /// Graceful stop; returns when every loop and worker thread has ended.
    public func shutdown() {
        for m in mailboxes { m.requestStop() }
        for t in threads { t.join() }
        context.pool.shutdown()
        context.blockingPool.shutdown()
    }
}

/// Builds the event loop on its own thread: the loop object is not Sendable,
/// so only these Sendable parts cross threads.
private struct LoopSeed: Sendable {
    let context: ServerContext
    let index: Int
    let listener: Int32
    let mailbox: LoopMailbox

    init(context: ServerContext, index: Int, listener: Int32, mailbox: LoopMailbox) throws(SystemError) {
        self.context = context
        self.index = index
        self.listener = listener
        self.mailbox = mailbox
    }

    func run() {
        do {
            let loop = try EventLoop(context: context, index: index, listener: listener, mailbox: mailbox)
            loop.run()
        } catch {
            Log.shared.error("event loop failed to start", ["error": "\(error)"])
        }
    }
}
