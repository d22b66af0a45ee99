import Core
import CSQLite

/// TEXT columns that hold JSON (`monitor_ids`, `locations`, `events`,
/// `config`, `settings`), decoded here, once, when a record is built from
/// its row. Only the Store writes these columns, from typed values, so text
/// that does not decode means the database was edited by hand or damaged:
/// the read fails with an error naming table, column and row instead of
/// every caller guessing (an empty list would silently widen a channel or a
/// maintenance window to every monitor).
extension Row {
    /// The parsed JSON of a TEXT column.
    func json(_ name: String, table: String) throws(StoreError) -> JSON {
        let text = try text(name)
        do {
            return try JSON.parse(text)
        } catch {
            throw undecodable(table, name, "does not parse: \(error)")
        }
    }

    /// A column holding a JSON object.
    func jsonObject(_ name: String, table: String) throws(StoreError) -> JSONObject {
        let value = try json(name, table: table)
        guard case .object(let o) = value else { throw undecodable(table, name, "is \(value.typeName), expected an object") }
        return o
    }

    /// A column holding a JSON array of strings.
    func stringArray(_ name: String, table: String) throws(StoreError) -> [String] {
        try array(name, table: table, of: "strings") { $0.stringValue }
    }

    /// A column holding a JSON array of integers (ids).
    func intArray(_ name: String, table: String) throws(StoreError) -> [Int64] {
        try array(name, table: table, of: "integers") { $0.intValue }
    }

    /// A column holding a JSON array of event kinds (SPEC §6's vocabulary).
    func eventKinds(_ name: String, table: String) throws(StoreError) -> [EventKind] {
        try array(name, table: table, of: "event kinds") { $0.stringValue.flatMap(EventKind.init(rawValue:)) }
    }

    private func array<T>(_ name: String, table: String, of what: String,
                          _ element: (JSON) -> T?) throws(StoreError) -> [T] {
        let value = try json(name, table: table)
        guard case .array(let items) = value else { throw undecodable(table, name, "is \(value.typeName), expected an array of \(what)") }
        var out: [T] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard let e = element(item) else {
                throw undecodable(table, name, "is not an array of \(what) (item \(i) is \(item.text))")
            }
            out.append(e)
        }
        return out
    }

    /// SQLITE_MISMATCH, as for a column of the wrong SQL type: the stored
    /// value is not what the schema promises.
    private func undecodable(_ table: String, _ column: String, _ problem: String) -> StoreError {
        let row = self["id"]?.integerValue.map { "row id \($0)" } ?? "a row"
        return StoreError(code: SQLITE_MISMATCH, message: "\(table).\(column) of \(row) \(problem)")
    }
}
