import Core
#if canImport(Glibc)
import Glibc
#endif

/// One client connection, owned by one event loop thread. Requests are taken
/// one at a time: while a handler runs, no further pipelined request is
/// parsed, so answers leave in the order requests came.
///
/// The stored `var`s are `@exclusivity(unchecked)`: only the loop's thread
/// touches a connection, and no access to one of them is open while another
/// access reaches the same field (the parser works on its own value; `flush`
/// reads `output` and writes `outputOffset`). The runtime check Swift makes
/// on each access to a class's field was 16 calls and about 1,300
/// instructions of `/api/me`'s 29,700 (callgrind); a violation would now be
/// undefined rather than a trap, which is why the reasoning is here.
final class Connection {
    enum State {
        /// Parsing requests.
        case reading
        /// A handler is running on the worker pool.
        case waiting
        /// Flushing the last answer; then half-close.
        case closing
        /// Half-closed after an error answer: reading and discarding until the
        /// peer closes or a short deadline passes, so the kernel does not
        /// reset the connection and destroy the answer in flight.
        case lingering(until: UInt64)
    }

    let id: UInt64
    let fd: Int32
    let peer: String
    /// The current request's client as resolved through trusted proxies.
    @exclusivity(unchecked) var client: String?
    @exclusivity(unchecked) var parser: HTTPRequestParser
    @exclusivity(unchecked) var state: State = .reading

    /// What answering a dispatched request needs from its head, which the
    /// request itself took: the whole head kept here too was a copy and a
    /// destroy of every header per request.
    struct Exchange {
        let method: String
        let path: String
        let keepAlive: Bool
        let minorVersion: Int
    }

    /// The request being received (nil once dispatched).
    @exclusivity(unchecked) var head: HTTPRequestHead?
    /// The request being answered (set while `waiting`).
    @exclusivity(unchecked) var exchange: Exchange?
    @exclusivity(unchecked) var body: [UInt8] = []
    /// When the first byte of the current request arrived (header timeout).
    @exclusivity(unchecked) var requestStartedAt: UInt64?
    /// When the request's body ended (duration in the access log).
    @exclusivity(unchecked) var dispatchedAt: UInt64 = 0
    /// Last read or write progress (idle timeout).
    @exclusivity(unchecked) var lastActivity: UInt64
    /// The peer sent EOF: answer what is buffered, then close.
    @exclusivity(unchecked) var peerClosed = false

    @exclusivity(unchecked) var output: [UInt8] = []
    @exclusivity(unchecked) var outputOffset = 0
    /// The epoll interest currently registered.
    @exclusivity(unchecked) var interest: UInt32 = 0

    init(id: UInt64, fd: Int32, peer: String, limits: HTTPLimits, now: UInt64) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.parser = HTTPRequestParser(limits: limits)
        self.lastActivity = now
    }

    var hasPendingOutput: Bool { outputOffset < output.count }

    func queue(_ bytes: [UInt8]) {
        if output.isEmpty {
            output = bytes
            outputOffset = 0
        } else {
            output.append(contentsOf: bytes)
        }
    }

    /// Writes what it can without blocking. Returns false when the socket failed.
    func flush(now: UInt64) -> Bool {
        while outputOffset < output.count {
            let n = output.withUnsafeBytes { buf in
                write(fd, buf.baseAddress! + outputOffset, buf.count - outputOffset)
            }
            if n > 0 {
                outputOffset += n
                lastActivity = now
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return true
            } else {
                return false
            }
        }
        output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
        outputOffset = 0
        return true
    }
}
