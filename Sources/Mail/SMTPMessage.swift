import Core
import Crypto

/// An RFC 5322 plain-text message, ready for DATA.
///
/// Headers: Date, From, To, Subject (RFC 2047 `=?UTF-8?B?…?=` words when not
/// plain ASCII), Message-ID (`<random@domain-of-from>`, or the one given —
/// pass the outbox row's id so a retry carries the same id), MIME-Version,
/// `Content-Type: text/plain; charset=utf-8` and
/// `Content-Transfer-Encoding: quoted-printable`. The body is always
/// quoted-printable, even when the server offers 8BITMIME: 7-bit safe, lines
/// ≤ 76 characters, one code path. Every line ends in CRLF. Extra headers
/// (`X-Pingtxt-Delivery`, `Auto-Submitted`…) follow Message-ID.
///
/// Header injection is impossible: CR, LF and NUL are refused in every header
/// value, and addresses must be plain `local@domain` (no spaces, `<>`, `,`,
/// `;`, `"`, non-ASCII).
public struct SMTPMessage: Sendable, Equatable {
    public let from: String
    public let to: [String]
    public let subject: String
    public let body: String
    public let date: Int64
    public let messageID: String
    public let extraHeaders: [SMTPHeader]

    /// `messageID` without angle brackets, e.g. `outbox-42@example.com`;
    /// nil = 16 random bytes in hex `@` the From address's domain.
    public init(from: String, to: [String], subject: String, body: String,
                date: Int64 = Time.now(), messageID: String? = nil, extraHeaders: [SMTPHeader] = []) throws(SMTPError) {
        try Self.validateAddress(from, field: "From")
        guard !to.isEmpty else { throw .invalid("no recipient") }
        for address in to { try Self.validateAddress(address, field: "To") }
        try Self.validateHeaderValue(subject, field: "Subject")
        for h in extraHeaders {
            guard !h.name.isEmpty, h.name.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }) else {
                throw .invalid("header name \(h.name) is not a valid field name")
            }
            try Self.validateHeaderValue(h.value, field: h.name)
            guard h.value.utf8.allSatisfy({ $0 >= 32 && $0 < 127 }) else { throw .invalid("\(h.name) must be printable ASCII") }
        }
        let id: String
        if let messageID {
            try Self.validateHeaderValue(messageID, field: "Message-ID")
            guard !messageID.isEmpty, !messageID.contains(where: { $0 == "<" || $0 == ">" || $0 == " " }),
                  messageID.contains("@") else { throw .invalid("Message-ID must look like id@domain") }
            id = messageID
        } else {
            let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
            id = Hex.encode(SecureRandom.bytes(16)) + "@" + domain
        }
        self.from = from
        self.to = to
        self.subject = subject
        self.body = body
        self.date = date
        self.messageID = id
        self.extraHeaders = extraHeaders
    }

    /// The header block and QP body, CRLF line endings, ending in CRLF.
    /// (Not dot-stuffed; see `dataPayload`.)
    public func rendered() -> String {
        var h = ""
        h += "Date: \(Self.rfc5322Date(date))\r\n"
        h += "From: \(from)\r\n"
        h += "To: \(to.joined(separator: ",\r\n "))\r\n"
        h += "Subject: \(Self.encodeHeaderText(subject))\r\n"
        h += "Message-ID: <\(messageID)>\r\n"
        for x in extraHeaders { h += "\(x.name): \(x.value)\r\n" }
        h += "MIME-Version: 1.0\r\n"
        h += "Content-Type: text/plain; charset=utf-8\r\n"
        h += "Content-Transfer-Encoding: quoted-printable\r\n"
        h += "\r\n"
        let qp = QuotedPrintable.encode(body)
        return h + qp + (qp.isEmpty || qp.hasSuffix("\r\n") ? "" : "\r\n")
    }

    /// What goes after DATA: the rendered message, dot-stuffed, then `.` CRLF.
    public func dataPayload() -> String {
        Self.dotStuff(rendered()) + ".\r\n"
    }

    /// Doubles a `.` at the start of every line (RFC 5321 §4.5.2). The input
    /// has CRLF line endings.
    public static func dotStuff(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        var atLineStart = true
        for ch in text.unicodeScalars {
            if atLineStart && ch == "." { out.unicodeScalars.append(".") }
            out.unicodeScalars.append(ch)
            atLineStart = ch == "\n"
        }
        return out
    }

    /// `Mon, 30 Nov 2026 15:22:56 +0000`
    public static func rfc5322Date(_ seconds: Int64) -> String {
        var text = Time.httpDate(seconds)
        if text.hasSuffix(" GMT") { text.removeLast(4); text += " +0000" }
        return text
    }

    /// The longest header line that holds an encoded-word (RFC 2047 §2).
    static let maxEncodedLine = 76

    /// The text of a header whose line starts with `nameLength` characters
    /// (`Subject: ` is 9). Printable ASCII that fits on that line stays as
    /// is; anything else becomes RFC 2047 `=?UTF-8?B?…?=` words, folded with
    /// CRLF + space so that every line, the first with the header's name, is
    /// at most 76 characters. Words end on code point boundaries, so each
    /// one decodes to valid UTF-8 on its own.
    public static func encodeHeaderText(_ text: String, nameLength: Int = 9) -> String {
        if text.utf8.allSatisfy({ $0 >= 32 && $0 < 127 }) && !text.contains("=?")
            && nameLength + text.utf8.count <= maxEncodedLine {
            return text
        }
        // `=?UTF-8?B?` + `?=` is 12 characters; base64 turns 3 bytes into 4.
        func bytesFitting(_ room: Int) -> Int { max((room - 12) / 4 * 3, 3) }
        var words: [String] = []
        var chunk: [UInt8] = []
        var limit = bytesFitting(maxEncodedLine - nameLength)
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > limit && !chunk.isEmpty {
                words.append("=?UTF-8?B?\(Base64.encode(chunk))?=")
                chunk = []
                // Continuation lines start with the folding space.
                limit = bytesFitting(maxEncodedLine - 1)
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(Base64.encode(chunk))?=") }
        return words.joined(separator: "\r\n ")
    }

    static func validateHeaderValue(_ value: String, field: String) throws(SMTPError) {
        if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            throw .invalid("\(field) contains a line break")
        }
    }

    /// A bare `local@domain`: ASCII, no controls, spaces or specials that
    /// would let it escape its header or the SMTP command it goes in.
    public static func validateAddress(_ address: String, field: String) throws(SMTPError) {
        try validateHeaderValue(address, field: field)
        let forbidden: Set<UInt8> = Array("<>,;:\"()[]\\ ".utf8).reduce(into: []) { $0.insert($1) }
        let bytes = Array(address.utf8)
        guard bytes.count <= 254, bytes.allSatisfy({ $0 > 32 && $0 < 127 && !forbidden.contains($0) }) else {
            throw .invalid("\(field) address is not a plain local@domain address")
        }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw .invalid("\(field) address is not a plain local@domain address")
        }
    }
}

