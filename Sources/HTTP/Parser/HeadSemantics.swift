/// What the header fields mean for the exchange: body framing (RFC 9112
/// §6), persistence (§9.3), `Expect: 100-continue`, and the Host rules.
/// Anything ambiguous about framing is an error, never a guess, because a
/// proxy in front of us might have guessed differently (request smuggling).
struct HeadSemantics {
    var framing: HTTPBodyFraming
    var keepAlive: Bool
    var expectsContinue: Bool

    init(version: HTTPVersion, headers: HTTPHeaders, limits: HTTPLimits) throws(HTTPError) {
        var hostCount = 0
        var contentLengths: [String] = []
        var transferCodings: [Substring] = []
        var sawTransferEncoding = false
        var close = false
        var keepAliveToken = false
        var expectContinue = false

        for field in headers {
            let name = field.name
            if HTTPHeaders.equalNames(name, "host") {
                hostCount += 1
                guard field.value.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { throw ParseError.invalidHost }
            } else if HTTPHeaders.equalNames(name, "content-length") {
                contentLengths.append(field.value)
            } else if HTTPHeaders.equalNames(name, "transfer-encoding") {
                sawTransferEncoding = true
                transferCodings += Self.listElements(field.value)
            } else if HTTPHeaders.equalNames(name, "connection") {
                for token in Self.listElements(field.value) {
                    if HTTPHeaders.equalNames(String(token), "close") { close = true }
                    if HTTPHeaders.equalNames(String(token), "keep-alive") { keepAliveToken = true }
                }
            } else if HTTPHeaders.equalNames(name, "expect") {
                if HTTPHeaders.equalNames(field.value, "100-continue") { expectContinue = true }
            }
        }

        let isHTTP11 = version != .http1_0
        if isHTTP11 && hostCount == 0 { throw ParseError.missingHost }
        if hostCount > 1 { throw ParseError.duplicateHost }

        if sawTransferEncoding {
            if !contentLengths.isEmpty { throw ParseError.conflictingFraming }
            if !isHTTP11 { throw ParseError.transferEncodingInHTTP10 }
            try Self.checkChunkedIsFinal(transferCodings)
            framing = .chunked
        } else if !contentLengths.isEmpty {
            let length = try Self.contentLength(contentLengths)
            if length > limits.maxBodyBytes { throw ParseError.bodyTooLarge }
            framing = .contentLength(length)
        } else {
            framing = .none
        }

        // `close` wins over `keep-alive`; otherwise the version decides.
        keepAlive = !close && (isHTTP11 || keepAliveToken)
        expectsContinue = expectContinue && framing != .none && framing != .contentLength(0)
    }

    /// Elements of a comma-separated list with OWS trimmed; empty ones kept
    /// so the caller can decide whether they matter.
    private static func listElements(_ value: String) -> [Substring] {
        value.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var t = text
        while let c = t.first, c == " " || c == "\t" { t.removeFirst() }
        while let c = t.last, c == " " || c == "\t" { t.removeLast() }
        return t
    }

    /// Transfer-Encoding must end in exactly one `chunked` (RFC 9112 §6.3: a
    /// request whose final coding is not chunked has no determinable length,
    /// so `gzip` alone is a 400); a coding before it is one we do not
    /// implement (501).
    private static func checkChunkedIsFinal(_ elements: [Substring]) throws(HTTPError) {
        // Empty list elements are allowed by RFC 9110 §5.6.1 as long as one is not.
        let codings = elements.filter { !$0.isEmpty }
        guard let last = codings.last else { throw ParseError.invalidTransferEncoding }
        var chunkedCount = 0
        for coding in codings {
            // A coding is a token, optionally with parameters; chunked takes none.
            let name = trimmed(coding.prefix { $0 != ";" })
            guard !name.isEmpty, name.utf8.allSatisfy(ByteClass.isTokenChar) else { throw ParseError.invalidTransferEncoding }
            if HTTPHeaders.equalNames(String(name), "chunked") {
                guard name.count == coding.count else { throw ParseError.invalidTransferEncoding }
                chunkedCount += 1
            }
        }
        if chunkedCount > 1 { throw ParseError.invalidTransferEncoding }
        if chunkedCount == 0 || !HTTPHeaders.equalNames(String(trimmed(last)), "chunked") {
            throw ParseError.invalidTransferEncoding
        }
        // Only chunked alone is implemented: `gzip, chunked` is 501.
        if codings.count > 1 { throw ParseError.unsupportedTransferCoding }
    }

    /// One value from every Content-Length field and list element; they must
    /// all be 1*DIGIT and agree (RFC 9112 §6.3).
    private static func contentLength(_ values: [String]) throws(HTTPError) -> Int {
        var result: Int?
        for value in values {
            for element in listElements(value) {
                guard !element.isEmpty, element.utf8.allSatisfy(ByteClass.isDigit) else { throw ParseError.invalidContentLength }
                var n = 0
                for digit in element.utf8 {
                    let (times10, o1) = n.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
                    if o1 || o2 { throw ParseError.invalidContentLength }
                    n = sum
                }
                if let r = result, r != n { throw ParseError.conflictingContentLength }
                result = n
            }
        }
        guard let length = result else { throw ParseError.invalidContentLength }
        return length
    }
}
