/// A complete request as handlers see it: head, whole body, who sent it and
/// the path parameters the router matched.
public struct HTTPRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: [UInt8]
    /// The client's address: the peer, or the last untrusted hop of
    /// `X-Forwarded-For` when the peer is a trusted proxy.
    public var clientAddress: String
    /// `https` when a trusted proxy says so with `X-Forwarded-Proto`.
    public var scheme: String
    /// Path parameters, e.g. `id` for `/api/users/{id}`.
    public var parameters: PathParameters = [:]
    /// The route pattern that matched (for metrics), or nil.
    public var route: String?

    public init(head: HTTPRequestHead, body: [UInt8], clientAddress: String, scheme: String = "http",
                parameters: PathParameters = [:], route: String? = nil) {
        self.head = head
        self.body = body
        self.clientAddress = clientAddress
        self.scheme = scheme
        self.parameters = parameters
        self.route = route
    }

    public var method: String { head.method }
    public var path: String { head.path }
    public var headers: HTTPHeaders { head.headers }

    /// Decoded query items in order (`+` is a space, as browsers send forms).
    public var queryItems: [(name: String, value: String)] { FormCoding.decode(head.query) }

    /// The first query value of that name.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// A path parameter as an integer id; a malformed one is a `404`, since
    /// no resource can have that id.
    public func intParameter(_ name: String) throws(HTTPError) -> Int64 {
        guard let text = parameters[name], let value = Int64(text), value > 0 else {
            throw HTTPError.notFound()
        }
        return value
    }
}
