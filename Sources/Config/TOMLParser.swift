// A TOML parser for the subset pingtxt's configuration uses: comments, bare
// and quoted keys, `[table]` and `[[array.of.tables]]` headers (dotted names
// allowed), basic strings with escapes, literal strings, decimal integers,
// booleans and (multi-line) arrays. Everything else — dotted keys, inline
// tables, floats, dates, multi-line strings, hex/octal/binary integers — is
// rejected with a clear message. Errors carry a 1-based `line:column`.

public enum TOMLParser {
    /// Parses a whole document into its root table.
    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        var parser = TOMLParserState(bytes: Array(text.utf8))
        return try parser.document()
    }
}

/// Mutable table used while parsing; it knows how each entry was created so
/// redefinitions can be rejected. Converted to `TOMLTable` at the end.
final class TableBuilder {
    enum Slot { case value(TOMLValue), table(TableBuilder), tableArray([TableBuilder]) }
    var order: [String] = []
    var slots: [String: Slot] = [:]
    var positions: [String: TOMLPosition] = [:]
    let position: TOMLPosition?
    /// Opened by its own `[header]` (as opposed to implied by `[a.b]`).
    var explicit: Bool

    init(position: TOMLPosition?, explicit: Bool) { self.position = position; self.explicit = explicit }

    func add(_ key: String, _ slot: Slot, at position: TOMLPosition) {
        if slots.updateValue(slot, forKey: key) == nil { order.append(key); positions[key] = position }
    }

    func build() -> TOMLTable {
        var table = TOMLTable(position: position)
        for key in order {
            let value: TOMLValue
            switch slots[key]! {
            case .value(let v): value = v
            case .table(let t): value = .table(t.build())
            case .tableArray(let ts): value = .array(ts.map { .table($0.build()) })
            }
            table.set(key, value, at: positions[key])
        }
        return table
    }
}

