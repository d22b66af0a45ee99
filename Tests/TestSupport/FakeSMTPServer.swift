import COpenSSL
import CShims
import Core
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback ESMTP server for the mail tests (real sockets, a thread per
/// connection). Speaks greeting, EHLO, STARTTLS, AUTH PLAIN/LOGIN, MAIL,
/// RCPT, DATA (dot-unstuffed), RSET, NOOP, QUIT; records every command line
/// (AUTH secrets masked) and every accepted message.
public final class FakeSMTPServer: Sendable {
    public enum Step: Sendable, Equatable {
        case greeting, ehlo, mail, rcpt, data, endOfData
    }

    public struct Config: Sendable {
        /// EHLO keywords offered (STARTTLS is dropped once TLS is on).
        public var capabilities: [String] = ["STARTTLS", "AUTH PLAIN LOGIN", "8BITMIME"]
        /// TLS from the first byte (needs cert and key).
        public var implicitTLS = false
        public var cert: String?
        public var key: String?
        /// When set, AUTH must present these and MAIL needs a successful AUTH.
        public var username: String?
        public var password: String?
        /// Answer `code` instead of success at `step` (e.g. 451 at `.rcpt`).
        public var failure: (step: Step, code: Int)?
        /// Only refuse this recipient at `.rcpt` (nil = every recipient).
        public var failingRecipient: String?
        /// `failure` applies to this many attempts only, then the step
        /// succeeds (nil = always): a server that says 4xx for a while.
        public var failureTimes: Int?
        /// Accept connections and never say anything.
        public var silent = false

        public init() {}
    }

    public struct Received: Sendable, Equatable {
        public let from: String
        public let recipients: [String]
        /// The message as received, dot-unstuffed, CRLF endings, without the final `.`.
        public let data: String
        public let authenticatedUser: String?
        public let overTLS: Bool
    }

    private let raw: RawServer
    private let state: Mutex<([Received], [String])> = Mutex(([], []))
    private let failuresLeft: Mutex<Int?>
    private let refusedData: Mutex<[Received]> = Mutex([])
    public var port: UInt16 { raw.port }

    public var messages: [Received] { state.withLock { $0.0 } }
    /// Messages whose data arrived but were refused at `.endOfData`.
    public var refused: [Received] { refusedData.withLock { $0 } }
    /// Every command line received, in order (AUTH secrets as `***`).
    public var commands: [String] { state.withLock { $0.1 } }

    public init?(_ config: Config) {
        failuresLeft = Mutex(config.failureTimes)
        let ctx: ServerCTX?
        if let cert = config.cert, let key = config.key {
            guard let c = ServerCTX(cert: cert, key: key) else { return nil }
            ctx = c
        } else {
            ctx = nil
        }
        let box = Mutex<FakeSMTPServer?>(nil)
        guard let raw = RawServer(handler: { fd in
            guard let server = box.withLock({ $0 }) else { return }
            server.serve(fd, config: config, ctx: ctx)
        }) else { return nil }
        self.raw = raw
        box.withLock { $0 = self }
    }

    public func stop() { raw.stop() }

    private func log(_ line: String) { state.withLock { $0.1.append(line) } }

    private func serve(_ fd: Int32, config: Config, ctx: ServerCTX?) {
        if config.silent {
            var b = [UInt8](repeating: 0, count: 512)
            while read(fd, &b, b.count) > 0 {}
            return
        }
        let conn = FakeSMTPWire(fd: fd)
        defer { conn.end() }
        if config.implicitTLS {
            guard let ctx, conn.accept(ctx.ctx) else { return }
        }
        func fails(_ step: Step) -> Int? {
            guard let f = config.failure, f.step == step else { return nil }
            let due = failuresLeft.withLock { left -> Bool in
                guard let n = left else { return true }
                if n <= 0 { return false }
                left = n - 1
                return true
            }
            return due ? f.code : nil
        }
        if let code = fails(.greeting) { conn.send("\(code) service not available"); return }
        conn.send("220 fake.test ESMTP ready")
        var user: String?
        var from: String?
        var recipients: [String] = []
        while let line = conn.readLine() {
            let upper = line.uppercased()
            log(upper.hasPrefix("AUTH PLAIN ") ? "AUTH PLAIN ***" : line)
            if upper.hasPrefix("EHLO ") || upper.hasPrefix("HELO ") {
                if let code = fails(.ehlo) { conn.send("\(code) no"); continue }
                let caps = config.capabilities.filter { !(conn.tls && $0.uppercased() == "STARTTLS") }
                var reply = ["fake.test greets you"] + caps
                let last = reply.removeLast()
                conn.send(reply.map { "250-\($0)" }.joined(separator: "\r\n") + (reply.isEmpty ? "" : "\r\n") + "250 \(last)")
            } else if upper == "STARTTLS" {
                guard let ctx, !conn.tls, config.capabilities.contains("STARTTLS") else {
                    conn.send("502 not offered"); continue
                }
                conn.send("220 go ahead")
                guard conn.accept(ctx.ctx) else { return }
                user = nil; from = nil; recipients = []
            } else if upper.hasPrefix("AUTH PLAIN") {
                var token = String(line.dropFirst("AUTH PLAIN".count)).trimmingCharacters(in: " ")
                if token.isEmpty {
                    conn.send("334 ")
                    guard let t = conn.readLine() else { return }
                    log("***")
                    token = t
                }
                let parts = decodeBase64(token).split(separator: 0, omittingEmptySubsequences: false)
                let u = parts.count == 3 ? String(decoding: parts[1], as: UTF8.self) : ""
                let p = parts.count == 3 ? String(decoding: parts[2], as: UTF8.self) : ""
                if u == config.username && p == config.password { user = u; conn.send("235 2.7.0 accepted") } else { conn.send("535 5.7.8 bad credentials") }
            } else if upper == "AUTH LOGIN" {
                conn.send("334 VXNlcm5hbWU6")
                guard let u64 = conn.readLine() else { return }
                log("***")
                conn.send("334 UGFzc3dvcmQ6")
                guard let p64 = conn.readLine() else { return }
                log("***")
                let u = String(decoding: decodeBase64(u64), as: UTF8.self)
                let p = String(decoding: decodeBase64(p64), as: UTF8.self)
                if u == config.username && p == config.password { user = u; conn.send("235 2.7.0 accepted") } else { conn.send("535 5.7.8 bad credentials") }
            } else if upper.hasPrefix("MAIL FROM:") {
                if config.username != nil && user == nil { conn.send("530 5.7.0 authentication required"); continue }
                if let code = fails(.mail) { conn.send("\(code) sender refused"); continue }
                from = angle(line); recipients = []
                conn.send("250 ok")
            } else if upper.hasPrefix("RCPT TO:") {
                guard from != nil else { conn.send("503 need MAIL"); continue }
                let r = angle(line)
                if config.failingRecipient == nil || config.failingRecipient == r, let code = fails(.rcpt) {
                    conn.send("\(code) \(code >= 500 ? "5.1.1 no such user" : "4.3.0 try later")"); continue
                }
                recipients.append(r)
                conn.send("250 ok")
            } else if upper == "DATA" {
                guard from != nil, !recipients.isEmpty else { conn.send("503 need RCPT"); continue }
                if let code = fails(.data) { conn.send("\(code) not now"); continue }
                conn.send("354 end with .")
                var data = ""
                while true {
                    guard let l = conn.readLine() else { return }
                    if l == "." { break }
                    data += (l.hasPrefix(".") ? String(l.dropFirst()) : l) + "\r\n"
                }
                let m = Received(from: from ?? "", recipients: recipients, data: data, authenticatedUser: user, overTLS: conn.tls)
                if let code = fails(.endOfData) {
                    refusedData.withLock { $0.append(m) }
                    from = nil; recipients = []
                    conn.send("\(code) refused")
                    continue
                }
                state.withLock { $0.0.append(m) }
                from = nil; recipients = []
                conn.send("250 2.0.0 queued")
            } else if upper == "RSET" || upper == "NOOP" {
                conn.send("250 ok")
            } else if upper == "QUIT" {
                conn.send("221 bye")
                return
            } else {
                conn.send("500 unknown command")
            }
        }
    }
}

private func angle(_ line: String) -> String {
    guard let open = line.firstIndex(of: "<"), let close = line.lastIndex(of: ">"), open < close else { return "" }
    return String(line[line.index(after: open)..<close])
}

private extension String {
    func trimmingCharacters(in chars: String) -> String {
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s = s.dropFirst() }
        while let l = s.last, chars.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

/// Standard base64 decoding (padding optional); invalid characters skipped.
public func decodeBase64(_ text: String) -> [UInt8] {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var values: [UInt8: UInt32] = [:]
    for (i, c) in alphabet.enumerated() { values[c] = UInt32(i) }
    var out: [UInt8] = []
    var acc: UInt32 = 0
    var bits = 0
    for c in text.utf8 {
        guard let v = values[c] else { continue }
        acc = acc << 6 | v
        bits += 6
        if bits >= 8 {
            bits -= 8
            out.append(UInt8((acc >> UInt32(bits)) & 0xFF))
        }
    }
    return out
}


/// One server-side connection: line reading over the socket or TLS.
private final class FakeSMTPWire {
    let fd: Int32
    var ssl: OpaquePointer?
    var buffer: [UInt8] = []
    var tls: Bool { ssl != nil }

    init(fd: Int32) {
        self.fd = fd
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    func accept(_ ctx: OpaquePointer) -> Bool {
        guard let s = SSL_new(ctx) else { return false }
        SSL_set_fd(s, fd)
        ssl = s
        buffer.removeAll()
        return SSL_accept(s) == 1
    }

    func end() {
        if let ssl { SSL_shutdown(ssl); SSL_free(ssl) }
    }

    func send(_ text: String) {
        let bytes = Array((text + "\r\n").utf8)
        if let ssl { _ = SSL_write(ssl, bytes, Int32(bytes.count)) } else { writeAll(fd, text + "\r\n") }
    }

    func readLine() -> String? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let i = buffer.firstIndex(of: 10) {
                var line = Array(buffer[..<i])
                buffer.removeFirst(i + 1)
                if line.last == 13 { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            let n = ssl.map { Int(SSL_read($0, &chunk, Int32(chunk.count))) } ?? read(fd, &chunk, chunk.count)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }
}
