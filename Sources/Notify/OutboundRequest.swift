import Core

/// A fully built HTTP request: what an outbox row stores, so that a retry
/// sends exactly the same bytes.
public struct OutboundRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The channel type that built it (`ChannelType` raw value), so the
    /// transport reads the answer the way that service writes it; nil for
    /// rows stored before the field existed (read generically).
    public var service: String?

    public init(method: String = "POST", url: String, headers: [(name: String, value: String)], body: [UInt8],
                service: String? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.service = service
    }

    public static func == (a: OutboundRequest, b: OutboundRequest) -> Bool {
        a.method == b.method && a.url == b.url && a.body == b.body && a.service == b.service
            && a.headers.count == b.headers.count
            && zip(a.headers, b.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The outbox payload: `{"method","url","headers":[[name,value]…],"body"}`
    /// (the bodies are UTF-8 text: JSON or plain text).
    public var storedText: String {
        let h: [JSON] = headers.map { .array([.string($0.name), .string($0.value)]) }
        var o = JSONObject([("method", .string(method)), ("url", .string(url)), ("headers", .array(h)),
                            ("body", .string(bodyText))])
        if let service { o["service"] = .string(service) }
        return JSON.object(o).text
    }

    public init?(storedText: String) {
        guard let j = try? JSON.parse(storedText), let method = j["method"]?.stringValue, let url = j["url"]?.stringValue,
              let hs = j["headers"]?.arrayValue, let body = j["body"]?.stringValue else { return nil }
        var headers: [(name: String, value: String)] = []
        for h in hs {
            guard let pair = h.arrayValue, pair.count == 2, let n = pair[0].stringValue, let v = pair[1].stringValue else {
                return nil
            }
            headers.append((n, v))
        }
        self.init(method: method, url: url, headers: headers, body: Array(body.utf8), service: j["service"]?.stringValue)
    }

    /// `text` (a service's reason for a refusal, which is stored and logged)
    /// with this request's credentials masked, should the service echo
    /// them: the URL, its path and its query (a chat webhook's URL is its
    /// credential, a bot token is in the path) and `Authorization` values.
    public func redactingCredentials(in text: String) -> String {
        var secrets = [url]
        if let scheme = url.firstRange(of: "://"), let slash = url[scheme.upperBound...].firstIndex(of: "/") {
            let target = url[slash...]
            secrets.append(String(target))
            if let q = target.firstIndex(of: "?") {
                secrets += [String(target[..<q]), String(target[target.index(after: q)...])]
            }
        }
        for h in headers where h.name.lowercased() == "authorization" {
            secrets.append(h.value)
            if let space = h.value.firstIndex(of: " ") { secrets.append(String(h.value[h.value.index(after: space)...])) }
        }
        var out = text
        // Longest first, so a URL is masked whole before its path is looked for.
        for s in secrets.sorted(by: { $0.count > $1.count }) where s.count >= 6 {
            out = out.replacing(s, with: "********")
        }
        return out
    }

    /// A JSON POST.
    static func json(_ url: String, _ body: JSON, extraHeaders: [(name: String, value: String)] = []) -> OutboundRequest {
        OutboundRequest(url: url, headers: [("Content-Type", "application/json"), ("User-Agent", Notification.userAgent)] + extraHeaders,
                        body: body.serialized())
    }
}