/// One additional header field (printable ASCII, validated by `SMTPMessage`).
public struct SMTPHeader: Sendable, Equatable {
    public let name: String
    public let value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Quoted-printable (RFC 2045 §6.7) for text bodies.
public enum QuotedPrintable {
    /// Line breaks (CRLF, LF or CR) become hard CRLF breaks; every encoded
    /// line is at most 76 characters, soft breaks (`=` CRLF) included; `=`,
    /// controls and non-ASCII bytes are `=XX`; a space or tab at the end of a
    /// line is encoded so transports cannot strip it.
    public static func encode(_ text: String) -> String {
        var lines: [[UInt8]] = [[]]
        var previousCR = false
        for b in text.utf8 {
            if b == 10 && previousCR { previousCR = false; continue }
            previousCR = b == 13
            if b == 10 || b == 13 { lines.append([]) } else { lines[lines.count - 1].append(b) }
        }
        var out = ""
        for (index, line) in lines.enumerated() {
            out += encodeLine(line)
            if index < lines.count - 1 { out += "\r\n" }
        }
        return out
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    private static func encodeLine(_ line: [UInt8]) -> String {
        var out: [UInt8] = []
        var length = 0
        for (i, b) in line.enumerated() {
            let isLast = i == line.count - 1
            var token: [UInt8]
            if (b == 32 || b == 9) && !isLast {
                token = [b]
            } else if b >= 33 && b <= 126 && b != 61 {
                token = [b]
            } else {
                token = [61, hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
            // Room for a soft-break `=` unless this token ends the line.
            if length + token.count > (isLast ? 76 : 75) {
                out += [61, 13, 10]
                length = 0
            }
            out += token
            length += token.count
            token.removeAll()
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes quoted-printable text (soft breaks removed) to bytes.
    public static func decode(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 65...70: return c - 55
            case 97...102: return c - 87
            default: return nil
            }
        }
        while i < bytes.count {
            let b = bytes[i]
            if b == 61 {
                if i + 2 < bytes.count, bytes[i + 1] == 13, bytes[i + 2] == 10 { i += 3; continue }
                if i + 1 < bytes.count, bytes[i + 1] == 10 { i += 2; continue }
                if i + 2 < bytes.count, let h = value(bytes[i + 1]), let l = value(bytes[i + 2]) {
                    out.append(h << 4 | l); i += 3; continue
                }
            }
            out.append(b)
            i += 1
        }
        return out
    }
}
