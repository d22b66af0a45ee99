import CLinux
import COpenSSL
import CShims
import Core
import Crypto
#if canImport(Glibc)
import Glibc
#endif

/// A blocking socket, optionally wrapped in TLS, that speaks SMTP lines.
/// Lives on the calling thread for one `send`.
final class SMTPConnection {
    private let fd: Int32
    private var ssl: OpaquePointer?
    private var replies = SMTPReplyParser()
    private let timeoutMillis: Int

    private init(fd: Int32, timeoutMillis: Int) {
        self.fd = fd
        self.timeoutMillis = timeoutMillis
    }

    func close() {
        if let ssl {
            SSL_free(ssl)
            self.ssl = nil
        }
        _ = Glibc.close(fd)
    }

    private static func network(_ text: String) -> SMTPError {
        SMTPError(kind: .network, isTemporary: true, message: text)
    }

    private static func timeout(_ text: String) -> SMTPError {
        SMTPError(kind: .timeout, isTemporary: true, message: text)
    }

    private static func errnoText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// getaddrinfo, then a non-blocking connect bounded by the timeout on
    /// each address in turn; the socket is blocking afterwards with
    /// SO_RCVTIMEO / SO_SNDTIMEO set to the timeout.
    static func open(host: String, port: UInt16, timeoutMillis: Int) throws(SMTPError) -> SMTPConnection {
        pt_ignore_sigpipe()
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let rc = getaddrinfo(bare, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw network("cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        let deadline = Time.monotonicNanos() + UInt64(max(1, timeoutMillis)) * 1_000_000
        var lastError = "no address"
        var timedOut = false
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let ai = node {
            node = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 { lastError = errnoText(errno); continue }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var code: Int32 = 0
            if connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) != 0 {
                code = errno
                if code == EINPROGRESS {
                    let now = Time.monotonicNanos()
                    let left = now < deadline ? Int32(min(Int(Int32.max), Int((deadline - now) / 1_000_000) + 1)) : 0
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    let n = poll(&p, 1, left)
                    if n == 0 {
                        code = ETIMEDOUT
                        timedOut = true
                    } else if n < 0 {
                        code = errno
                    } else {
                        var soError: Int32 = 0
                        var len = socklen_t(4)
                        getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
                        code = soError
                    }
                }
            }
            if code != 0 {
                lastError = errnoText(code)
                _ = Glibc.close(fd)
                if timedOut { break }
                continue
            }
            _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, 4)
            var tv = timeval(tv_sec: timeoutMillis / 1000, tv_usec: (timeoutMillis % 1000) * 1000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            return SMTPConnection(fd: fd, timeoutMillis: timeoutMillis)
        }
        if timedOut { throw timeout("connecting to \(host):\(port) timed out after \(timeoutMillis) ms") }
        throw network("cannot connect to \(host):\(port): \(lastError)")
    }

    /// TLS handshake on the open socket with SNI (names, not IP literals)
    /// and hostname or IP verification.
    func startTLS(context: OpaquePointer, host: String) throws(SMTPError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context) else {
            throw SMTPError(kind: .tls, isTemporary: false, message: "SSL_new: \(openSSLErrorReason())")
        }
        self.ssl = ssl
        replies.reset()  // nothing read in clear may be taken as protected
        SSL_set_fd(ssl, fd)
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr()
        var v6 = in6_addr()
        let isIP = inet_pton(AF_INET, bare, &v4) == 1 || inet_pton(AF_INET6, bare, &v6) == 1
        if isIP {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), bare)
        } else {
            _ = pt_ssl_set_tlsext_host_name(ssl, bare)
            SSL_set1_host(ssl, bare)
        }
        let r = SSL_connect(ssl)
        if r == 1 { return }
        let verify = SSL_get_verify_result(ssl)
        if verify != Int(X509_V_OK) {
            ERR_clear_error()
            throw SMTPError(kind: .tls, isTemporary: false,
                            message: "TLS certificate of \(host) rejected: \(String(cString: X509_verify_cert_error_string(verify)))")
        }
        let e = errno
        let code = SSL_get_error(ssl, r)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE || (code == SSL_ERROR_SYSCALL && (e == EAGAIN || e == EWOULDBLOCK)) {
            ERR_clear_error()
            throw Self.timeout("TLS handshake with \(host) timed out after \(timeoutMillis) ms")
        }
        if code == SSL_ERROR_SYSCALL {
            ERR_clear_error()
            throw Self.network("TLS handshake with \(host) failed: \(e != 0 ? Self.errnoText(e) : "connection closed")")
        }
        throw SMTPError(kind: .tls, isTemporary: false, message: "TLS handshake with \(host) failed: \(openSSLErrorReason())")
    }

    func write(_ text: String) throws(SMTPError) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let chunk = min(bytes.count - offset, 1 << 20)
            let n: Int
            var sslCode: Int32 = 0
            if let ssl {
                ERR_clear_error()
                let r = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32(chunk)) }
                if r <= 0 { sslCode = SSL_get_error(ssl, r) }
                n = Int(r)
            } else {
                n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, chunk) }
            }
            if n <= 0 {
                let e = errno
                if e == EINTR && ssl == nil { continue }
                ERR_clear_error()
                if e == EAGAIN || e == EWOULDBLOCK || sslCode == SSL_ERROR_WANT_WRITE || sslCode == SSL_ERROR_WANT_READ {
                    throw Self.timeout("sending timed out after \(timeoutMillis) ms")
                }
                throw Self.network("sending failed: \(e != 0 ? Self.errnoText(e) : "connection closed")")
            }
            offset += n
        }
    }

    /// Sends one command line. Command lines never go into error texts, so
    /// AUTH secrets appear nowhere but on the wire.
    func command(_ line: String) throws(SMTPError) {
        try write(line + "\r\n")
    }

    private func fill() throws(SMTPError) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            errno = 0
            let n: Int
            var sslCode: Int32 = 0
            if let ssl {
                ERR_clear_error()
                let r = SSL_read(ssl, &chunk, Int32(chunk.count))
                if r <= 0 { sslCode = SSL_get_error(ssl, r) }
                n = Int(r)
            } else {
                n = Glibc.read(fd, &chunk, chunk.count)
            }
            if n > 0 { replies.feed(chunk[0..<n]); return }
            let e = errno
            if n < 0 && e == EINTR && ssl == nil { continue }
            ERR_clear_error()
            if e == EAGAIN || e == EWOULDBLOCK || sslCode == SSL_ERROR_WANT_READ || sslCode == SSL_ERROR_WANT_WRITE {
                throw Self.timeout("no answer from the server within \(timeoutMillis) ms")
            }
            if n == 0 || sslCode == SSL_ERROR_ZERO_RETURN || e == 0 {
                throw Self.network("the server closed the connection")
            }
            throw Self.network("reading failed: \(Self.errnoText(e))")
        }
    }

    /// A whole reply: `250-…` lines up to the `250 …` one.
    func readReply() throws(SMTPError) -> SMTPReply {
        while true {
            if let reply = try replies.next() { return reply }
            try fill()
        }
    }

    /// Reads a reply and fails (after QUIT) unless it has the expected code.
    @discardableResult
    func expect(_ code: Int, step: String) throws(SMTPError) -> SMTPReply {
        let reply = try readReply()
        guard reply.code == code else {
            quit()
            let temporary = reply.isTemporary || (reply.code < 400)
            throw SMTPError(kind: .rejected, isTemporary: temporary, replyCode: reply.code,
                            message: "\(step) refused: \(reply.summary)")
        }
        return reply
    }

    /// Best effort QUIT; errors ignored.
    func quit() {
        guard (try? write("QUIT\r\n")) != nil else { return }
        _ = try? readReply()
    }
}