struct TOMLParserState {
    let bytes: [UInt8]
    var i = 0
    var line = 1
    var lineStart = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3; lineStart = 3 }  // UTF-8 BOM
    }

    // MARK: Positions and errors

    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }
    func peek(_ offset: Int) -> UInt8? { i + offset < bytes.count ? bytes[i + offset] : nil }

    /// Position of byte `index` on the current line (columns count scalars).
    func position(_ index: Int? = nil) -> TOMLPosition {
        let end = min(index ?? i, bytes.count)
        var column = 1
        var k = lineStart
        while k < end { if bytes[k] & 0xC0 != 0x80 { column += 1 }; k += 1 }
        return TOMLPosition(line: line, column: column)
    }

    func error(_ message: String, at index: Int? = nil) -> TOMLError { TOMLError(message, at: position(index)) }

    /// Describes the byte at the cursor for messages: `'x'`, "end of line", "end of file".
    var found: String {
        guard let c = peek else { return "end of file" }
        if c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r") { return "end of line" }
        if c < 0x20 || c == 0x7F { return "control character" }
        var end = i + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return "'" + String(decoding: bytes[i..<end], as: UTF8.self) + "'"
    }

    // MARK: Whitespace, comments, newlines

    mutating func skipSpaces() {
        while let c = peek, c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") { i += 1 }
    }

    mutating func skipComment() throws(TOMLError) {
        guard peek == UInt8(ascii: "#") else { return }
        while let c = peek, c != UInt8(ascii: "\n") {
            if c == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n") { break }
            if (c < 0x20 && c != UInt8(ascii: "\t")) || c == 0x7F { throw error("control character in comment") }
            i += 1
        }
    }

    /// Consumes `\n` or `\r\n` if present.
    mutating func newline() throws(TOMLError) -> Bool {
        if peek == UInt8(ascii: "\r") {
            guard peek(1) == UInt8(ascii: "\n") else { throw error("carriage return must be followed by a line feed") }
            i += 1
        }
        guard peek == UInt8(ascii: "\n") else { return false }
        i += 1
        line += 1
        lineStart = i
        return true
    }

    /// Spaces, an optional comment, then a newline or the end of the file.
    mutating func endOfLine(after what: String) throws(TOMLError) {
        skipSpaces()
        try skipComment()
        if peek == nil { return }
        guard try newline() else { throw error("expected end of line after \(what), found \(found)") }
    }

    /// Whitespace, newlines and comments (inside arrays).
    mutating func skipBlank() throws(TOMLError) {
        while true {
            skipSpaces()
            try skipComment()
            guard try newline() else { return }
        }
    }

    // MARK: Document structure

    mutating func document() throws(TOMLError) -> TOMLTable {
        let root = TableBuilder(position: nil, explicit: true)
        var current = root
        while true {
            skipSpaces()
            try skipComment()
            guard let c = peek else { break }
            if try newline() { continue }
            if c == UInt8(ascii: "[") {
                current = try header(root: root)
            } else {
                try keyValue(into: current)
            }
        }
        return root.build()
    }

    mutating func keyValue(into table: TableBuilder) throws(TOMLError) {
        let keyPosition = position()
        let key = try self.key()
        skipSpaces()
        if peek == UInt8(ascii: ".") {
            throw error("dotted keys are not supported; use a [table] header instead")
        }
        guard peek == UInt8(ascii: "=") else {
            throw error("expected '=' after key \(TOMLValue.quote(key)), found \(found)")
        }
        i += 1
        skipSpaces()
        let value = try self.value()
        if table.slots[key] != nil {
            let first = table.positions[key].map { " (first defined at \($0))" } ?? ""
            throw TOMLError("duplicate key \(TOMLValue.quote(key))\(first)", at: keyPosition)
        }
        table.add(key, .value(value), at: keyPosition)
        try endOfLine(after: "value")
    }

    /// `[a.b]` or `[[a.b]]`; returns the table that following keys go into.
    mutating func header(root: TableBuilder) throws(TOMLError) -> TableBuilder {
        let headerPosition = position()
        i += 1
        let isArray = peek == UInt8(ascii: "[")
        if isArray { i += 1 }
        var parts: [String] = []
        while true {
            skipSpaces()
            parts.append(try key())
            skipSpaces()
            guard peek == UInt8(ascii: ".") else { break }
            i += 1
        }
        let close = isArray ? "]]" : "]"
        for _ in close.utf8 {
            guard peek == UInt8(ascii: "]") else { throw error("expected '\(close)' to close table header, found \(found)") }
            i += 1
        }
        try endOfLine(after: "table header")

        let name = parts.map(TOMLValue.quoteKey).joined(separator: ".")
        var table = root
        for (n, part) in parts.enumerated() {
            let last = n == parts.count - 1
            let path = parts[...n].map(TOMLValue.quoteKey).joined(separator: ".")
            let first = table.positions[part].map { " (at \($0))" } ?? ""
            switch table.slots[part] {
            case nil:
                let new = TableBuilder(position: headerPosition, explicit: last)
                table.add(part, isArray && last ? .tableArray([new]) : .table(new), at: headerPosition)
                table = new
            case .value?:
                throw TOMLError("cannot define table [\(name)]: key \"\(path)\" is already a value\(first)", at: headerPosition)
            case .table(let existing)?:
                if last && isArray {
                    throw TOMLError("cannot define array of tables [[\(name)]]: [\(name)] is already a table\(first)", at: headerPosition)
                }
                if last && existing.explicit {
                    let at = existing.position.map { " (first defined at \($0))" } ?? ""
                    throw TOMLError("table [\(name)] is defined more than once\(at)", at: headerPosition)
                }
                if last { existing.explicit = true }
                table = existing
            case .tableArray(let items)?:
                if last && !isArray {
                    throw TOMLError("cannot define table [\(name)]: it is already an array of tables\(first)", at: headerPosition)
                }
                if last {
                    let new = TableBuilder(position: headerPosition, explicit: true)
                    table.slots[part] = .tableArray(items + [new])
                    table = new
                } else {
                    table = items[items.count - 1]
                }
            }
        }
        return table
    }

    // MARK: Keys

    mutating func key() throws(TOMLError) -> String {
        guard let c = peek else { throw error("expected a key, found end of file") }
        switch c {
        case UInt8(ascii: "\""):
            if peek(1) == c && peek(2) == c { throw error("multi-line strings cannot be keys") }
            return try basicString()
        case UInt8(ascii: "'"):
            if peek(1) == c && peek(2) == c { throw error("multi-line strings cannot be keys") }
            return try literalString()
        default:
            let start = i
            while let b = peek, b < 0x80, TOMLValue.isBareKeyScalar(Unicode.Scalar(b)) { i += 1 }
            if i == start {
                if c == UInt8(ascii: "=") { throw error("missing key before '='") }
                throw error("expected a key, found \(found)")
            }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }
    }

    // MARK: Values

    mutating func value() throws(TOMLError) -> TOMLValue {
        guard let c = peek else { throw error("missing value, found end of file") }
        switch c {
        case UInt8(ascii: "\""):
            if peek(1) == c && peek(2) == c { throw error("multi-line strings (\"\"\") are not supported") }
            return .string(try basicString())
        case UInt8(ascii: "'"):
            if peek(1) == c && peek(2) == c { throw error("multi-line literal strings (''') are not supported") }
            return .string(try literalString())
        case UInt8(ascii: "["):
            return try array()
        case UInt8(ascii: "{"):
            throw error("inline tables are not supported; use a [table] section instead")
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .integer(try integer())
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
            throw error("missing value after '='")
        default:
            let start = i
            while let b = peek, b < 0x80, TOMLValue.isBareKeyScalar(Unicode.Scalar(b)) || b == UInt8(ascii: ".") { i += 1 }
            let word = String(decoding: bytes[start..<i], as: UTF8.self)
            if word == "true" { return .boolean(true) }
            if word == "false" { return .boolean(false) }
            if word == "inf" || word == "nan" { throw error("floats are not supported", at: start) }
            if word.isEmpty { throw error("invalid value, found \(found)") }
            throw error("invalid value \(word); strings must be quoted, booleans are true or false", at: start)
        }
    }

    mutating func array() throws(TOMLError) -> TOMLValue {
        let start = position()
        i += 1
        var items: [TOMLValue] = []
        while true {
            try skipBlank()
            guard let c = peek else { throw TOMLError("unterminated array (opened at \(start))", at: position()) }
            if c == UInt8(ascii: "]") { i += 1; return .array(items) }
            items.append(try value())
            try skipBlank()
            if peek == UInt8(ascii: ",") { i += 1; continue }
            if peek == UInt8(ascii: "]") { i += 1; return .array(items) }
            if peek == nil { throw TOMLError("unterminated array (opened at \(start))", at: position()) }
            throw error("expected ',' or ']' in array, found \(found)")
        }
    }
}
