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
        r.get("/api/agent/monitors", guarded(monitors))
        r.post("/api/agent/results", guarded(results))
        // Deferred: a parked long poll holds no thread, so every agent can
        // keep one open. Authentication is an in-memory lookup.
        r.addDeferred("GET", "/api/agent/poll", poll)
    }

    /// The assigned monitors, with a strong ETag; `If-None-Match` → 304.
    func monitors(_ req: HTTPRequest) throws -> HTTPResponse {
        let agent = try access.check(req)
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
            var t = item.trimmingCharacters()
            if t == "*" { return true }
            if t.hasPrefix("W/") { t = String(t.dropFirst(2)) }
            return t == etag
        }
    }

    func results(_ req: HTTPRequest) throws -> HTTPResponse {
        let agent = try access.check(req)
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
            parsed.append(try Self.result(try JSONFields(item, path: "results[\(i)]")))
        }
        let (accepted, ignored) = try agents.ingest(parsed, from: agent)
        return .json(["accepted": .int(Int64(accepted)), "ignored": .int(Int64(ignored))])
    }

    /// One validated result; any invalid field refuses the whole upload
    /// (nothing is stored), so a broken agent is noticed rather than half-recorded.
    static func result(_ f: JSONFields) throws(JSONFieldError) -> UploadedResult {
        guard let monitorID = try f.int("monitor_id", in: 1...Int64.max) else {
            throw JSONFieldError(field: f.name("monitor_id"), message: "\(f.name("monitor_id")) is required.")
        }
        guard let at = try f.int("at", in: 1...253_402_300_799_999) else {
            throw JSONFieldError(field: f.name("at"), message: "\(f.name("at")) (Unix milliseconds) is required.")
        }
        guard let status = try f.oneOf("status", ["up", "down"]) else {
            throw JSONFieldError(field: f.name("status"), message: "\(f.name("status")) is required: up or down.")
        }
        let error = try f.string("error")
        if let error, error.utf8.count > 1000 {
            throw JSONFieldError(field: f.name("error"), message: "\(f.name("error")) is longer than 1000 bytes.")
        }
        let requestID = try f.string("request_id")
        if let requestID, requestID.isEmpty || requestID.utf8.count > 64 {
            throw JSONFieldError(field: f.name("request_id"), message: "\(f.name("request_id")) must be 1-64 characters.")
        }
        return UploadedResult(monitorID: monitorID, atMs: at, outcome: status == "up" ? .up : .down,
                           latencyMs: try f.int("latency_ms", in: 0...86_400_000).map(Int.init),
                           statusCode: try f.int("status_code", in: 100...599).map(Int.init),
                           error: error, certNotAfter: try f.int("cert_not_after", in: 0...253_402_300_799),
                           requestID: requestID)
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
