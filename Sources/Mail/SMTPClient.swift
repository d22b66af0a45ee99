import COpenSSL
import CShims
import Core
import Crypto
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where and how to send mail.
public struct SMTPSettings: Sendable, Equatable {
    public enum Security: Sendable, Equatable {
        /// Plain connect, then STARTTLS (required: a server that does not
        /// offer it gets nothing but EHLO and QUIT). Usually port 587.
        case startTLS
        /// TLS from the first byte. Usually port 465.
        case implicitTLS
        /// No TLS at all: refused unless `host` is loopback (tests).
        case none
    }

    public var host: String
    public var port: UInt16
    public var security: Security
    public var username: String?
    public var password: String?
    /// Envelope sender (MAIL FROM).
    public var from: String
    /// The name given in EHLO.
    public var heloName: String
    /// Bounds connecting, the TLS handshake and every single read or write.
    public var timeoutMillis: Int
    /// A PEM CA file trusted in addition to the system store.
    public var extraCAFile: String?

    public init(host: String, port: UInt16, security: Security = .startTLS, username: String? = nil,
                password: String? = nil, from: String, heloName: String = "localhost",
                timeoutMillis: Int = 30_000, extraCAFile: String? = nil) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.from = from
        self.heloName = heloName
        self.timeoutMillis = timeoutMillis
        self.extraCAFile = extraCAFile
    }
}

/// A blocking SMTP submission client. `send` runs entirely on the calling
/// thread (connect, TLS, the whole dialogue) and returns when the server
/// has accepted the message or something failed; the notifier calls it on a
/// worker thread, never on an event loop. One connection per `send`.
///
/// TLS: TLS ≥ 1.2, the system trust store plus `extraCAFile`, SNI and
/// hostname (or IP) verification; the `SSL_CTX` is made at the first TLS
/// send and shared afterwards. Authentication: AUTH PLAIN when offered,
/// else AUTH LOGIN; only after TLS unless security is `.none`.
public final class SMTPClient: Sendable {
    public let settings: SMTPSettings
    private let context: Mutex<OpaquePointer?> = Mutex(nil)

    public init(settings: SMTPSettings) {
        self.settings = settings
    }

    deinit {
        if let ctx = context.withLock({ $0 }) { SSL_CTX_free(ctx) }
    }

    /// Sends `message` to `recipients` (the envelope; usually `message.to`).
    public func send(_ message: SMTPMessage, to recipients: [String]) throws(SMTPError) {
        try SMTPMessage.validateAddress(settings.from, field: "MAIL FROM")
        guard !recipients.isEmpty else { throw .invalid("no recipient") }
        for r in recipients { try SMTPMessage.validateAddress(r, field: "RCPT TO") }
        try SMTPMessage.validateHeaderValue(settings.heloName, field: "EHLO name")
        if settings.security == .none && !LoopbackHost.contains(settings.host) {
            throw SMTPError(kind: .configuration, isTemporary: false,
                            message: "unencrypted SMTP is only allowed to a loopback host, not \(settings.host)")
        }
        let conn = try SMTPConnection.open(host: settings.host, port: settings.port, timeoutMillis: settings.timeoutMillis)
        defer { conn.close() }
        if settings.security == .implicitTLS { try conn.startTLS(context: tlsContext(), host: settings.host) }
        try conn.expect(220, step: "greeting")
        var capabilities = try ehlo(conn)
        if settings.security == .startTLS {
            guard capabilities.contains(where: { $0.uppercased() == "STARTTLS" }) else {
                conn.quit()
                throw SMTPError(kind: .startTLSUnavailable, isTemporary: false,
                                message: "\(settings.host) does not offer STARTTLS; refusing to continue in clear")
            }
            try conn.command("STARTTLS")
            try conn.expect(220, step: "STARTTLS")
            try conn.startTLS(context: tlsContext(), host: settings.host)
            capabilities = try ehlo(conn)
        }
        if let username = settings.username {
            try authenticate(conn, capabilities: capabilities, username: username, password: settings.password ?? "")
        }
        try conn.command("MAIL FROM:<\(settings.from)>")
        try conn.expect(250, step: "MAIL FROM")
        for r in recipients {
            try conn.command("RCPT TO:<\(r)>")
            let reply = try conn.readReply()
            if reply.code != 250 && reply.code != 251 {
                conn.quit()
                throw SMTPError(kind: .rejected, isTemporary: reply.isTemporary, replyCode: reply.code, recipient: r,
                                message: "recipient \(r) refused: \(reply.summary)")
            }
        }
        try conn.command("DATA")
        try conn.expect(354, step: "DATA")
        try conn.write(message.dataPayload())
        try conn.expect(250, step: "end of data")
        conn.quit()
    }

