/// Incremental HTTP/1.1 request parser (RFC 9112): a pure state machine over
/// the bytes a connection has received. It does no I/O, so it behaves the
/// same however the input is split, and the fuzzer can drive it directly.
///
/// The caller feeds bytes and pulls events until `next()` returns nil. Errors
/// are final: the server answers the thrown `HTTPError` and closes, so the
/// parser never tries to resynchronise.
public struct HTTPRequestParser: Sendable {
    private enum State: Sendable {
        /// Between requests; counts the empty lines skipped so far.
        case idle(emptyLines: Int)
        case requestLine
        case headerLines
        case fixedBody(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerLines
        /// The message is complete; `.end` is the next event.
        case messageEnd
        case failed(HTTPError)
    }

    /// RFC 9112 §2.2 lets a server skip "at least one" empty line before a
    /// request; a few cover clients that send CRLF after a body.
    static let maxLeadingEmptyLines = 8

    private let limits: HTTPLimits
    private var buffer = InputBuffer()
    private var state = State.idle(emptyLines: 0)
    // The request being assembled. Kept outside `state` so appending a field
    // mutates in place instead of copying the headers out of an enum payload.
    private var requestLine: RequestLine?
    private var headers = HTTPHeaders()
    /// Header-section bytes so far (field lines with CRLF, then trailers).
    private var headerBytes = 0
    private var fieldCount = 0
    private var bodyBytes = 0

    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// Appends bytes read from the socket. Ignored after an error.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        if case .failed = state { return }
        buffer.append(bytes)
    }

    /// Appends bytes. Ignored after an error.
    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if case .failed = state { return }
        buffer.append(bytes)
    }

    /// Bytes fed but not yet consumed.
    public var bufferedByteCount: Int { buffer.readableCount }

    /// True when between requests (nothing of a next request received yet).
    /// Leading CRLFs, which are ignored, count as idle.
    public var isAtRequestBoundary: Bool {
        guard case .idle(let skipped) = state else { return false }
        let pending = buffer.readable
        // More bytes than the empty lines still allowed can only be a request (or an error).
        guard pending.count <= 2 * (Self.maxLeadingEmptyLines - skipped) + 1 else { return false }
        return pending.indices.allSatisfy { i in
            pending[i] == ((i - pending.startIndex).isMultiple(of: 2) ? ByteClass.cr : ByteClass.lf)
        }
    }

    /// Next event, or nil when more bytes are needed. Events per request:
    /// `.head`, zero or more `.body` chunks, `.end`. After `.end` it starts on
    /// the next pipelined request with the bytes still buffered. After it
    /// throws, every later call throws the same error.
    public mutating func next() throws(HTTPError) -> HTTPParserEvent? {
        if case .failed(let error) = state { throw error }
        do throws(HTTPError) {
            let event = try step()
            buffer.compact()
            return event
        } catch {
            state = .failed(error)
            buffer.discardAll()
            requestLine = nil
            headers = HTTPHeaders()
            throw error
        }
    }

    /// Advances through states until an event is ready or input runs out.
    private mutating func step() throws(HTTPError) -> HTTPParserEvent? {
        while true {
            switch state {
            case .idle(let emptyLines):
                guard let first = buffer.peek(0) else { return nil }
                if first == ByteClass.lf { throw ParseError.bareLF }
                if first != ByteClass.cr {
                    state = .requestLine
                    continue
                }
                guard let second = buffer.peek(1) else { return nil }
                guard second == ByteClass.lf else { throw ParseError.bareCR }
                guard emptyLines < Self.maxLeadingEmptyLines else { throw ParseError.tooManyEmptyLines }
                buffer.consume(2)
                state = .idle(emptyLines: emptyLines + 1)

            case .requestLine:
                guard let line = try buffer.nextLine(maxContent: limits.maxRequestLineBytes,
                                                     tooLong: ParseError.requestLineTooLong) else { return nil }
                requestLine = try RequestLine(parsing: line)
                state = .headerLines

            case .headerLines:
                guard let line = try nextFieldLine() else { return nil }
                if line.isEmpty { return try finishHead() }
                let field = try FieldLine(parsing: line)
                headers.add(field.name, field.value)

            case .fixedBody(let remaining):
                if remaining == 0 {
                    state = .messageEnd
                    continue
                }
                guard buffer.readableCount > 0 else { return nil }
                let chunk = buffer.take(upTo: remaining)
                state = .fixedBody(remaining: remaining - chunk.count)
                return .body(chunk)

            case .chunkSizeLine:
                guard let line = try buffer.nextLine(maxContent: ChunkSizeLine.maxLength,
                                                     tooLong: ParseError.invalidChunkExtension) else { return nil }
                let size = try ChunkSizeLine.parse(line)
                if size == 0 {
                    state = .trailerLines
                    continue
                }
                // Checked on the size, before any data arrives.
                guard size <= limits.maxBodyBytes - bodyBytes else { throw ParseError.bodyTooLarge }
                bodyBytes += size
                state = .chunkData(remaining: size)

            case .chunkData(let remaining):
                guard buffer.readableCount > 0 else { return nil }
                let chunk = buffer.take(upTo: remaining)
                let left = remaining - chunk.count
                state = left == 0 ? .chunkDataEnd : .chunkData(remaining: left)
                return .body(chunk)

            case .chunkDataEnd:
                // Byte by byte so a wrong byte fails the same way in any split.
                guard let cr = buffer.peek(0) else { return nil }
                guard cr == ByteClass.cr else { throw ParseError.missingChunkCRLF }
                guard let lf = buffer.peek(1) else { return nil }
                guard lf == ByteClass.lf else { throw ParseError.missingChunkCRLF }
                buffer.consume(2)
                state = .chunkSizeLine

            case .trailerLines:
                guard let line = try nextFieldLine() else { return nil }
                if line.isEmpty {
                    state = .messageEnd
                    continue
                }
                // Validated like headers so a malformed trailer is not silently passed, then dropped.
                _ = try FieldLine(parsing: line)

            case .messageEnd:
                state = .idle(emptyLines: 0)
                headerBytes = 0
                fieldCount = 0
                bodyBytes = 0
                return .end

            case .failed(let error):
                throw error
            }
        }
    }

    /// The next header or trailer line, counted against the header limits.
    /// The byte budget is checked on partial lines too, so 431 comes early.
    private mutating func nextFieldLine() throws(HTTPError) -> ArraySlice<UInt8>? {
        let budget = limits.maxHeaderBytes - headerBytes - 2
        guard let line = try buffer.nextLine(maxContent: budget, tooLong: ParseError.headerTooLarge) else { return nil }
        headerBytes += line.count + 2
        if !line.isEmpty {
            fieldCount += 1
            if fieldCount > limits.maxHeaderCount { throw ParseError.tooManyHeaders }
        }
        return line
    }

    /// Builds the head once its empty line arrived and picks the body state.
    private mutating func finishHead() throws(HTTPError) -> HTTPParserEvent {
        guard let line = requestLine else { preconditionFailure("header section without a request line") }
        let semantics = try HeadSemantics(version: line.version, headers: headers, limits: limits)
        let head = HTTPRequestHead(method: line.method, target: line.target, path: line.path, query: line.query,
                                   version: line.version, headers: headers, framing: semantics.framing,
                                   keepAlive: semantics.keepAlive, expectsContinue: semantics.expectsContinue)
        requestLine = nil
        headers = HTTPHeaders()
        switch semantics.framing {
        case .none: state = .messageEnd
        case .contentLength(let length): state = .fixedBody(remaining: length)
        case .chunked: state = .chunkSizeLine
        }
        return .head(head)
    }
}
