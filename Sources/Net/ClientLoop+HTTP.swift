import CLinux
import COpenSSL
import CShims
import Core
import Crypto
import HTTP
#if canImport(Glibc)
import Glibc
#endif

/// Writing the request, reading and parsing the answer, redirects.
extension ClientLoop {
    // MARK: HTTP exchange

    func startSend(_ ex: Exchange) {
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

    func writeOut(_ ex: Exchange) {
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

    func readIn(_ ex: Exchange) {
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

    func endOfStream(_ ex: Exchange) {
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

    func shouldRedirect(_ ex: Exchange, _ head: ResponseHead) -> Bool {
        guard let request = ex.request, request.followRedirects else { return false }
        switch head.status {
        case 301, 302, 303, 307, 308: return head.headers["Location"] != nil
        default: return false
        }
    }

    func redirect(_ ex: Exchange, _ head: ResponseHead) {
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
}
