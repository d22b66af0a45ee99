import CSQLite

/// One result row, fully copied out of SQLite (so it outlives the statement
/// and may cross threads). Accessors look columns up by name and throw a
/// `StoreError` (SQLITE_MISMATCH / SQLITE_RANGE) on a missing column or a
/// type mismatch: a schema/query bug should surface as an error, not a trap
/// that takes the hub down.
public struct Row: Sendable, Equatable {
    /// Column names, shared (copy-on-write) by every row of one query.
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of a column, or nil when no such column exists.
    public subscript(_ name: String) -> SQLValue? {
        // Linear scan: rows have few columns, and comparing short strings is
        // cheaper than building a dictionary per query. Lengths first: a
        // native string's UTF-8 count is stored, so most columns are passed
        // over without a comparison (lookups in a 30-column monitor row
        // were 10 % of a 1,000-monitor status page).
        let length = name.utf8.count
        for i in columns.indices where columns[i].utf8.count == length && columns[i] == name { return values[i] }
        return nil
    }

    public func value(_ name: String) throws(StoreError) -> SQLValue {
        guard let v = self[name] else {
            throw StoreError(code: SQLITE_RANGE,
                             message: "no column '\(name)' in row (columns: \(columns.joined(separator: ", ")))")
        }
        return v
    }

    private func mismatch(_ name: String, _ v: SQLValue, _ expected: String) -> StoreError {
        StoreError(code: SQLITE_MISMATCH, message: "column '\(name)' is \(v.typeName), expected \(expected)")
    }

    public func int(_ name: String) throws(StoreError) -> Int64 {
        let v = try value(name)
        guard case .integer(let i) = v else { throw mismatch(name, v, "INTEGER") }
        return i
    }

    public func optionalInt(_ name: String) throws(StoreError) -> Int64? {
        let v = try value(name)
        switch v {
        case .null: return nil
        case .integer(let i): return i
        default: throw mismatch(name, v, "INTEGER or NULL")
        }
    }

    public func text(_ name: String) throws(StoreError) -> String {
        let v = try value(name)
        guard case .text(let s) = v else { throw mismatch(name, v, "TEXT") }
        return s
    }

    public func optionalText(_ name: String) throws(StoreError) -> String? {
        let v = try value(name)
        switch v {
        case .null: return nil
        case .text(let s): return s
        default: throw mismatch(name, v, "TEXT or NULL")
        }
    }

    public func blob(_ name: String) throws(StoreError) -> [UInt8] {
        let v = try value(name)
        guard case .blob(let b) = v else { throw mismatch(name, v, "BLOB") }
        return b
    }

    /// Booleans are stored as INTEGER 0/1; any other integer is a bug upstream.
    public func bool(_ name: String) throws(StoreError) -> Bool {
        let v = try value(name)
        switch v {
        case .integer(0): return false
        case .integer(1): return true
        default: throw mismatch(name, v, "INTEGER 0 or 1")
        }
    }

    /// REAL, or INTEGER widened: SQLite may hand back an integral REAL as an
    /// INTEGER when the column has no REAL affinity.
    public func optionalDouble(_ name: String) throws(StoreError) -> Double? {
        let v = try value(name)
        if case .null = v { return nil }
        return try double(name)
    }

    public func double(_ name: String) throws(StoreError) -> Double {
        let v = try value(name)
        switch v {
        case .real(let d): return d
        case .integer(let i): return Double(i)
        default: throw mismatch(name, v, "REAL")
        }
    }
}
