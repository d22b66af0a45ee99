import Core

/// A JSONPath of the subset JSON checks accept (SPEC §12): `$` followed by
/// any number of `.name`, `["name"]` and `[index]` steps. No wildcards,
/// slices, filters or recursive descent: each path names at most one value,
/// so an assertion's verdict and its cause are unambiguous.
///
/// The parser reads the text byte by byte with explicit bounds and limits
/// (length, steps, index digits) and reports the first problem with its
/// offset; it never traps, whatever the input (it runs on API bodies and on
/// stored rows, and the fuzz harness feeds it arbitrary bytes).
public struct JSONPath: Sendable, Equatable, CustomStringConvertible {
    public enum Step: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    /// The path as written; causes quote it so the reader finds their own text.
    public let text: String
    public let steps: [Step]

    public static let maxBytes = 512
    public static let maxSteps = 64
    /// Array indexes up to 9 digits: far beyond any body the client keeps (1 MiB).
    static let maxIndexDigits = 9

    public var description: String { text }

    public init(parsing text: String) throws(JSONPathError) {
        self.text = text
        steps = try Self.parseSteps(Array(text.utf8))
    }

    /// The value the path names in `root`, or nil when it names nothing
    /// (a missing key, an index out of range, a step into a scalar).
    /// `.null` is a value: `{"a": null}` has `$.a`.
    public func resolve(in root: JSON) -> JSON? {
        var current = root
        for step in steps {
            switch (step, current) {
            case (.key(let k), .object(let o)):
                guard let next = o[k] else { return nil }
                current = next
            case (.index(let i), .array(let a)):
                guard i >= 0, i < a.count else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }

    static func parseSteps(_ b: [UInt8]) throws(JSONPathError) -> [Step] {
        guard !b.isEmpty else { throw JSONPathError(offset: 0, message: "the path is empty; it starts with $") }
        guard b.count <= maxBytes else { throw JSONPathError(offset: maxBytes, message: "the path is longer than \(maxBytes) bytes") }
        guard b[0] == UInt8(ascii: "$") else { throw JSONPathError(offset: 0, message: "the path must start with $") }
        var steps: [Step] = []
        var i = 1
        while i < b.count {
            guard steps.count < maxSteps else { throw JSONPathError(offset: i, message: "the path has more than \(maxSteps) steps") }
            switch b[i] {
            case UInt8(ascii: "."):
                let start = i + 1
                var end = start
                while end < b.count, isNameByte(b[end]) { end += 1 }
                guard end > start else {
                    throw JSONPathError(offset: start, message: "expected a name after . (letters, digits, _ and -; use [\"…\"] for others)")
                }
                steps.append(.key(String(decoding: b[start..<end], as: UTF8.self)))
                i = end
            case UInt8(ascii: "["):
                guard i + 1 < b.count else { throw JSONPathError(offset: i + 1, message: "expected an index or a quoted name after [") }
                if b[i + 1] == UInt8(ascii: "\"") || b[i + 1] == UInt8(ascii: "'") {
                    let (name, next) = try quotedName(b, from: i + 1)
                    steps.append(.key(name))
                    i = next
                } else {
                    let (index, next) = try arrayIndex(b, from: i + 1)
                    steps.append(.index(index))
                    i = next
                }
                guard i < b.count, b[i] == UInt8(ascii: "]") else { throw JSONPathError(offset: i, message: "expected ]") }
                i += 1
            default:
                throw JSONPathError(offset: i, message: "expected . or [")
            }
        }
        return steps
    }

    /// ASCII letters, digits, `_` and `-`, and any non-ASCII byte (so
    /// `$.größe` works); the quoted form takes everything else.
    static func isNameByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), 0x80...0xFF:
            return true
        default:
            return false
        }
    }

    /// `"name"` or `'name'` starting at the quote; `\` escapes the next byte
    /// (the quote or a backslash). Returns the name and the offset after the
    /// closing quote.
    static func quotedName(_ b: [UInt8], from start: Int) throws(JSONPathError) -> (String, Int) {
        let quote = b[start]
        var out: [UInt8] = []
        var i = start + 1
        while i < b.count {
            let c = b[i]
            if c == quote { return (String(decoding: out, as: UTF8.self), i + 1) }
            if c == UInt8(ascii: "\\") {
                guard i + 1 < b.count else { break }
                let escaped = b[i + 1]
                guard escaped == quote || escaped == UInt8(ascii: "\\") else {
                    throw JSONPathError(offset: i, message: "only \\\(Character(Unicode.Scalar(quote))) and \\\\ are escapes in a quoted name")
                }
                out.append(escaped)
                i += 2
                continue
            }
            guard c >= 0x20 else { throw JSONPathError(offset: i, message: "control characters are not allowed in a name") }
            out.append(c)
            i += 1
        }
        throw JSONPathError(offset: b.count, message: "unterminated quoted name")
    }

    /// A non-negative decimal index of at most `maxIndexDigits` digits.
    static func arrayIndex(_ b: [UInt8], from start: Int) throws(JSONPathError) -> (Int, Int) {
        var i = start
        var value = 0
        while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") {
            guard i - start < maxIndexDigits else {
                throw JSONPathError(offset: i, message: "an index has at most \(maxIndexDigits) digits")
            }
            value = value * 10 + Int(b[i] - UInt8(ascii: "0"))
            i += 1
        }
        guard i > start else {
            throw JSONPathError(offset: start, message: "expected a non-negative index or a quoted name after [")
        }
        return (value, i)
    }
}

/// Why a path does not parse; `offset` is the byte where the problem starts.
public struct JSONPathError: Error, Sendable, Equatable, CustomStringConvertible {
    public let offset: Int
    public let message: String
    public var description: String { "\(message) (at byte \(offset))" }
}
