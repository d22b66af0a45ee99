import Core
import HTTP

/// A loopback stand-in for one chat service (Teams Workflows, Slack,
/// Discord, Telegram, ntfy, Mattermost) on a `StandInServer`, answering
/// as the real service does (`ChatServiceRules`): the documented request
/// shape and credential, or the service's refusal. Every request is
/// recorded with the time it arrived (monotonic), whatever the answer.
public final class FakeChatService: Sendable {
    public enum Service: Sendable {
        case teams, slack, discord, ntfy, mattermost
        /// The chat the bot may post to.
        case telegram(chatID: String)
    }

    /// Every request with what was answered and when it arrived.
    public typealias Received = StandInServer.Exchange

    public let service: Service
    /// The credential: the webhook URL's secret part, the bot token or the
    /// access token.
    public let secret: String
    private let server: StandInServer
    /// How many of the next requests get the service's rate-limit answer.
    private let rateLimited = StandInBox(0)

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
        self.service = service
        self.secret = secret
        let rateLimited = self.rateLimited
        server = try StandInServer(StandInServer.Route.everyPath { req in
            let limited = rateLimited.withLock { n -> Bool in
                if n > 0 { n -= 1; return true }
                return false
            }
            return ChatServiceRules.answer(service, secret: secret, request: req, rateLimited: limited)
        })
    }

    /// The next `count` requests are answered with the service's rate-limit
    /// answer (Telegram: 429 `parameters.retry_after: 2`; Discord: 429
    /// `retry_after: 1.5` and `Retry-After: 2`; Slack: 429 `Retry-After: 2`).
    public func rateLimitNext(_ count: Int) { rateLimited.withLock { $0 = count } }

    /// Every request so far, oldest first.
    public var received: [Received] { server.exchanges }
    /// The requests the service accepted (2xx), oldest first.
    public var accepted: [Received] { received.filter(\.accepted) }

    public func stop() { server.stop() }
}
