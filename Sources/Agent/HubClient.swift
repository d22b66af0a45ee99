import Core
import HTTP
import Net

/// One answer of the hub, or why there was none.
enum HubReply: Sendable {
    case answer(status: Int, headers: HTTPHeaders, body: [UInt8])
    /// No HTTP answer: DNS, connect, TLS, timeout, cancelled.
    case failed(String)

    var status: Int? {
        if case .answer(let status, _, _) = self { return status }
        return nil
    }

    /// For log lines: `HTTP 503` or the transport error.
    var summary: String {
        switch self {
        case .answer(let status, _, _): return "HTTP \(status)"
        case .failed(let text): return text
        }
    }
}

/// Requests to the hub's `/api/agent/*` endpoints on its own client engine
/// (separate from the checks' engine, so checks never queue behind a long
/// poll and stopping can cancel the poll without touching checks). Blocking:
/// call from the agent's own threads, never from an engine completion.
final class HubClient: Sendable {
    let baseURL: String
    private let authorization: String
    private let userAgent: String
    private let engine: ClientEngine

    init(settings: AgentSettings) {
        baseURL = settings.hubURL
        authorization = "Bearer \(settings.token)"
        userAgent = "pingtxt-agent/\(settings.version)"
        // Two loops: the long poll and an upload are often in flight together.
        engine = ClientEngine(loops: 2, maxConcurrent: 8, extraCAFile: settings.extraCAFile)
    }

    func get(_ path: String, headers: [(String, String)] = [], timeoutMillis: Int) -> HubReply {
        send(method: "GET", path: path, headers: headers, body: nil, timeoutMillis: timeoutMillis)
    }

    func post(_ path: String, json: JSON, timeoutMillis: Int) -> HubReply {
        send(method: "POST", path: path, headers: [("Content-Type", "application/json")], body: json.serialized(),
             timeoutMillis: timeoutMillis)
    }

    /// Cancels whatever is in flight (a long poll ends at once) and refuses
    /// later requests.
    func shutdown() { engine.shutdown() }

    private func send(method: String, path: String, headers: [(String, String)], body: [UInt8]?,
                      timeoutMillis: Int) -> HubReply {
        var request = ClientRequest(method: method, url: baseURL + path,
                                    headers: [("Authorization", authorization), ("User-Agent", userAgent),
                                              ("Accept", "application/json")] + headers,
                                    body: body)
        request.timeoutMillis = timeoutMillis
        // A redirect would carry the bearer token to wherever it points.
        request.followRedirects = false
        request.verifyTLS = true
        let result = engine.execute(request)
        guard let response = result.response else {
            return .failed(result.errorDescription ?? "request failed")
        }
        return .answer(status: response.status, headers: response.headers, body: response.body)
    }
}
