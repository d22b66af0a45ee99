import Core
import HTTP
import Net

/// The hub's REST API as `pingtxt export` and `apply` use it: blocking JSON
/// requests with a bearer token, on a client engine of their own. Going
/// through the API (like terraform or kubectl) rather than the database
/// means every rule the API enforces applies to files too, the running
/// hub's scheduler sees each change at once, and a remote hub works.
final class HubAPI {
    let baseURL: String
    let token: String
    private let engine = ClientEngine(loops: 1, maxConcurrent: 4)

    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var json: JSON
    }

    /// `--url` (default the configured public URL) and `PINGTXT_TOKEN`.
    init(url: String, token: String) throws {
        var u = url
        while u.hasSuffix("/") { u.removeLast() }
        guard u.hasPrefix("http://") || u.hasPrefix("https://") else { throw CLIError("--url must be an http:// or https:// URL") }
        guard !token.isEmpty else {
            throw CLIError("set PINGTXT_TOKEN to an API token of the hub (pingtxt token create --email … --scope write)")
        }
        baseURL = u
        self.token = token
    }

    deinit { engine.shutdown() }

    func request(_ method: String, _ path: String, body: JSON? = nil) throws -> Answer {
        var headers = [("Authorization", "Bearer \(token)"), ("Accept", "application/json"), ("User-Agent", "pingtxt-cli/\(CLI.versionString)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        var req = ClientRequest(method: method, url: baseURL + path, headers: headers, body: body?.serialized())
        req.timeoutMillis = 30_000
        // A redirect would carry the token wherever it points.
        req.followRedirects = false
        req.maxReadBytes = 256 << 20
        req.maxBodyBytes = 256 << 20
        let result = engine.execute(req)
        guard let response = result.response else {
            throw CLIError("cannot reach the hub at \(baseURL): \(result.errorDescription ?? "request failed")")
        }
        let json = response.body.isEmpty ? JSON.null : ((try? JSON.parse(response.body)) ?? .null)
        return Answer(status: response.status, headers: response.headers, json: json)
    }

    /// The answer when its status is one of `ok`, else a CLI error with the hub's message.
    func expect(_ method: String, _ path: String, body: JSON? = nil, ok: Set<Int> = [200]) throws -> Answer {
        let a = try request(method, path, body: body)
        guard ok.contains(a.status) else { throw CLIError("\(method) \(path): \(Self.describe(a))") }
        return a
    }

    /// `HTTP 403: This needs a token with write scope.`
    static func describe(_ a: Answer) -> String {
        let message = a.json["error"]?["message"]?.stringValue ?? "no error message"
        return "HTTP \(a.status): \(message)"
    }
}
