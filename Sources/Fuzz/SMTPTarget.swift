import Mail

/// Target `smtp`: the reply parser (what a mail server says). However the
/// bytes are cut, the replies and the error are the same, a reply has 1–200
/// lines of at most 8 KiB, and an error repeats once raised.
enum SMTPTarget {
    private struct Outcome: Equatable {
        var replies: [SMTPReply] = []
        var error: SMTPError?
        var buffered = 0
    }

    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        var first: Outcome?
        for pieces in Cuts.variants(input) {
            let outcome = parse(pieces)
            if let first { precondition(outcome == first, "the outcome depends on how the bytes were cut") }
            first = outcome
        }
    }

    private static func parse(_ pieces: [ArraySlice<UInt8>]) -> Outcome {
        var parser = SMTPReplyParser()
        var out = Outcome()
        feeding: for piece in pieces {
            parser.feed(piece)
            do {
                while let reply = try parser.next() {
                    precondition((1...SMTPReplyParser.maxLines).contains(reply.lines.count), "reply line count")
                    precondition((0...999).contains(reply.code), "reply code")
                    out.replies.append(reply)
                }
            } catch {
                out.error = error
                do {
                    _ = try parser.next()
                    preconditionFailure("next() returned after an error")
                } catch let again {
                    precondition(again == error, "a later call threw a different error")
                }
                break feeding
            }
        }
        out.buffered = out.error == nil ? parser.bufferedByteCount : 0
        return out
    }
}
