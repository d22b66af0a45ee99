/// A parsed `method SP request-target SP HTTP-version` line (RFC 9112 §3).
struct RequestLine: Sendable {
    var method: String
    var target: String
    var path: String
    var query: String
    var version: HTTPVersion

    /// Parses the line without its CRLF. Syntax errors (400) are checked
    /// before the version number (505), so a garbled line is never a 505.
    init(parsing line: ArraySlice<UInt8>) throws(HTTPError) {
        // Exactly two single spaces: the first ends the method, the last
        // starts the version; any other space lands in the target and is refused there.
        guard let firstSpace = line.firstIndex(of: ByteClass.space),
              let lastSpace = line.lastIndex(of: ByteClass.space), lastSpace > firstSpace + 1 else {
            throw ParseError.badRequestLine
        }
        let methodBytes = line[..<firstSpace]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(ByteClass.isTokenChar) else { throw ParseError.invalidMethod }
        let (major, minor) = try Self.versionNumbers(line[(lastSpace + 1)...])

        let targetBytes = line[(firstSpace + 1)..<lastSpace]
        method = String(decoding: methodBytes, as: UTF8.self)
        (path, query) = try RequestTarget.split(targetBytes, method: method)
        // An origin-form target without a query is its path, byte for byte:
        // the same String, not a second copy (a ping URL is past the 15
        // bytes a String holds inline, so that was an allocation a request).
        target = query.isEmpty && path.utf8.count == targetBytes.count ? path : String(decoding: targetBytes, as: UTF8.self)

        guard major == 1 else { throw ParseError.versionNotSupported }
        // 1.x for x ≥ 1 gets 1.1 semantics (RFC 9110 §2.5), so it is reported as 1.1.
        version = minor == 0 ? .http1_0 : .http1_1
    }

    /// `HTTP/` DIGIT `.` DIGIT, case-sensitive (RFC 9112 §2.3).
    private static func versionNumbers(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> (Int, Int) {
        let s = bytes.startIndex
        // Byte by byte: `elementsEqual` over the prefix was 300 instructions.
        guard bytes.count == 8, bytes[s] == UInt8(ascii: "H"), bytes[s + 1] == UInt8(ascii: "T"),
              bytes[s + 2] == UInt8(ascii: "T"), bytes[s + 3] == UInt8(ascii: "P"), bytes[s + 4] == UInt8(ascii: "/"),
              ByteClass.isDigit(bytes[s + 5]),
              bytes[s + 6] == UInt8(ascii: "."), ByteClass.isDigit(bytes[s + 7]) else {
            throw ParseError.invalidVersion
        }
        return (Int(bytes[s + 5] - UInt8(ascii: "0")), Int(bytes[s + 7] - UInt8(ascii: "0")))
    }
}
