import HTTP
#if canImport(Glibc)
import Glibc
#endif

/// The final (non-1xx) response head.
public struct ResponseHead: Sendable, Equatable {
    public var version: HTTPVersion
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders
}

public enum ResponseParseError: Error, Sendable, Equatable, CustomStringConvertible {
    case badStatusLine
    case badHeaderLine
    case headersTooLarge
    case conflictingFraming          // Content-Length with Transfer-Encoding
    case badContentLength
    case badChunk(String)
    case unexpectedSwitchingProtocols
    case noResponse                  // EOF before any byte
    case truncated                   // EOF inside a head or a framed body

    public var description: String {
        switch self {
        case .badStatusLine: return "malformed status line"
        case .badHeaderLine: return "malformed header line"
        case .headersTooLarge: return "response headers too large"
        case .conflictingFraming: return "both Content-Length and Transfer-Encoding"
        case .badContentLength: return "invalid Content-Length"
        case .badChunk(let s): return "bad chunked encoding (\(s))"
        case .unexpectedSwitchingProtocols: return "unexpected 101 Switching Protocols"
        case .noResponse: return "connection closed without a response"
        case .truncated: return "connection closed before the response was complete"
        }
    }
}

/// HTTP/1.1 response parser: a pure state machine fed bytes in any split.
/// Skips 1xx interim responses; frames the body by Content-Length, chunked
/// (extensions ignored, trailers kept) or connection close; no body for
/// HEAD, 204 and 304. Body bytes go to a callback and are never buffered.
/// Bytes after the end of the response are left unconsumed.
public struct HTTPResponseParser {
    private enum State {
        case statusLine, headerLine
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerLine
        case closeDelimited
        case done
    }

    public let requestMethod: String
    public let maxHeaderBytes: Int
    private var state = State.statusLine
    private var line: [UInt8] = []
    private var headerBytes = 0
    private var pendingVersion = HTTPVersion.http1_1
    private var pendingStatus = 0
    private var pendingReason = ""
    private var pendingHeaders = HTTPHeaders()

    /// Set once the final response head has been read.
    public private(set) var head: ResponseHead?
    public private(set) var trailers = HTTPHeaders()
    /// 1xx responses skipped.
    public private(set) var interimResponses = 0
    public private(set) var receivedAnyBytes = false

    public init(requestMethod: String, maxHeaderBytes: Int = 64 * 1024) {
        self.requestMethod = requestMethod
        self.maxHeaderBytes = maxHeaderBytes
        line.reserveCapacity(256)
    }

    public var isComplete: Bool { if case .done = state { return true }; return false }
    /// The body runs until the server closes the connection.
    public var isCloseDelimited: Bool { if case .closeDelimited = state { return true }; return false }

    /// Consumes bytes up to the end of the response; returns how many were used.
    @discardableResult
    public mutating func feed(_ input: UnsafeRawBufferPointer,
                              onBody: (UnsafeRawBufferPointer) -> Void) throws(ResponseParseError) -> Int {
        guard let base = input.baseAddress, input.count > 0 else { return 0 }
        receivedAnyBytes = true
        let n = input.count
        var i = 0
        while i < n {
            switch state {
            case .statusLine, .headerLine, .chunkSize, .chunkDataEnd, .trailerLine:
                let start = base + i
                if let lf = memchr(start, 10, n - i) {
                    let len = start.distance(to: UnsafeRawPointer(lf))
                    try appendLine(UnsafeRawBufferPointer(start: start, count: len), extra: 1)
                    i += len + 1
                    try endOfLine()
                } else {
                    try appendLine(UnsafeRawBufferPointer(start: start, count: n - i), extra: 0)
                    i = n
                }
            case .fixedBody(let remaining):
                let take = min(remaining, n - i)
                onBody(UnsafeRawBufferPointer(start: base + i, count: take))
                i += take
                state = remaining == take ? .done : .fixedBody(remaining: remaining - take)
            case .chunkData(let remaining):
                let take = min(remaining, n - i)
                onBody(UnsafeRawBufferPointer(start: base + i, count: take))
                i += take
                state = remaining == take ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            case .closeDelimited:
                onBody(UnsafeRawBufferPointer(start: base + i, count: n - i))
                i = n
            case .done:
                return i
            }
        }
        return i
    }

    /// The connection reached EOF: completes a close-delimited body, or throws.
    public mutating func finish() throws(ResponseParseError) {
        switch state {
        case .done: return
        case .closeDelimited: state = .done
        case .statusLine where !receivedAnyBytes: throw .noResponse
        default: throw .truncated
        }
    }

    // MARK: lines

    private mutating func appendLine(_ bytes: UnsafeRawBufferPointer, extra: Int) throws(ResponseParseError) {
        switch state {
        case .statusLine, .headerLine, .trailerLine:
            headerBytes += bytes.count + extra
            if headerBytes > maxHeaderBytes { throw .headersTooLarge }
        case .chunkSize:
            if line.count + bytes.count > 4096 { throw .badChunk("size line too long") }
        case .chunkDataEnd:
            if line.count + bytes.count > 1 { throw .badChunk("missing CRLF after data") }
        default:
            break
        }
        line.append(contentsOf: bytes)
    }

