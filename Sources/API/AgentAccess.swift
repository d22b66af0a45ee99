import Auth
import HTTP
import Monitoring

/// Who may call `/api/agent/*`: an agent's `pmg_` token, and nothing else.
/// Agents are authenticated from the in-memory roster (no query), so the
/// long poll can authenticate on the event loop. Every authenticated
/// request is contact: it marks the agent seen (and online again).
struct AgentAccess: Sendable {
    let agents: AgentService
    /// The route-table label of the agent endpoints (a `pmg_` token only).
    static let label = "agent"

    /// A handler behind an agent token, with the spec's JSON errors.
    func route(_ body: @escaping @Sendable (HTTPRequest, AgentRoster.Agent) throws -> HTTPResponse) -> GuardedRoute {
        let access = self
        return GuardedRoute(label: Self.label, handler: guarded { req in try body(req, try access.check(req)) })
    }

    func check(_ request: HTTPRequest) throws(HTTPError) -> AgentRoster.Agent {
        guard let token = Self.bearer(request) else {
            throw HTTPError(401, "unauthorized", "Agent endpoints need Authorization: Bearer pmg_…",
                            headers: ["WWW-Authenticate": "Bearer realm=\"pingtxt\""])
        }
        if let kind = TokenKind.of(token), kind != .agent {
            throw HTTPError(403, "agent_token_required", "Agent endpoints take an agent token (pmg_), not a \(kind.prefix) token.")
        }
        guard let hash = TokenFactory.hashPresented(token, expecting: [.agent]),
              let agent = agents.authenticate(tokenHash: hash) else {
            throw HTTPError(401, "unauthorized", "The agent token is unknown or was revoked.",
                            headers: ["WWW-Authenticate": "Bearer realm=\"pingtxt\""])
        }
        return agents.contact(agent, version: Self.version(request), address: request.clientAddress)
    }

    /// The bearer token of the Authorization header, if that is its scheme.
    static func bearer(_ request: HTTPRequest) -> String? {
        request.headers["Authorization"].flatMap(BearerCredentials.token)
    }

    /// `User-Agent: pingtxt-agent/<version>` → the version (at most 64 bytes).
    static func version(_ request: HTTPRequest) -> String? {
        guard let ua = request.headers["User-Agent"], ua.hasPrefix("pingtxt-agent/") else { return nil }
        let v = ua.dropFirst("pingtxt-agent/".count).prefix { $0 != " " }
        return v.isEmpty ? nil : String(v.prefix(64))
    }
}
