import CLinux
import COpenSSL
import CShims
import Core
#if canImport(Glibc)
import Glibc
#endif

/// HTTPS in front of a loopback HTTP server, for clients that must verify
/// TLS (the agent talking to its hub): each connection is TLS-accepted with
/// the given certificate, one request (head + Content-Length body) is read
/// and passed to `upstreamPort`, and the answer is relayed back until the
/// upstream closes. Enough for clients that send `Connection: close`, as
/// our client does; long polls simply hold their connection's thread.
public final class TLSTerminatingProxy: Sendable {
    private let raw: RawServer
    public var port: UInt16 { raw.port }

    public init?(cert: String, key: String, upstreamPort: UInt16) {
        guard let ctx = ServerCTX(cert: cert, key: key) else { return nil }
        guard let raw = RawServer(handler: { fd in Self.relay(fd, ctx: ctx, upstreamPort: upstreamPort) }) else { return nil }
        self.raw = raw
    }

    public func stop() { raw.stop() }

    private static func relay(_ fd: Int32, ctx: ServerCTX, upstreamPort: UInt16) {
        guard let ssl = SSL_new(ctx.ctx) else { return }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, fd)
        guard SSL_accept(ssl) == 1 else { return }
        guard let request = readRequest(ssl) else { return }
        let up = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard up >= 0 else { return }
        defer { close(up) }
        guard withLoopbackSockaddr(ipv6: false, port: upstreamPort, { connect(up, $0, $1) }) == 0 else { return }
        var off = 0
        while off < request.count {
            let n = request.withUnsafeBytes { write(up, $0.baseAddress! + off, $0.count - off) }
            if n <= 0 { return }
            off += n
        }
        var buf = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = read(up, &buf, buf.count)
            if n <= 0 { break }
            if SSL_write(ssl, buf, Int32(n)) <= 0 { return }
        }
        SSL_shutdown(ssl)
    }

    /// The head and as many body bytes as Content-Length says.
    private static func readRequest(_ ssl: OpaquePointer) -> [UInt8]? {
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 16384)
        var headEnd: Int?
        var needed = Int.max
        while data.count < needed {
            let n = SSL_read(ssl, &buf, Int32(buf.count))
            if n <= 0 { return nil }
            data.append(contentsOf: buf[0..<Int(n)])
            if headEnd == nil, let end = findHeadEnd(data) {
                headEnd = end
                let head = String(decoding: data[0..<end], as: UTF8.self).lowercased()
                var length = 0
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: " ")) ?? 0
                }
                needed = end + length
            }
        }
        return data
    }

    private static func findHeadEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for i in 0...(data.count - 4) where data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}


private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
