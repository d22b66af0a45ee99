/// PostgreSQL array literals (`{1,2,NULL}`, `{"a","b\"c"}`) for statements
/// that take a whole column of values as one parameter
/// (`unnest(CAST(? AS TEXT[]), …)`): a group of rows is then one statement
/// with a fixed text, prepared once, whatever the group's size.
///
/// Format: PostgreSQL docs, "Arrays", 8.15.6 "Array Input and Output
/// Syntax": elements separated by commas; an element in double quotes may
/// hold anything, with `"` and `\` escaped by a backslash; an unquoted
/// `NULL` is a null element (a quoted "NULL" is the text).
struct PostgresArray {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// The literal, closed.
    var literal: SQLValue {
        var closed = bytes
        closed.append(UInt8(ascii: "}"))
        return .text(String(decoding: closed, as: UTF8.self))
    }

    private mutating func separate() {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
    }

    mutating func append(_ value: Int64?) {
        separate()
        guard let value else { return bytes.append(contentsOf: Self.null) }
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func append(_ value: Double?) {
        separate()
        // Swift's shortest round-trip text ("0.25", "1e-05", "inf", "nan")
        // is read back exactly by float8in.
        guard let value else { return bytes.append(contentsOf: Self.null) }
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func append(_ value: String?) {
        separate()
        guard let value else { return bytes.append(contentsOf: Self.null) }
        bytes.append(UInt8(ascii: "\""))
        for b in value.utf8 {
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(b)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let null = Array("NULL".utf8)
}
