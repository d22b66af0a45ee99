/// Every error the request parser produces, in one place so codes stay
/// unique and the tests can name them. The server turns these into the
/// JSON error answer and closes the connection.
enum ParseError {
    // Request line.
    static let badRequestLine = HTTPError(400, "bad_request_line", "The request line is not `method SP target SP version`.")
    static let invalidMethod = HTTPError(400, "invalid_method", "The method is not a valid token.")
    static let invalidVersion = HTTPError(400, "invalid_version", "The HTTP version is malformed.")
    static let versionNotSupported = HTTPError(505, "version_not_supported", "Only HTTP/1.0 and HTTP/1.1 are supported.")
    static let invalidTarget = HTTPError(400, "invalid_target", "The request target is invalid.")
    static let requestLineTooLong = HTTPError(414, "request_line_too_long", "The request line is too long.")
    static let tooManyEmptyLines = HTTPError(400, "too_many_empty_lines", "Too many empty lines before the request line.")

    // Line endings.
    static let bareLF = HTTPError(400, "bare_lf", "A line ends in LF without CR.")
    static let bareCR = HTTPError(400, "bare_cr", "A CR is not followed by LF.")

    // Header and trailer fields.
    static let obsFold = HTTPError(400, "obs_fold", "Folded header lines are not accepted.")
    static let invalidHeaderLine = HTTPError(400, "invalid_header_line", "A header line has no colon.")
    static let invalidHeaderName = HTTPError(400, "invalid_header_name", "A header name is not a valid token.")
    static let whitespaceBeforeColon = HTTPError(400, "whitespace_before_colon", "Whitespace between a header name and its colon.")
    static let invalidHeaderValue = HTTPError(400, "invalid_header_value", "A header value contains a control character.")
    static let headerTooLarge = HTTPError(431, "header_too_large", "The header section is too large.")
    static let tooManyHeaders = HTTPError(431, "too_many_headers", "The request has too many header fields.")

    // Head semantics.
    static let missingHost = HTTPError(400, "missing_host", "An HTTP/1.1 request needs a Host header.")
    static let duplicateHost = HTTPError(400, "duplicate_host", "The request has more than one Host header.")
    static let invalidHost = HTTPError(400, "invalid_host", "The Host header is invalid.")
    static let conflictingFraming = HTTPError(400, "conflicting_framing", "Both Content-Length and Transfer-Encoding are present.")
    static let invalidContentLength = HTTPError(400, "invalid_content_length", "Content-Length is not a valid number.")
    static let conflictingContentLength = HTTPError(400, "conflicting_content_length", "Content-Length values differ.")
    static let invalidTransferEncoding = HTTPError(400, "invalid_transfer_encoding", "Transfer-Encoding is malformed or chunked is not the final coding.")
    static let transferEncodingInHTTP10 = HTTPError(400, "transfer_encoding_in_http10", "Transfer-Encoding is not allowed in HTTP/1.0.")
    static let unsupportedTransferCoding = HTTPError(501, "unsupported_transfer_coding", "Only the chunked transfer coding is implemented.")
    static let bodyTooLarge = HTTPError(413, "body_too_large", "The request body is too large.")

    // Chunked body.
    static let invalidChunkSize = HTTPError(400, "invalid_chunk_size", "A chunk size is not a valid hex number.")
    static let invalidChunkExtension = HTTPError(400, "invalid_chunk_extension", "A chunk extension is malformed or too long.")
    static let missingChunkCRLF = HTTPError(400, "missing_chunk_crlf", "Chunk data is not followed by CRLF.")
}
