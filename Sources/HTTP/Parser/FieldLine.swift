/// One `field-name ":" OWS field-value OWS` line of the header section or
/// of the trailers (RFC 9112 §5), CRLF already removed.
struct FieldLine {
    var name: String
    var value: String

    init(parsing line: ArraySlice<UInt8>) throws(HTTPError) {
        // Over the bytes in place: through the slice, each byte's index
        // arithmetic and bounds check made this the parser's costliest
        // step (about 1,300 instructions for two short fields, callgrind).
        (name, value) = try line.withUnsafeBufferPointer { (bytes) throws(HTTPError) in try Self.parse(bytes) }
    }

    private static func parse(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPError) -> (String, String) {
        guard let first = line.first else { throw ParseError.invalidHeaderLine }
        // A line starting with whitespace is obs-fold (or whitespace before the
        // first field); RFC 9112 §5.2 lets a server reject it, and we do.
        if ByteClass.isWhitespace(first) { throw ParseError.obsFold }

        var colon = 0
        while colon < line.count && line[colon] != UInt8(ascii: ":") {
            let b = line[colon]
            if !ByteClass.isTokenChar(b) {
                // Whitespace before the colon is a known smuggling vector (RFC 9112 §5.1).
                throw ByteClass.isWhitespace(b) ? ParseError.whitespaceBeforeColon : ParseError.invalidHeaderName
            }
            colon += 1
        }
        guard colon < line.count else { throw ParseError.invalidHeaderLine }
        guard colon > 0 else { throw ParseError.invalidHeaderName }

        var start = colon + 1
        var end = line.count
        while start < end && ByteClass.isWhitespace(line[start]) { start += 1 }
        while end > start && ByteClass.isWhitespace(line[end - 1]) { end -= 1 }
        let valueBytes = UnsafeBufferPointer(rebasing: line[start..<end])
        guard valueBytes.allSatisfy(ByteClass.isFieldValueChar) else { throw ParseError.invalidHeaderValue }

        let name = String(decoding: UnsafeBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
        // obs-text is kept; bytes that are not UTF-8 become U+FFFD.
        return (name, String(decoding: valueBytes, as: UTF8.self))
    }
}
