/// An error answer: status plus the `{"error": {code, message, field}}` body.
/// The parser, the server, the router and handlers all throw this.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    public var field: String?
    /// Extra response headers (`Allow`, `WWW-Authenticate`, `Retry-After`).
    public var headers: [String: String]

    public init(_ status: Int, _ code: String, _ message: String, field: String? = nil,
                headers: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func badRequest(_ message: String, code: String = "bad_request", field: String? = nil) -> HTTPError {
        HTTPError(400, code, message, field: field)
    }
    public static func notFound(_ message: String = "No such resource.") -> HTTPError {
        HTTPError(404, "not_found", message)
    }
}
