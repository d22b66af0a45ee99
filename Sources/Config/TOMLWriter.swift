// Writes a `TOMLTable` as TOML text that `TOMLParser` reads back as an equal
// table: `key = value` lines first, then each sub-table as `[a.b]` and each
// array of tables as `[[a.b]]`, in the table's key order, so the same table
// always gives the same bytes (export files can be compared and diffed).
// Inline tables are not written (the parser does not read them): an array
// that mixes tables with other values cannot be written and is refused.

public enum TOMLWriter {
    /// A value that this subset of TOML cannot hold, at its dotted path.
    public struct Unwritable: Error, Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    public static func write(_ table: TOMLTable) throws(Unwritable) -> String {
        var out = ""
        try body(table, path: [], into: &out)
        return out
    }

    static func isTableArray(_ v: TOMLValue) -> Bool {
        guard case .array(let items) = v, !items.isEmpty else { return false }
        return items.allSatisfy { if case .table = $0 { return true } else { return false } }
    }

    static func body(_ table: TOMLTable, path: [String], into out: inout String) throws(Unwritable) {
        for key in table.keys {
            let value = table[key]!
            if case .table = value { continue }
            if isTableArray(value) { continue }
            out += "\(TOMLValue.quoteKey(key)) = \(try inline(value, path: path + [key]))\n"
        }
        for key in table.keys {
            let value = table[key]!
            let sub = path + [key]
            let name = sub.map(TOMLValue.quoteKey).joined(separator: ".")
            if case .table(let t) = value {
                out += (out.isEmpty ? "" : "\n") + "[\(name)]\n"
                try body(t, path: sub, into: &out)
            } else if isTableArray(value), case .array(let items) = value {
                for case .table(let t) in items {
                    out += (out.isEmpty ? "" : "\n") + "[[\(name)]]\n"
                    try body(t, path: sub, into: &out)
                }
            }
        }
    }

    static func inline(_ value: TOMLValue, path: [String]) throws(Unwritable) -> String {
        switch value {
        case .string(let s): return quote(s)
        case .integer(let i): return String(i)
        case .boolean(let b): return b ? "true" : "false"
        case .array(let items):
            var parts: [String] = []
            for (n, item) in items.enumerated() {
                if case .table = item {
                    throw Unwritable(path: path.joined(separator: "."),
                                     message: "an array that mixes tables with other values (item \(n)) cannot be written")
                }
                parts.append(try inline(item, path: path))
            }
            return "[" + parts.joined(separator: ", ") + "]"
        case .table:
            throw Unwritable(path: path.joined(separator: "."), message: "a table inside an array cannot be written")
        }
    }

    /// A basic string: `"` and `\` escaped, line breaks and tabs as `\n`,
    /// `\r`, `\t`, every other control character (DEL included) as `\uXXXX`.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
