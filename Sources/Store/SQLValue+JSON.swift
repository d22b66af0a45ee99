import Core

/// The write side of `Row+JSONColumns`: typed values become the compact
/// JSON text the columns hold, in one place, so what is read back is always
/// what the decoder expects.
extension SQLValue {
    static func json(_ value: JSON) -> SQLValue { .text(value.text) }
    static func json(_ object: JSONObject) -> SQLValue { json(.object(object)) }
    static func json(_ strings: [String]) -> SQLValue { json(.array(strings.map { .string($0) })) }
    static func json(_ ids: [Int64]) -> SQLValue { json(.array(ids.map { .int($0) })) }
    static func json(_ kinds: [EventKind]) -> SQLValue { json(.array(kinds.map { .string($0.rawValue) })) }
}
