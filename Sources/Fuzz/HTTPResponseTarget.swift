import HTTP
import Net

/// Target `http-response`: the response parser (what targets and webhook
/// receivers answer us). Every way of cutting the bytes must give the same
/// head, body, trailers, bytes consumed and error; the body never exceeds
/// the bytes fed.
enum HTTPResponseTarget {
    private struct Outcome: Equatable {
        var head: ResponseHead?
        var trailers = HTTPHeaders()
        var interim = 0
        var body: [UInt8] = []
        var consumed = 0
        var complete = false
        var error: ResponseParseError?
        var finishError: ResponseParseError?
    }

    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        // The first byte picks the request method: HEAD frames no body.
        let method = (input.first ?? 0) & 1 == 0 ? "GET" : "HEAD"
        var first: Outcome?
        for pieces in Cuts.variants(input) {
            let outcome = parse(pieces, method: method)
            precondition(outcome.body.count <= input.count, "more body than input")
            if let first { precondition(outcome == first, "the outcome depends on how the bytes were cut") }
            first = outcome
        }
    }

    private static func parse(_ pieces: [ArraySlice<UInt8>], method: String) -> Outcome {
        var parser = HTTPResponseParser(requestMethod: method, maxHeaderBytes: 512)
        var out = Outcome()
        var body: [UInt8] = []
        do throws(ResponseParseError) {
            for piece in pieces where !parser.isComplete {
                // withUnsafeBytes rethrows untyped: carry the typed error out in a Result.
                let used = piece.withUnsafeBytes { raw in
                    Result { () throws(ResponseParseError) in try parser.feed(raw) { body.append(contentsOf: $0) } }
                }
                out.consumed += try used.get()
            }
        } catch {
            // Where the error was raised depends on the cut; that it was, not.
            out.error = error
            out.consumed = 0
        }
        if out.error == nil {
            do throws(ResponseParseError) { try parser.finish() } catch { out.finishError = error }
        }
        out.body = body
        out.head = parser.head
        out.trailers = parser.trailers
        out.interim = parser.interimResponses
        out.complete = parser.isComplete
        return out
    }
}
