import CLinux
import COpenSSL
import CShims
import Core
import Crypto
import HTTP
#if canImport(Glibc)
import Glibc
#endif

/// Connecting (one address after the other, bound to the source address when
/// set) and the TLS handshake.
extension ClientLoop {
    // MARK: connecting

    /// Tries addresses in order until one connects or none is left. While more
    /// than one is left, an attempt gets a share of the remaining time.
    func connectNext(_ ex: Exchange) {
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
    func bindSource(_ fd: Int32, _ source: IPAddress, for target: IPAddress) -> String? {
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

    func connectFailed(_ ex: Exchange, _ text: String) {
        closeSocket(ex)
        ex.lastConnectError = text
        ex.addrIndex += 1
        schedule(ex, at: ex.deadline)
        connectNext(ex)
    }

    func connected(_ ex: Exchange) {
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

    func startTLS(_ ex: Exchange) {
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

    func driveHandshake(_ ex: Exchange) {
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
}
