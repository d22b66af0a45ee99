import HTTP

public struct ClientResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var bodyTruncated: Bool
    public var finalURL: String
    public var redirects: Int
}
