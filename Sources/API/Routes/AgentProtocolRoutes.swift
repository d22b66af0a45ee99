import Core
import HTTP
import Monitoring

/// `/api/agent/*`: what a running agent calls with its `pmg_` token
/// (docs/agents.md "Agent protocol").
struct AgentProtocolRoutes {
    let access: AgentAccess
    let agents: AgentService
    static let maxResults = 500

    func register(_ r: inout RouteTable) {
        r.get("/api/agent/monitors", access.route(monitors))
        r.post("/api/agent/results", access.route(results))
        // Deferred: a parked long poll holds no thread, so every agent can
        // keep one open. Authentication is an in-memory lookup.
        r.addDeferred("GET", "/api/agent/poll", access: AgentAccess.label, poll)
    }

    /// The assigned monitors, with a strong ETag; `If-None-Match` → 304.
    func monitors(_ req: HTTPRequest, _ agent: AgentRoster.Agent) throws -> HTTPResponse {
        let (body, etag) = agents.monitorsDocument(for: agent)
        var response: HTTPResponse
        if let match = req.headers["If-None-Match"], Self.matches(match, etag) {
            response = HTTPResponse(status: 304)
        } else {
            response = .json(200, body)
        }
        response.headers.set("ETag", etag)
        response.headers.set("Cache-Control", "no-cache")
        return response
    }

    /// `If-None-Match: "a", "b"` or `*`; weak comparison (RFC 9110 §13.1.2).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var t = item.trimmingSpaces()
            if t == "*" { return true }
            if t.hasPrefix("W/") { t = String(t.dropFirst(2)) }
            return t == etag
        }
    }

    func results(_ req: HTTPRequest, _ agent: AgentRoster.Agent) throws -> HTTPResponse {
        let body = try req.jsonFields()
        guard case .array(let items)? = body.object["results"] else {
            throw HTTPError(400, "validation_failed", "results must be an array of results.", field: "results")
        }
        guard items.count <= Self.maxResults else {
            throw HTTPError(400, "validation_failed", "At most \(Self.maxResults) results a request.", field: "results")
        }
        var parsed: [UploadedResult] = []
        parsed.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            parsed.append(try UploadedResult(fields: try JSONFields(item, path: "results[\(i)]")))
        }
        let (accepted, ignored) = try agents.ingest(parsed, from: agent)
        return .json(["accepted": .int(Int64(accepted)), "ignored": .int(Int64(ignored))])
    }

    /// Long poll: answered on whichever thread has the work (a check-now, the
    /// watcher's tick); `monitors_etag` is computed then, so it is current.
    func poll(_ req: HTTPRequest, respond: @escaping HTTPRespond) {
        let agent: AgentRoster.Agent
        let wait: Int64
        do {
            agent = try access.check(req)
            if let text = req.query("wait") {
                guard let n = Int64(text), (0...30).contains(n) else {
                    throw HTTPError(400, "validation_failed", "wait must be an integer from 0 to 30 (seconds).", field: "wait")
                }
                wait = n
            } else {
                wait = agents.pollInterval
            }
        } catch {
            return respond(.error(APIErrors.http(error)))
        }
        let agents = self.agents
        agents.poll(agent, waitSeconds: wait) { checks in
            let etag = agents.monitorsDocument(for: agent).etag
            respond(.json(.object(JSONObject([
                ("checks", .array(checks.map { c in
                    .object(JSONObject([("request_id", .string(c.id)), ("monitor_id", .int(c.monitorID))]))
                })),
                ("monitors_etag", .string(etag)),
            ]))))
        }
    }
}
