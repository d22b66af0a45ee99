import CLinux
import CShims
import Core
#if canImport(Glibc)
import Glibc
#endif

/// Socket set-up and address formatting for the server.
enum Socket {
    /// A non-blocking listening socket on host:port. With `reusePort` every
    /// event loop binds its own socket to the same port and the kernel
    /// spreads new connections over them.
    static func listen(host: String, port: UInt16, reusePort: Bool, backlog: Int32 = 1024) throws(SystemError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &result)
        guard rc == 0, let info = result else {
            throw SystemError("getaddrinfo(\(host))", errno: EINVAL)
        }
        defer { freeaddrinfo(result) }
        let fd = try sys("socket") {
            socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            var one: Int32 = 1
            _ = try sys("setsockopt(SO_REUSEADDR)") { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, 4) }
            if reusePort {
                _ = try sys("setsockopt(SO_REUSEPORT)") { setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, 4) }
            }
            _ = try sys("bind(\(host):\(port))") { bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) }
            _ = try sys("listen") { Glibc.listen(fd, backlog) }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// The port a socket is bound to (after binding port 0).
    static func localPort(_ fd: Int32) -> UInt16 {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return port(of: storage)
    }

    static func port(of storage: sockaddr_storage) -> UInt16 {
        var s = storage
        return withUnsafePointer(to: &s) { p in
            switch Int32(storage.ss_family) {
            case AF_INET: return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            case AF_INET6: return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            default: return 0
            }
        }
    }

    /// The numeric address of a peer (`127.0.0.1`, `::1`).
    static func addressString(_ storage: sockaddr_storage) -> String {
        var s = storage
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafePointer(to: &s) { p -> String in
            switch Int32(storage.ss_family) {
            case AF_INET:
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var addr = sin.pointee.sin_addr
                    inet_ntop(AF_INET, &addr, &buf, socklen_t(buf.count))
                    return cText(buf)
                }
            case AF_INET6:
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                    var addr = sin.pointee.sin6_addr
                    inet_ntop(AF_INET6, &addr, &buf, socklen_t(buf.count))
                    let text = cText(buf)
                    // An IPv4 client on a dual-stack socket: report it as IPv4.
                    return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
                }
            default:
                return "unknown"
            }
        }
    }

    private static func cText(_ buf: [CChar]) -> String {
        let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, 4)
    }
}
