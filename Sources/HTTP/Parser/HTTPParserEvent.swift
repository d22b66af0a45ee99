/// What `HTTPRequestParser.next()` produces. Per request: one `.head`, zero
/// or more `.body` chunks (decoded, never empty), then `.end`.
public enum HTTPParserEvent: Sendable, Equatable {
    case head(HTTPRequestHead)
    case body([UInt8])
    case end
}
