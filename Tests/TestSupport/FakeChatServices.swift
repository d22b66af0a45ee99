import CShims
import Core
import HTTP
import Synchronization

/// A loopback stand-in for one chat service (Teams Workflows, Slack,
/// Discord, Telegram, ntfy, Mattermost): our own `HTTPServer`, answering
/// as the real service does (`ChatServiceRules`): the documented request
/// shape and credential, or the service's refusal. Every request is
/// recorded with the time it arrived (monotonic), whatever the answer.
public final class FakeChatService: Sendable {
    public enum Service: Sendable {
        case teams, slack, discord, ntfy, mattermost
        /// The chat the bot may post to.
        case telegram(chatID: String)
    }

    public struct Received: Sendable {
        public var method: String
        public var path: String
        public var query: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]
        /// What the stand-in answered.
        public var status: Int
        public var answer: String
        /// `Time.monotonicNanos()` when the request arrived.
        public var atNanos: UInt64
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
        public var json: JSON? { try? JSON.parse(body) }
        public var accepted: Bool { (200..<300).contains(status) }
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    public let service: Service
    /// The credential: the webhook URL's secret part, the bot token or the
    /// access token.
    public let secret: String
    private let server: HTTPServer
    private let state: ChatServiceState
    private let stopped = Atomic<Bool>(false)

    public var port: UInt16 { server.port }
    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// What a channel of this service is configured with: the webhook URL
    /// (which holds the credential), or the server (`api_url`, ntfy `url`).
    public var channelURL: String {
        switch service {
        case .teams:
            baseURL + "/workflows/4f1c/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=\(secret)"
        case .slack: baseURL + "/services/T0001/B0001/\(secret)"
        case .discord: baseURL + "/api/webhooks/1001/\(secret)"
        case .mattermost: baseURL + "/hooks/\(secret)"
        case .telegram, .ntfy: baseURL
        }
    }

    /// Slack only: a webhook whose channel was deleted (`404 channel_not_found`).
    public var goneChannelURL: String { baseURL + "/services/T0001/B0001/gone" }

    public init(_ service: Service, secret: String) throws {
        pt_ignore_sigpipe()
        self.service = service
        self.secret = secret
        let state = ChatServiceState()
        self.state = state
        let router = Router { r in
            // Every path, so a request to the wrong one is answered (and
            // recorded) the way the service refuses it.
            var pattern = ""
            for depth in 0...7 {
                for method in ["GET", "POST", "PUT"] {
                    r.add(method, pattern.isEmpty ? "/" : pattern, .pool) { req in
                        state.handle(req) { ChatServiceRules.answer(service, secret: secret, request: req, rateLimited: $0) }
                    }
                }
                pattern += "/{p\(depth)}"
            }
        }
        server = try HTTPServer(configuration: .loopbackPeer(), router: router)
    }

    deinit { stop() }

    /// The next `count` requests are answered with the service's rate-limit
    /// answer (Telegram: 429 `parameters.retry_after: 2`; Discord: 429
    /// `retry_after: 1.5` and `Retry-After: 2`; Slack: 429 `Retry-After: 2`).
    public func rateLimitNext(_ count: Int) { state.rateLimited.withLock { $0 = count } }

    /// Every request so far, oldest first.
    public var received: [Received] { state.log.withLock { $0 } }
    /// The requests the service accepted (2xx), oldest first.
    public var accepted: [Received] { received.filter(\.accepted) }

    public func stop() {
        if stopped.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            server.shutdown()
        }
    }
}

private final class ChatServiceState: Sendable {
    let rateLimited = Mutex(0)
    let log = Mutex<[FakeChatService.Received]>([])

    func handle(_ req: HTTPRequest, _ answer: (_ rateLimited: Bool) -> HTTPResponse) -> HTTPResponse {
        let at = Time.monotonicNanos()
        let limited = rateLimited.withLock { n -> Bool in
            if n > 0 { n -= 1; return true }
            return false
        }
        let r = answer(limited)
        log.withLock {
            $0.append(.init(method: req.method, path: req.path, query: req.head.query, headers: req.headers.map { ($0.name, $0.value) },
                            body: req.body, status: r.status, answer: String(decoding: r.body, as: UTF8.self), atNanos: at))
        }
        return r
    }
}
