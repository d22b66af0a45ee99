import HTTP
import Testing

/// Input the parser must refuse, with the status (and error code) it must refuse it with.
struct InvalidCase: Sendable, CustomTestStringConvertible {
    var name: String
    var input: [UInt8]
    var status: Int
    var code: String
    var limits: HTTPLimits
    var testDescription: String { name }

    init(_ name: String, _ text: String, _ status: Int, _ code: String, limits: HTTPLimits = HTTPLimits()) {
        self.init(name, Array(text.utf8), status, code, limits: limits)
    }

    init(_ name: String, _ input: [UInt8], _ status: Int, _ code: String, limits: HTTPLimits = HTTPLimits()) {
        self.name = name
        self.input = input
        self.status = status
        self.code = code
        self.limits = limits
    }
}

private let host = "Host: example.com\r\n"
private func get(_ target: String, version: String = "HTTP/1.1") -> String { "GET \(target) \(version)\r\n\(host)\r\n" }
private func post(_ fields: String, _ body: String = "") -> String { "POST /p HTTP/1.1\r\n\(host)\(fields)\r\n\(body)" }
private func chunked(_ body: String) -> String { post("Transfer-Encoding: chunked\r\n", body) }
private let small = HTTPLimits(maxRequestLineBytes: 32, maxHeaderBytes: 64, maxBodyBytes: 10, maxHeaderCount: 3)