    private func ehlo(_ conn: SMTPConnection) throws(SMTPError) -> [String] {
        try conn.command("EHLO \(settings.heloName)")
        let reply = try conn.expect(250, step: "EHLO")
        return Array(reply.lines.dropFirst())
    }

    private func authenticate(_ conn: SMTPConnection, capabilities: [String], username: String,
                              password: String) throws(SMTPError) {
        var mechanisms: Set<String> = []
        for line in capabilities {
            let words = line.uppercased().split(whereSeparator: { $0 == " " || $0 == "=" })
            if words.first == "AUTH" { for w in words.dropFirst() { mechanisms.insert(String(w)) } }
        }
        func failure(_ reply: SMTPReply) -> SMTPError {
            SMTPError(kind: .authentication, isTemporary: reply.isTemporary, replyCode: reply.code,
                      message: "authentication as \(username) failed: \(reply.summary)")
        }
        if mechanisms.contains("PLAIN") {
            let token = Base64.encode([0] + Array(username.utf8) + [0] + Array(password.utf8))
            try conn.command("AUTH PLAIN \(token)")
            let reply = try conn.readReply()
            guard reply.code == 235 else { conn.quit(); throw failure(reply) }
        } else if mechanisms.contains("LOGIN") {
            try conn.command("AUTH LOGIN")
            for secret in [username, password] {
                let challenge = try conn.readReply()
                guard challenge.code == 334 else { conn.quit(); throw failure(challenge) }
                try conn.command(Base64.encode(Array(secret.utf8)))
            }
            let reply = try conn.readReply()
            guard reply.code == 235 else { conn.quit(); throw failure(reply) }
        } else {
            conn.quit()
            throw SMTPError(kind: .authentication, isTemporary: false,
                            message: "\(settings.host) offers neither AUTH PLAIN nor AUTH LOGIN")
        }
    }

    private func tlsContext() throws(SMTPError) -> OpaquePointer {
        let made = context.withLock { ctx -> Result<OpaquePointer, SMTPError> in
            if let ctx { return .success(ctx) }
            switch Self.makeContext(extraCAFile: settings.extraCAFile) {
            case .success(let c): ctx = c; return .success(c)
            case .failure(let e): return .failure(e)
            }
        }
        return try made.get()
    }

    private static func makeContext(extraCAFile: String?) -> Result<OpaquePointer, SMTPError> {
        func fail(_ text: String) -> SMTPError { SMTPError(kind: .tls, isTemporary: false, message: text) }
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { return .failure(fail("SSL_CTX_new: \(openSSLErrorReason())")) }
        guard pt_ssl_ctx_configure_client(ctx) == 1 else {
            SSL_CTX_free(ctx)
            return .failure(fail("configuring SSL_CTX: \(openSSLErrorReason())"))
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        if SSL_CTX_set_default_verify_paths(ctx) != 1 { ERR_clear_error() }
        if let extraCAFile, SSL_CTX_load_verify_locations(ctx, extraCAFile, nil) != 1 {
            let text = "cannot load CA file \(extraCAFile): \(openSSLErrorReason())"
            SSL_CTX_free(ctx)
            return .failure(fail(text))
        }
        return .success(ctx)
    }

}

