/// One `field-name ":" OWS field-value OWS` line of the header section or
/// of the trailers (RFC 9112 §5), CRLF already removed.
struct FieldLine {
    var name: String
    var value: String

    init(parsing line: ArraySlice<UInt8>) throws(HTTPError) {
        guard let first = line.first else { throw ParseError.invalidHeaderLine }
        // A line starting with whitespace is obs-fold (or whitespace before the
        // first field); RFC 9112 §5.2 lets a server reject it, and we do.
        if ByteClass.isWhitespace(first) { throw ParseError.obsFold }

        var colon = line.startIndex
        while colon < line.endIndex && line[colon] != UInt8(ascii: ":") {
            let b = line[colon]
            if !ByteClass.isTokenChar(b) {
                // Whitespace before the colon is a known smuggling vector (RFC 9112 §5.1).
                throw ByteClass.isWhitespace(b) ? ParseError.whitespaceBeforeColon : ParseError.invalidHeaderName
            }
            colon += 1
        }
        guard colon < line.endIndex else { throw ParseError.invalidHeaderLine }
        guard colon > line.startIndex else { throw ParseError.invalidHeaderName }

        var start = colon + 1
        var end = line.endIndex
        while start < end && ByteClass.isWhitespace(line[start]) { start += 1 }
        while end > start && ByteClass.isWhitespace(line[end - 1]) { end -= 1 }
        let valueBytes = line[start..<end]
        guard valueBytes.allSatisfy(ByteClass.isFieldValueChar) else { throw ParseError.invalidHeaderValue }

        name = String(decoding: line[..<colon], as: UTF8.self)
        // obs-text is kept; bytes that are not UTF-8 become U+FFFD.
        value = String(decoding: valueBytes, as: UTF8.self)
    }
}
