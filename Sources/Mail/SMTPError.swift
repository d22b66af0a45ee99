/// Why a send failed. `isTemporary` tells the outbox whether to retry:
/// network errors, timeouts and 4xx replies are temporary; 5xx replies,
/// authentication failures, TLS verification failures, a server that
/// cannot do STARTTLS, bad settings and bad messages are permanent.
/// `message` carries the server's reply text when there is one; it never
/// contains the password or the AUTH exchange.
public struct SMTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Resolving, connecting, reading or writing failed; the peer closed.
        case network
        /// No answer within `timeoutMillis`.
        case timeout
        /// The TLS handshake failed (certificate not trusted, wrong host…).
        case tls
        /// STARTTLS was required and the server does not offer it
        /// (nothing was sent after EHLO).
        case startTLSUnavailable
        /// AUTH was refused, or no mechanism we speak is offered.
        case authentication
        /// The server refused a step with a 4xx/5xx reply.
        case rejected
        /// The server said something that is not SMTP.
        case protocolViolation
        /// The settings are unusable (e.g. `.none` security to a non-loopback host).
        case configuration
        /// The message or an address is malformed (CR/LF in a header…).
        case invalidMessage
    }

    public let kind: Kind
    public let isTemporary: Bool
    /// The server's reply code, when the failure is a reply.
    public let replyCode: Int?
    /// The recipient a RCPT TO refusal was about.
    public let recipient: String?
    public let message: String

    public var isPermanent: Bool { !isTemporary }

    public init(kind: Kind, isTemporary: Bool, replyCode: Int? = nil, recipient: String? = nil, message: String) {
        self.kind = kind
        self.isTemporary = isTemporary
        self.replyCode = replyCode
        self.recipient = recipient
        self.message = message
    }

    public var description: String {
        "SMTP \(isTemporary ? "temporary" : "permanent") error (\(kind)): \(message)"
    }

    static func invalid(_ message: String) -> SMTPError {
        SMTPError(kind: .invalidMessage, isTemporary: false, message: message)
    }
}