    private mutating func endOfLine() throws(ResponseParseError) {
        if line.last == 13 { line.removeLast() }
        defer { line.removeAll(keepingCapacity: true) }
        switch state {
        case .statusLine:
            if line.isEmpty { return }  // tolerate stray blank lines before a status line
            try parseStatusLine()
            state = .headerLine
        case .headerLine:
            if line.isEmpty { try endOfHead() } else { let f = try parseField(); pendingHeaders.add(f.0, f.1) }
        case .chunkSize:
            try parseChunkSize()
        case .chunkDataEnd:
            guard line.isEmpty else { throw .badChunk("missing CRLF after data") }
            state = .chunkSize
        case .trailerLine:
            if line.isEmpty { state = .done } else { let f = try parseField(); trailers.add(f.0, f.1) }
        default:
            break
        }
    }

    private mutating func parseStatusLine() throws(ResponseParseError) {
        // HTTP/d.d SP ddd [SP reason]
        let l = line
        guard l.count >= 12, l[0] == 72, l[1] == 84, l[2] == 84, l[3] == 80, l[4] == 47,
              isDigit(l[5]), l[6] == 46, isDigit(l[7]), l[8] == 32,
              isDigit(l[9]), isDigit(l[10]), isDigit(l[11]) else { throw .badStatusLine }
        if l.count > 12 && l[12] != 32 { throw .badStatusLine }
        let status = Int(l[9] - 48) * 100 + Int(l[10] - 48) * 10 + Int(l[11] - 48)
        guard status >= 100 else { throw .badStatusLine }
        guard l[5] == 49 else { throw .badStatusLine }  // HTTP/1.x only
        pendingVersion = HTTPVersion(major: 1, minor: Int(l[7] - 48))
        pendingStatus = status
        pendingReason = l.count > 13 ? String(decoding: l[13...], as: UTF8.self) : ""
        pendingHeaders = HTTPHeaders()
    }

    private func parseField() throws(ResponseParseError) -> (String, String) {
        let l = line
        // obs-fold (a line starting with whitespace) is refused.
        guard let first = l.first, first != 32, first != 9,
              let colon = l.firstIndex(of: 58), colon > 0 else { throw .badHeaderLine }
        for b in l[..<colon] where !isTokenChar(b) { throw .badHeaderLine }
        var s = colon + 1, e = l.count
        while s < e && (l[s] == 32 || l[s] == 9) { s += 1 }
        while e > s && (l[e - 1] == 32 || l[e - 1] == 9) { e -= 1 }
        for b in l[s..<e] where b == 0 || b == 13 || b == 10 { throw .badHeaderLine }
        return (String(decoding: l[..<colon], as: UTF8.self), String(decoding: l[s..<e], as: UTF8.self))
    }

    private mutating func endOfHead() throws(ResponseParseError) {
        let status = pendingStatus
        if status < 200 {
            if status == 101 { throw .unexpectedSwitchingProtocols }
            interimResponses += 1
            headerBytes = 0
            state = .statusLine
            return
        }
        let headers = pendingHeaders
        head = ResponseHead(version: pendingVersion, status: status, reason: pendingReason, headers: headers)
        pendingHeaders = HTTPHeaders()
        if requestMethod == "HEAD" || status == 204 || status == 304 {
            state = .done
            return
        }
        let te = headers.values("Transfer-Encoding")
        let cl = headers.values("Content-Length")
        if !te.isEmpty {
            if !cl.isEmpty { throw .conflictingFraming }
            let codings = te.flatMap { $0.split(separator: ",") }
                .map { String($0).trimmingWhitespace().lowercased() }
                .filter { !$0.isEmpty }
            state = codings.last == "chunked" ? .chunkSize : .closeDelimited
            return
        }
        if !cl.isEmpty {
            var length: Int?
            for element in cl.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
                let text = String(element).trimmingWhitespace()
                guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy(isDigit),
                      let v = Int(text) else { throw .badContentLength }
                if let length, length != v { throw .badContentLength }
                length = v
            }
            let v = length ?? 0
            state = v == 0 ? .done : .fixedBody(remaining: v)
            return
        }
        state = .closeDelimited
    }

    private mutating func parseChunkSize() throws(ResponseParseError) {
        var size = 0
        var digits = 0
        var i = 0
        let l = line
        while i < l.count, let d = hexValue(l[i]) {
            size = size << 4 | d
            digits += 1
            i += 1
            if digits > 15 { throw .badChunk("size too large") }
        }
        guard digits > 0 else { throw .badChunk("no size") }
        while i < l.count && (l[i] == 32 || l[i] == 9) { i += 1 }
        guard i == l.count || l[i] == 59 else { throw .badChunk("junk after size") }
        state = size == 0 ? .trailerLine : .chunkData(remaining: size)
        if size == 0 { headerBytes = 0 }
    }
}

@inline(__always) private func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

@inline(__always) private func hexValue(_ b: UInt8) -> Int? {
    switch b {
    case 48...57: return Int(b - 48)
    case 65...70: return Int(b - 55)
    case 97...102: return Int(b - 87)
    default: return nil
    }
}

@inline(__always) private func isTokenChar(_ b: UInt8) -> Bool {
    switch b {
    case 48...57, 65...90, 97...122: return true
    case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: return true
    default: return false
    }
}
