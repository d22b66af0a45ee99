/// A value as SQLite stores it: its five storage classes.
public enum SQLValue: Sendable, Equatable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The storage class's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

extension SQLValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension SQLValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
}

extension SQLValue: ExpressibleByBooleanLiteral {
    /// SQLite has no boolean type: true/false are stored as 1/0.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension SQLValue: ExpressibleByArrayLiteral {
    /// `[0x01, 0x02]` is a blob.
    public init(arrayLiteral elements: UInt8...) { self = .blob(elements) }
}

// Conveniences so call sites can pass Swift values (optional → NULL) without
// spelling out the case every time.
extension SQLValue {
    public init(_ value: Int64?) { self = value.map { .integer($0) } ?? .null }
    public init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    public init(_ value: [UInt8]?) { self = value.map { .blob($0) } ?? .null }
    public init(_ value: Double?) { self = value.map { .real($0) } ?? .null }
    public init(_ value: Bool?) { self = value.map { .integer($0 ? 1 : 0) } ?? .null }
}

extension SQLValue {
    /// The integer, or nil for any other case.
    public var integerValue: Int64? {
        if case .integer(let n) = self { return n }
        return nil
    }
}
