import Core
import Net

/// The push relay's two calls (SPEC §6), blocking: call them off the event
/// loops. The hub key travels only in the Authorization header.
struct RelayClient: Sendable {
    let engine: ClientEngine
    var timeoutMillis = 15_000

    /// One `/v1/send` answer.
    enum SendOutcome: Sendable {
        /// Per-message results by message id: `sent`, `invalid_token` or `error` (+ text).
        case results([String: (status: String, error: String?)])
        /// The relay does not know this hub key.
        case unauthorized
        /// The whole request failed: network, 5xx, 429, a garbled answer.
        case failed(AttemptVerdict)
    }

    static func endpoint(_ relayURL: String, _ path: String) -> String {
        var base = relayURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + path
    }

    /// `POST {relay}/v1/register` → the hub key, or a one-line error.
    func register(relayURL: String, hubID: String, publicURL: String, name: String) -> Result<String, RelayError> {
        let body = JSON.object(JSONObject([("hub_id", .string(hubID)), ("public_url", .string(publicURL)),
                                           ("name", .string(name))]))
        let result = post(Self.endpoint(relayURL, "/v1/register"), body: body, bearer: nil)
        guard let r = result.response else {
            return .failure(RelayError("relay unreachable: \(result.errorDescription ?? "network error")"))
        }
        guard r.status == 200 else { return .failure(RelayError("relay answered HTTP \(r.status) to /v1/register")) }
        guard let key = (try? JSON.parse(r.body))?["hub_key"]?.stringValue, !key.isEmpty else {
            return .failure(RelayError("relay answered /v1/register without a hub_key"))
        }
        return .success(key)
    }

    /// `POST {relay}/v1/send` with at most 500 messages.
    func send(relayURL: String, hubKey: String, hubID: String, messages: [JSON]) -> SendOutcome {
        precondition(messages.count <= 500, "the relay takes at most 500 messages a request")
        let body = JSON.object(JSONObject([("hub_id", .string(hubID)), ("messages", .array(messages))]))
        let result = post(Self.endpoint(relayURL, "/v1/send"), body: body, bearer: hubKey)
        guard let r = result.response else {
            return .failed(.temporary(error: "relay unreachable: \(result.errorDescription ?? "network error")", retryAfter: nil))
        }
        if r.status == 401 { return .unauthorized }
        guard r.status == 200 else {
            return .failed(.http(status: r.status, retryAfter: r.headers["Retry-After"], failure: nil))
        }
        guard let list = (try? JSON.parse(r.body))?["results"]?.arrayValue else {
            return .failed(.temporary(error: "relay answered /v1/send without results", retryAfter: nil))
        }
        var out: [String: (status: String, error: String?)] = [:]
        for item in list {
            guard let id = item["id"]?.stringValue, let status = item["status"]?.stringValue else { continue }
            out[id] = (status, item["error"]?.stringValue)
        }
        return .results(out)
    }

    private func post(_ url: String, body: JSON, bearer: String?) -> ClientResult {
        var headers: [(String, String)] = [("Content-Type", "application/json"), ("User-Agent", Notification.userAgent)]
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        var req = ClientRequest(method: "POST", url: url, headers: headers, body: body.serialized())
        req.timeoutMillis = timeoutMillis
        req.followRedirects = false
        req.maxBodyBytes = 4 << 20
        return engine.execute(req)
    }
}

struct RelayError: Error, Sendable, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}
