import Core

/// One SMTP reply: the code and the text of each line.
public struct SMTPReply: Sendable, Equatable {
    public let code: Int
    public let lines: [String]
    public var isTemporary: Bool { code >= 400 && code < 500 }
    /// `code text` with the lines joined, capped for error messages (500
    /// characters and the ellipsis).
    public var summary: String {
        TextLimit.cut("\(code) " + lines.joined(separator: " / "), to: 501, in: .characters)
    }
}

/// SMTP replies (RFC 5321 §4.2) out of the bytes a server sends: `250-…`
/// lines up to the `250 …` one, all with the same code. A pure state machine
/// apart from the socket (as `HTTPRequestParser`), so the bytes of a
/// stranger's server can be fuzzed (`Sources/Fuzz`) and however the bytes
/// arrive in pieces, the replies and the error are the same.
///
/// Limits, so a hostile server cannot make us buffer without end: a line is
/// at most 8 KiB (its CR LF apart), a reply at most 200 lines. An error is
/// final: every later `next()` throws it again.
public struct SMTPReplyParser: Sendable {
    public static let maxLineBytes = 8192
    public static let maxLines = 200

    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already consumed (dropped in bulk by `feed`).
    private var start = 0
    private var lines: [String] = []
    private var code = 0
    private var failure: SMTPError?

    public init() {}

    /// Bytes received but not yet part of a whole line.
    public var bufferedByteCount: Int { buffer.count - start }

    public mutating func feed<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Forgets everything (STARTTLS: nothing read in clear may be taken as
    /// protected).
    public mutating func reset() { self = SMTPReplyParser() }

    /// The next whole reply, nil until more bytes are fed.
    public mutating func next() throws(SMTPError) -> SMTPReply? {
        if let failure { throw failure }
        do {
            return try step()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func step() throws(SMTPError) -> SMTPReply? {
        while let bytes = try takeLine() {
            guard bytes.count >= 3, bytes[0..<3].allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let c = Int(String(decoding: bytes[0..<3], as: UTF8.self)),
                  bytes.count == 3 || bytes[3] == 32 || bytes[3] == 45,
                  code == 0 || c == code else {
                let line = String(decoding: bytes, as: UTF8.self)
                throw Self.violation("not an SMTP reply: \(String(line.prefix(200)))")
            }
            code = c
            lines.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
            if lines.count > Self.maxLines { throw Self.violation("reply of more than \(Self.maxLines) lines") }
            if bytes.count == 3 || bytes[3] == 32 {
                let reply = SMTPReply(code: code, lines: lines)
                lines = []
                code = 0
                return reply
            }
        }
        return nil
    }

    /// One line without its LF (and CR), nil when none is whole yet. The
    /// length limit is judged on the line itself, so it does not depend on
    /// how the bytes were cut.
    private mutating func takeLine() throws(SMTPError) -> [UInt8]? {
        guard let lf = buffer[start...].firstIndex(of: 10) else {
            // One more byte than the limit may be the line's CR.
            if buffer.count - start > Self.maxLineBytes + 1 { throw Self.tooLong }
            return nil
        }
        var end = lf
        if end > start && buffer[end - 1] == 13 { end -= 1 }
        guard end - start <= Self.maxLineBytes else { throw Self.tooLong }
        let line = Array(buffer[start..<end])
        start = lf + 1
        return line
    }

    private static let tooLong = violation("reply line longer than 8 KiB")

    private static func violation(_ message: String) -> SMTPError {
        SMTPError(kind: .protocolViolation, isTemporary: true, message: message)
    }
}
