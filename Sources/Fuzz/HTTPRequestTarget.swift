// Target `http-request`: the HTTP request parser (bytes from any client).
//
// Each input is parsed twice, whole and cut in two at a point chosen by its
// first byte, and (when short) once more byte by byte. The parser must give
// the same events (body chunks concatenated), the same error and the same
// final state every time, and its events must follow the per-request
// grammar. Any difference is a crash, which libFuzzer reports and minimises.
import HTTP

/// Small limits so the fuzzer reaches every limit check with short inputs.
private let fuzzLimits = HTTPLimits(maxRequestLineBytes: 64, maxHeaderBytes: 256, maxBodyBytes: 512, maxHeaderCount: 8)

/// Byte-by-byte parsing is only worth its cost on short inputs.
private let byteByByteLimit = 1024

/// Everything observable about one parse of an input.
private struct Outcome: Equatable {
    var events: [HTTPParserEvent] = []
    var error: HTTPError?
    var bufferedByteCount = 0
    var isAtRequestBoundary = false

    /// Merges body chunks, whose boundaries legitimately depend on the split.
    mutating func record(_ event: HTTPParserEvent) {
        if case .body(let more) = event, case .body(let earlier)? = events.last {
            events[events.count - 1] = .body(earlier + more)
        } else {
            events.append(event)
        }
    }
}

/// Checks the event grammar as events arrive: `.head`, non-empty `.body`
/// chunks adding up to a Content-Length if there is one, `.end`.
private struct GrammarCheck {
    private var open: HTTPRequestHead?
    private var bodyBytes = 0

    mutating func check(_ event: HTTPParserEvent) {
        switch event {
        case .head(let head):
            precondition(open == nil, "head inside a request")
            if case .contentLength(let n) = head.framing { precondition(n <= fuzzLimits.maxBodyBytes, "body limit ignored") }
            precondition(!(head.expectsContinue && head.framing == .none), "continue without a body")
            open = head
            bodyBytes = 0
        case .body(let chunk):
            precondition(open != nil, "body outside a request")
            precondition(!chunk.isEmpty, "empty body chunk")
            bodyBytes += chunk.count
            precondition(bodyBytes <= fuzzLimits.maxBodyBytes, "body limit ignored")
        case .end:
            guard let head = open else { preconditionFailure("end outside a request") }
            if case .contentLength(let n) = head.framing { precondition(bodyBytes == n, "body length differs from Content-Length") }
            open = nil
        }
    }
}

/// Feeds each piece in turn and drains events after each.
private func parse<Piece: Collection>(_ pieces: [Piece]) -> Outcome where Piece.Element == UInt8 {
    var parser = HTTPRequestParser(limits: fuzzLimits)
    var outcome = Outcome()
    var grammar = GrammarCheck()
    for piece in pieces {
        parser.feed(piece)
        do {
            while let event = try parser.next() {
                grammar.check(event)
                outcome.record(event)
            }
        } catch {
            outcome.error = error
            // Errors are final: the next call must throw the same one.
            do {
                _ = try parser.next()
                preconditionFailure("next() returned after an error")
            } catch let again {
                precondition(again == error, "a later call threw a different error")
            }
            break
        }
    }
    outcome.bufferedByteCount = parser.bufferedByteCount
    outcome.isAtRequestBoundary = parser.isAtRequestBoundary
    return outcome
}

enum HTTPRequestTarget {
    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        // The whole input goes through the raw-pointer feed, the pieces through the generic one.
        let whole = parse([UnsafeRawBufferPointer(input)])
        let cut = input.isEmpty ? 0 : Int(input[0]) % input.count
        let split = parse([input[..<cut], input[cut...]])
        precondition(split == whole, "split at \(cut) differs from whole input")
        if input.count <= byteByByteLimit {
            let bytes = parse(input.indices.map { input[$0...$0] })
            precondition(bytes == whole, "byte-by-byte parse differs from whole input")
        }
    }
}
