#if canImport(Glibc)
import Glibc
#endif
import CPostgres
import Core
import Synchronization

/// A libpq connection of its own that LISTENs on one channel and hands each
/// notification's payload to a callback, on a thread of its own.
///
/// How libpq delivers notifications (PostgreSQL manual, libpq "Asynchronous
/// Notification", https://www.postgresql.org/docs/15/libpq-notify.html):
/// the server pushes them at any time once `LISTEN` ran; the client waits
/// for its socket (`PQsocket`) to be readable, calls `PQconsumeInput` to
/// read what arrived without blocking, then takes the notifications with
/// `PQnotifies` until it returns NULL, freeing each with `PQfreemem`.
///
/// Notifications are not stored for a session that is not listening: while
/// the connection is down (server restart, network) they are lost. So after
/// every (re)connect, once `LISTEN` is in place, the callback gets
/// `.connected`: whoever listens re-reads the database then, which covers
/// whatever was missed. Reconnects back off from 250 ms to 5 s.
///
/// The connection lives on the listener's thread only; `stop` wakes it
/// through a pipe and joins it.
final class PostgresListener: Sendable {
    enum Event: Sendable, Equatable {
        /// Listening (again): notifications may have been missed before this.
        case connected
        case notification(String)
    }

    private let conninfo: String
    /// For logs: the URL without its password.
    private let redacted: String
    let channel: String
    private let stopping = Atomic<Bool>(false)
    /// [read end, write end]: a byte written wakes the thread's poll().
    private let pipeFDs: [Int32]
    private let thread = Mutex<ThreadHandle?>(nil)
    private let closed = Atomic<Bool>(false)

    static let initialBackoffMillis: Int32 = 250
    static let maxBackoffMillis: Int32 = 5_000

    init(url: DatabaseURL, channel: String) throws(StoreError) {
        guard case .postgres(let conninfo) = url.kind else { throw StoreError.misuse("LISTEN needs a postgres url") }
        self.conninfo = conninfo
        redacted = url.redacted
        self.channel = channel
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw StoreError.misuse("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        pipeFDs = fds
    }

    deinit { closeFDs() }

    /// Starts the thread; `onEvent` runs on it (keep it short: notifications
    /// wait while it runs).
    func start(_ onEvent: @escaping @Sendable (Event) -> Void) {
        thread.withLock { t in
            guard t == nil else { return }
            t = startThread(name: "pg-listen") { [self] in run(onEvent) }
        }
    }

    /// Ends the thread (closing its connection) and waits for it. Once:
    /// afterwards the pipe is closed and its numbers may belong to others.
    func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var byte: UInt8 = 1
        _ = write(pipeFDs[1], &byte, 1)
        let handle = thread.withLock { t in defer { t = nil }; return t }
        handle?.join()
        closeFDs()
    }

    private func closeFDs() {
        guard !closed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        for fd in pipeFDs { close(fd) }
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func run(_ onEvent: @Sendable (Event) -> Void) {
        var conn: OpaquePointer?
        defer { if let conn { PQfinish(conn) } }
        var backoff = Self.initialBackoffMillis
        var down = false
        while !isStopping {
            guard let c = conn else {
                switch connect() {
                case .success(let c):
                    conn = c
                    backoff = Self.initialBackoffMillis
                    if down { Log.shared.info("listening for wake-ups again", ["database": redacted]) }
                    down = false
                    onEvent(.connected)
                    // LISTEN's answer may have brought notifications along.
                    drain(c, onEvent)
                case .failure(let message):
                    if !down { Log.shared.warn("wake-up listener cannot connect; retrying", ["database": redacted, "error": message]) }
                    down = true
                    if waitForStop(millis: backoff) { return }
                    backoff = min(backoff * 2, Self.maxBackoffMillis)
                }
                continue
            }
            var fds = [pollfd(fd: PQsocket(c), events: Int16(POLLIN), revents: 0),
                       pollfd(fd: pipeFDs[0], events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, -1)
            if n < 0 && errno == EINTR { continue }
            if isStopping || fds[1].revents != 0 { return }
            // Readable, or an error/hang-up on the socket: PQconsumeInput
            // tells which (0 = the connection is gone).
            if PQconsumeInput(c) == 0 || PQstatus(c) != CONNECTION_OK {
                Log.shared.warn("wake-up listener lost its connection; reconnecting",
                                ["database": redacted, "error": Self.trimmed(PQerrorMessage(c))])
                PQfinish(c)
                conn = nil
                down = true
                continue
            }
            drain(c, onEvent)
        }
    }

    private func drain(_ c: OpaquePointer, _ onEvent: @Sendable (Event) -> Void) {
        while let n = PQnotifies(c) {
            let channel = String(cString: n.pointee.relname)
            let payload = String(cString: n.pointee.extra)
            PQfreemem(n)
            if channel == self.channel { onEvent(.notification(payload)) }
        }
    }

    private enum Connected {
        case success(OpaquePointer)
        case failure(String)
    }

    /// A new session with `LISTEN` in place. The keepalives and the connect
    /// timeout come before the URL, so a URL that sets its own wins (libpq
    /// processes the keyword arrays in order, the expanded `dbname` URL
    /// included, and the last value wins). Keepalives make a silently
    /// dropped network connection fail within about half a minute instead
    /// of never: a listener only reads, so it would not notice otherwise.
    /// A 5 s connect timeout bounds how long `stop` can wait during an outage.
    private func connect() -> Connected {
        let c: OpaquePointer
        switch LibPQ.connect([("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"),
                              ("keepalives_count", "3"), ("connect_timeout", "5"), ("dbname", conninfo),
                              ("application_name", "pingtxt-listen")]) {
        case .success(let connected): c = connected
        case .failure(let f): return .failure(f.message)
        }
        PQsetNoticeProcessor(c, { _, _ in }, nil)
        let res = PQexec(c, "LISTEN " + Self.quoteIdentifier(channel))
        defer { PQclear(res) }
        guard PQresultStatus(res) == PGRES_COMMAND_OK else {
            let message = Self.trimmed(PQerrorMessage(c))
            PQfinish(c)
            return .failure(message)
        }
        return .success(c)
    }

    /// Sleeps on the stop pipe; true when stopping.
    private func waitForStop(millis: Int32) -> Bool {
        var fd = pollfd(fd: pipeFDs[0], events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, millis)
        return isStopping
    }

    /// `"name"`, with any `"` doubled.
    static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    private static func trimmed(_ p: UnsafePointer<CChar>?) -> String { LibPQ.oneLine(p) }
}