let invalidCases: [InvalidCase] = [
    // Request line.
    InvalidCase("no spaces", "GET\r\n\r\n", 400, "bad_request_line"),
    InvalidCase("HTTP/0.9 style line", "GET /\r\n\r\n", 400, "bad_request_line"),
    InvalidCase("double space before target", "GET  / HTTP/1.1\r\n\(host)\r\n", 400, "invalid_target"),
    InvalidCase("double space before version", "GET /  HTTP/1.1\r\n\(host)\r\n", 400, "invalid_target"),
    InvalidCase("empty method", " / HTTP/1.1\r\n\(host)\r\n", 400, "invalid_method"),
    InvalidCase("non-token method", "G(T / HTTP/1.1\r\n\(host)\r\n", 400, "invalid_method"),
    InvalidCase("tab separator", "GET\t/ HTTP/1.1\r\n\(host)\r\n", 400, "bad_request_line"),
    InvalidCase("HTTP/2.0", get("/", version: "HTTP/2.0"), 505, "version_not_supported"),
    InvalidCase("HTTP/0.9", get("/", version: "HTTP/0.9"), 505, "version_not_supported"),
    InvalidCase("HTTP/3.0", get("/", version: "HTTP/3.0"), 505, "version_not_supported"),
    InvalidCase("HTTP/1", get("/", version: "HTTP/1"), 400, "invalid_version"),
    InvalidCase("HTTP/1.1x", get("/", version: "HTTP/1.1x"), 400, "invalid_version"),
    InvalidCase("HTTP/1.10", get("/", version: "HTTP/1.10"), 400, "invalid_version"),
    InvalidCase("lowercase http/1.1", get("/", version: "http/1.1"), 400, "invalid_version"),
    InvalidCase("HTTP/a.b", get("/", version: "HTTP/a.b"), 400, "invalid_version"),
    InvalidCase("request line over the limit", "GET /\(String(repeating: "a", count: 40)) HTTP/1.1\r\n\(host)\r\n",
                414, "request_line_too_long", limits: small),
    InvalidCase("request line one byte over the limit", "GET /\(String(repeating: "a", count: 19)) HTTP/1.1\r\n\(host)\r\n",
                414, "request_line_too_long", limits: small),
    InvalidCase("bare LF ending the request line", "GET / HTTP/1.1\n\(host)\r\n", 400, "bare_lf"),
    InvalidCase("bare CR in the request line", "GET /\ra HTTP/1.1\r\n\(host)\r\n", 400, "bare_cr"),
    InvalidCase("bare LF before the request line", "\nGET / HTTP/1.1\r\n\(host)\r\n", 400, "bare_lf"),
    InvalidCase("bare CR before the request line", "\r\rGET / HTTP/1.1\r\n\(host)\r\n", 400, "bare_cr"),
    InvalidCase("too many empty lines", String(repeating: "\r\n", count: 9) + get("/"), 400, "too_many_empty_lines"),

    // Request target.
    InvalidCase("relative target", get("abc"), 400, "invalid_target"),
    InvalidCase("space in target", get("/a b"), 400, "invalid_target"),
    InvalidCase("bad percent-escape", get("/%zz"), 400, "invalid_target"),
    InvalidCase("truncated percent-escape", get("/a%4"), 400, "invalid_target"),
    InvalidCase("fragment", get("/a#frag"), 400, "invalid_target"),
    InvalidCase("non-ASCII target", get("/caf\u{e9}"), 400, "invalid_target"),
    InvalidCase("control char in target", get("/a\u{1}b"), 400, "invalid_target"),
    InvalidCase("backslash and braces", get("/a\\{b}"), 400, "invalid_target"),
    InvalidCase("asterisk with GET", get("*"), 400, "invalid_target"),
    InvalidCase("other scheme", get("ftp://example.com/x"), 400, "invalid_target"),
    InvalidCase("userinfo in absolute-form", get("http://user@example.com/"), 400, "invalid_target"),
    InvalidCase("empty authority", get("http:///x"), 400, "invalid_target"),
    InvalidCase("authority-form without CONNECT", get("example.com:443"), 400, "invalid_target"),
    InvalidCase("CONNECT with origin-form", "CONNECT / HTTP/1.1\r\n\(host)\r\n", 400, "invalid_target"),
    InvalidCase("CONNECT without port", "CONNECT example.com HTTP/1.1\r\n\(host)\r\n", 400, "invalid_target"),

    // Header fields.
    InvalidCase("obs-fold", "GET / HTTP/1.1\r\n\(host)X-A: a\r\n  folded\r\n\r\n", 400, "obs_fold"),
    InvalidCase("whitespace before the first field", "GET / HTTP/1.1\r\n \(host)\r\n", 400, "obs_fold"),
    InvalidCase("bare LF ending a header", "GET / HTTP/1.1\r\nHost: example.com\n\r\n", 400, "bare_lf"),
    InvalidCase("bare LF ending the header section", "GET / HTTP/1.1\r\n\(host)\n", 400, "bare_lf"),
    InvalidCase("bare CR inside a header line", "GET / HTTP/1.1\r\nHost: example.com\rX: y\r\n\r\n", 400, "bare_cr"),
    InvalidCase("NUL in a value", "GET / HTTP/1.1\r\n\(host)X: a\u{0}b\r\n\r\n", 400, "invalid_header_value"),
    InvalidCase("control char in a value", "GET / HTTP/1.1\r\n\(host)X: a\u{1b}b\r\n\r\n", 400, "invalid_header_value"),
    InvalidCase("DEL in a value", "GET / HTTP/1.1\r\n\(host)X: a\u{7f}\r\n\r\n", 400, "invalid_header_value"),
    InvalidCase("control char in a name", "GET / HTTP/1.1\r\n\(host)X\u{1}Y: v\r\n\r\n", 400, "invalid_header_name"),
    InvalidCase("non-token name", "GET / HTTP/1.1\r\n\(host)X(Y): v\r\n\r\n", 400, "invalid_header_name"),
    InvalidCase("non-ASCII name", "GET / HTTP/1.1\r\n\(host)N\u{e9}: v\r\n\r\n", 400, "invalid_header_name"),
    InvalidCase("empty name", "GET / HTTP/1.1\r\n\(host): v\r\n\r\n", 400, "invalid_header_name"),
    InvalidCase("space before colon", "GET / HTTP/1.1\r\nHost : example.com\r\n\r\n", 400, "whitespace_before_colon"),
    InvalidCase("tab before colon", "GET / HTTP/1.1\r\n\(host)X\t: v\r\n\r\n", 400, "whitespace_before_colon"),
    InvalidCase("line without colon", "GET / HTTP/1.1\r\n\(host)NoColon\r\n\r\n", 400, "invalid_header_line"),
    InvalidCase("header section over the limit", "GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "v", count: 60))\r\n\r\n",
                431, "header_too_large", limits: small),
    InvalidCase("final CRLF over the header limit", "GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "v", count: 49))\r\n\r\n",
                431, "header_too_large", limits: small),
    InvalidCase("too many header fields", "GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n",
                431, "too_many_headers", limits: small),

    // Host.
    InvalidCase("missing Host in HTTP/1.1", "GET / HTTP/1.1\r\nX: y\r\n\r\n", 400, "missing_host"),
    InvalidCase("two Host fields", "GET / HTTP/1.1\r\n\(host)host: other\r\n\r\n", 400, "duplicate_host"),
    InvalidCase("two Host fields in HTTP/1.0", "GET / HTTP/1.0\r\n\(host)\(host)\r\n", 400, "duplicate_host"),
    InvalidCase("whitespace inside Host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400, "invalid_host"),

    // Framing.
    InvalidCase("Content-Length and Transfer-Encoding",
                post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n"), 400, "conflicting_framing"),
    InvalidCase("differing duplicate Content-Length", post("Content-Length: 5\r\nContent-Length: 6\r\n", "hello!"),
                400, "conflicting_content_length"),
    InvalidCase("differing Content-Length list", post("Content-Length: 5, 6\r\n", "hello!"), 400, "conflicting_content_length"),
    InvalidCase("signed Content-Length", post("Content-Length: +5\r\n", "hello"), 400, "invalid_content_length"),
    InvalidCase("negative Content-Length", post("Content-Length: -1\r\n"), 400, "invalid_content_length"),
    InvalidCase("space inside Content-Length", post("Content-Length: 1 1\r\n"), 400, "invalid_content_length"),
    InvalidCase("empty Content-Length", post("Content-Length:\r\n"), 400, "invalid_content_length"),
    InvalidCase("empty Content-Length element", post("Content-Length: 5,\r\n", "hello"), 400, "invalid_content_length"),
    InvalidCase("hex Content-Length", post("Content-Length: 0x5\r\n", "hello"), 400, "invalid_content_length"),
    InvalidCase("overflowing Content-Length", post("Content-Length: 99999999999999999999999\r\n"), 400, "invalid_content_length"),
    InvalidCase("Content-Length over the body limit", post("Content-Length: 11\r\n", "hello world"), 413, "body_too_large",
                limits: HTTPLimits(maxBodyBytes: 10)),
    InvalidCase("chunked, gzip", post("Transfer-Encoding: chunked, gzip\r\n"), 400, "invalid_transfer_encoding"),
    InvalidCase("chunked then gzip in two fields", post("Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n"),
                400, "invalid_transfer_encoding"),
    InvalidCase("chunked twice", post("Transfer-Encoding: chunked, chunked\r\n"), 400, "invalid_transfer_encoding"),
    InvalidCase("chunked with a parameter", post("Transfer-Encoding: chunked;q=1\r\n"), 400, "invalid_transfer_encoding"),
    InvalidCase("empty Transfer-Encoding", post("Transfer-Encoding:\r\n"), 400, "invalid_transfer_encoding"),
    InvalidCase("Transfer-Encoding of commas", post("Transfer-Encoding: , ,\r\n"), 400, "invalid_transfer_encoding"),
    InvalidCase("non-token coding", post("Transfer-Encoding: chu\"nked\r\n"), 400, "invalid_transfer_encoding"),
    InvalidCase("gzip, chunked", post("Transfer-Encoding: gzip, chunked\r\n"), 501, "unsupported_transfer_coding"),
    InvalidCase("gzip alone (final coding not chunked)", post("Transfer-Encoding: gzip\r\n"), 400, "invalid_transfer_encoding"),
    InvalidCase("unknown coding alone (final coding not chunked)", post("Transfer-Encoding: x-custom\r\n"), 400, "invalid_transfer_encoding"),
    InvalidCase("unknown coding before chunked", post("Transfer-Encoding: x-custom, chunked\r\n"), 501, "unsupported_transfer_coding"),
    InvalidCase("Transfer-Encoding in HTTP/1.0", "POST /p HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                400, "transfer_encoding_in_http10"),

    // Chunked body.
    InvalidCase("chunk size zz", chunked("zz\r\n"), 400, "invalid_chunk_size"),
    InvalidCase("empty chunk size", chunked("\r\nhello\r\n0\r\n\r\n"), 400, "invalid_chunk_size"),
    InvalidCase("chunk size -1", chunked("-1\r\n"), 400, "invalid_chunk_size"),
    InvalidCase("chunk size +1", chunked("+1\r\n"), 400, "invalid_chunk_size"),
    InvalidCase("chunk size 0x5", chunked("0x5\r\nhello\r\n0\r\n\r\n"), 400, "invalid_chunk_size"),
    InvalidCase("space before chunk size", chunked(" 5\r\nhello\r\n0\r\n\r\n"), 400, "invalid_chunk_size"),
    InvalidCase("trailing space after chunk size", chunked("5 \r\nhello\r\n0\r\n\r\n"), 400, "invalid_chunk_size"),
    InvalidCase("overflowing chunk size", chunked("ffffffffffffffffff\r\n"), 400, "invalid_chunk_size"),
    InvalidCase("control char in a chunk extension", chunked("5;a\u{1}\r\nhello\r\n0\r\n\r\n"), 400, "invalid_chunk_extension"),
    InvalidCase("overlong chunk extension", chunked("5;" + String(repeating: "x", count: 1100) + "\r\n"),
                400, "invalid_chunk_extension"),
    InvalidCase("bare LF after chunk size", chunked("5\nhello\r\n0\r\n\r\n"), 400, "bare_lf"),
    InvalidCase("chunk data longer than its size", chunked("5\r\nhelloXX\r\n0\r\n\r\n"), 400, "missing_chunk_crlf"),
    InvalidCase("chunk data ended by bare LF", chunked("5\r\nhello\n0\r\n\r\n"), 400, "missing_chunk_crlf"),
    InvalidCase("chunk data ended by bare CR", chunked("5\r\nhello\r0\r\n\r\n"), 400, "missing_chunk_crlf"),
    InvalidCase("chunks over the body limit", chunked("6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n"), 413, "body_too_large",
                limits: HTTPLimits(maxBodyBytes: 10)),
    InvalidCase("one chunk over the body limit", chunked("b\r\nhello world\r\n0\r\n\r\n"), 413, "body_too_large",
                limits: HTTPLimits(maxBodyBytes: 10)),
    InvalidCase("malformed trailer", chunked("0\r\nBad Trailer\r\n\r\n"), 400, "whitespace_before_colon"),
    InvalidCase("control char in a trailer", chunked("0\r\nX: \u{1}\r\n\r\n"), 400, "invalid_header_value"),
    InvalidCase("bare LF ending the trailers", chunked("0\r\n\n"), 400, "bare_lf"),
    InvalidCase("trailers over the header limit", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "0\r\nX: \(String(repeating: "t", count: 20))\r\n\r\n", 431, "header_too_large",
                limits: HTTPLimits(maxHeaderBytes: 64)),
]

@Test(arguments: invalidCases)
func invalidRequestFailsTheSameInEverySplit(_ c: InvalidCase) {
    let (whole, mismatches) = ParserHarness.outcomeOfAllSplits(c.input, limits: c.limits)
    #expect(whole.error?.status == c.status)
    #expect(whole.error?.code == c.code)
    #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
}
