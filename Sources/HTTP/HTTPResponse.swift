import Core

/// A response a handler returns; the server adds `Date`, `Content-Length`
/// and `Connection`.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body already encoded.
    public static func json(_ status: Int = 200, _ body: [UInt8]) -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("Content-Type", "application/json")
        return HTTPResponse(status: status, headers: h, body: body)
    }

    public static func json(_ status: Int = 200, _ text: String) -> HTTPResponse {
        json(status, Array(text.utf8))
    }

    public static func text(_ status: Int = 200, _ text: String,
                            contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("Content-Type", contentType)
        return HTTPResponse(status: status, headers: h, body: Array(text.utf8))
    }

    public static func noContent() -> HTTPResponse { HTTPResponse(status: 204) }

    /// The spec's error shape: `{"error": {"code", "message", "field"?}}`.
    public static func error(_ e: HTTPError) -> HTTPResponse {
        var text = "{\"error\":{\"code\":\(JSONText.quote(e.code)),\"message\":\(JSONText.quote(e.message))"
        if let field = e.field { text += ",\"field\":\(JSONText.quote(field))" }
        text += "}}"
        var r = json(e.status, text)
        for (k, v) in e.headers.sorted(by: { $0.key < $1.key }) { r.headers.set(k, v) }
        return r
    }
}
