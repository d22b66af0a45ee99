/// `chunk-size [ chunk-ext ]` of a chunked body (RFC 9112 §7.1), CRLF removed.
enum ChunkSizeLine {
    /// Longest size line accepted, extensions included. We ignore extensions,
    /// so there is no reason to buffer much of them.
    static let maxLength = 1024

    /// The chunk size. Extensions are checked loosely (no control bytes, must
    /// start with `;`) and ignored.
    static func parse(_ line: ArraySlice<UInt8>) throws(HTTPError) -> Int {
        var size = 0
        var i = line.startIndex
        while i < line.endIndex, let digit = ByteClass.hexValue(line[i]) {
            let (times16, o1) = size.multipliedReportingOverflow(by: 16)
            let (sum, o2) = times16.addingReportingOverflow(digit)
            if o1 || o2 { throw ParseError.invalidChunkSize }
            size = sum
            i += 1
        }
        guard i > line.startIndex else { throw ParseError.invalidChunkSize }
        if i == line.endIndex { return size }

        // BWS is allowed only in front of an extension, not as trailing garbage.
        var extensionStart = i
        while extensionStart < line.endIndex && ByteClass.isWhitespace(line[extensionStart]) { extensionStart += 1 }
        guard extensionStart < line.endIndex, line[extensionStart] == UInt8(ascii: ";") else {
            throw ParseError.invalidChunkSize
        }
        guard line[extensionStart...].allSatisfy(ByteClass.isFieldValueChar) else { throw ParseError.invalidChunkExtension }
        return size
    }
}
