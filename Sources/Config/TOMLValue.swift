import Core
// The value tree produced by `TOMLParser`: only the TOML subset pingtxt uses
// (strings, decimal integers, booleans, arrays, tables, arrays of tables).

/// A 1-based line and column (columns count Unicode scalars) in a TOML text.
public struct TOMLPosition: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) { self.line = line; self.column = column }
    public var description: String { "\(line):\(column)" }
}

public enum TOMLValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case boolean(Bool)
    case array([TOMLValue])
    case table(TOMLTable)

    /// A short name of the value's type for error messages ("a string", …).
    public var typeName: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .boolean: return "a boolean"
        case .array(let items):
            if !items.isEmpty, items.allSatisfy({ if case .table = $0 { return true } else { return false } }) {
                return "an array of tables"
            }
            return "an array"
        case .table: return "a table"
        }
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var integerValue: Int? { if case .integer(let i) = self { return i } else { return nil } }
    public var booleanValue: Bool? { if case .boolean(let b) = self { return b } else { return nil } }
    public var arrayValue: [TOMLValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var tableValue: TOMLTable? { if case .table(let t) = self { return t } else { return nil } }

    /// The value as inline TOML text (tables are rendered as `{ … }` for display only).
    public var description: String {
        switch self {
        case .string(let s): return TOMLValue.quote(s)
        case .integer(let i): return String(i)
        case .boolean(let b): return b ? "true" : "false"
        case .array(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .table(let t):
            return "{ " + t.keys.map { "\(TOMLValue.quoteKey($0)) = \(t[$0]!.description)" }.joined(separator: ", ") + " }"
        }
    }

    /// A TOML basic string literal. JSON's string escapes are a subset of
    /// TOML's basic-string escapes, so the shared JSON quoting is exact here.
    public static func quote(_ s: String) -> String { JSONText.quote(s) }

    /// A key, bare when possible, otherwise quoted.
    public static func quoteKey(_ key: String) -> String {
        let bare = !key.isEmpty && key.unicodeScalars.allSatisfy(TOMLValue.isBareKeyScalar)
        return bare ? key : quote(key)
    }

    static func isBareKeyScalar(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": return true
        default: return false
        }
    }
}

/// An ordered TOML table that remembers where each key was defined.
/// Equality compares contents only, not order or positions.
public struct TOMLTable: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// Keys in definition order.
    public private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]
    private var positions: [String: TOMLPosition] = [:]
    /// Where the table was opened (its `[header]`), nil for the root and for
    /// tables built in code.
    public var position: TOMLPosition?

    public init(position: TOMLPosition? = nil) { self.position = position }

    public init(dictionaryLiteral elements: (String, TOMLValue)...) {
        for (k, v) in elements { set(k, v, at: nil) }
    }

    public subscript(key: String) -> TOMLValue? { values[key] }

    /// Where `key` was defined (for a sub-table: the header that created it).
    public func position(of key: String) -> TOMLPosition? { positions[key] }

    public var isEmpty: Bool { keys.isEmpty }
    public var count: Int { keys.count }

    public mutating func set(_ key: String, _ value: TOMLValue, at position: TOMLPosition?) {
        if values.updateValue(value, forKey: key) == nil { keys.append(key) }
        positions[key] = position
    }

    public static func == (a: TOMLTable, b: TOMLTable) -> Bool { a.values == b.values }
}

/// A TOML syntax or structure error, at a 1-based `line:column`.
public struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var position: TOMLPosition
    public var message: String
    public init(_ message: String, at position: TOMLPosition) { self.message = message; self.position = position }
    public var line: Int { position.line }
    public var column: Int { position.column }
    public var description: String { "\(position): \(message)" }
}
