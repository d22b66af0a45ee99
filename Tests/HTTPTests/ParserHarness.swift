import HTTP

/// What a parser produced from some input: its events, consecutive body
/// chunks merged (chunk boundaries depend on how the input was split), and
/// the error it stopped with, if any.
struct ParseOutcome: Equatable, CustomStringConvertible {
    var events: [HTTPParserEvent] = []
    var error: HTTPError?

    mutating func append(_ event: HTTPParserEvent) {
        if case .body(let more) = event, case .body(let earlier)? = events.last {
            events[events.count - 1] = .body(earlier + more)
        } else {
            events.append(event)
        }
    }

    var description: String { "events: \(events), error: \(error.map(String.init(describing:)) ?? "none")" }
}

enum ParserHarness {
    /// Feeds `pieces` one after another, draining events after each.
    static func run(_ pieces: [ArraySlice<UInt8>], limits: HTTPLimits = HTTPLimits()) -> ParseOutcome {
        var parser = HTTPRequestParser(limits: limits)
        var outcome = ParseOutcome()
        for piece in pieces {
            parser.feed(piece)
            do {
                while let event = try parser.next() { outcome.append(event) }
            } catch {
                outcome.error = error
                return outcome
            }
        }
        return outcome
    }

    /// The input cut in two at every index, and byte by byte.
    static func splits(of bytes: [UInt8]) -> [(label: String, pieces: [ArraySlice<UInt8>])] {
        var result: [(label: String, pieces: [ArraySlice<UInt8>])] = []
        for cut in 1..<max(bytes.count, 1) {
            result.append(("split at \(cut)", [bytes[..<cut], bytes[cut...]]))
        }
        result.append(("byte by byte", bytes.indices.map { bytes[$0...$0] }))
        return result
    }

    /// The whole-input outcome, and a description of every split whose
    /// outcome differs from it.
    static func outcomeOfAllSplits(_ bytes: [UInt8], limits: HTTPLimits) -> (whole: ParseOutcome, mismatches: [String]) {
        let whole = run([bytes[...]], limits: limits)
        var mismatches: [String] = []
        for (label, pieces) in splits(of: bytes) {
            let outcome = run(pieces, limits: limits)
            if outcome != whole { mismatches.append("\(label): \(outcome)") }
        }
        return (whole, mismatches)
    }
}

/// A head with the defaults most test requests share.
func head(_ method: String = "GET", _ target: String = "/", path: String? = nil, query: String = "",
          version: HTTPVersion = .http1_1, headers: [(String, String)] = [("Host", "example.com")],
          framing: HTTPBodyFraming = .none, keepAlive: Bool? = nil, expectsContinue: Bool = false) -> HTTPRequestHead {
    HTTPRequestHead(method: method, target: target, path: path ?? target, query: query, version: version,
                    headers: HTTPHeaders(headers), framing: framing,
                    keepAlive: keepAlive ?? (version == .http1_1), expectsContinue: expectsContinue)
}

/// The events of one complete request.
func request(_ head: HTTPRequestHead, body: String = "") -> [HTTPParserEvent] {
    [.head(head)] + (body.isEmpty ? [] : [.body(Array(body.utf8))]) + [.end]
}
