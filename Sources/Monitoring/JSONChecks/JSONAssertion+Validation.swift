import Core

extension JSONAssertion {
    public static let maxCount = 20
    /// The serialized `value` at most; a check compares, it does not carry documents.
    public static let maxValueBytes = 1024

    /// Validates `http.json` (SPEC §12): null or missing = none, else an
    /// array of at most 20 assertions. Errors name the element's field
    /// (`http.json[2].path`).
    static func parseList(_ value: JSON?, field: String) throws(JSONFieldError) -> [JSONAssertion] {
        switch value {
        case nil, .null?: return []
        case .array(let items)?:
            guard items.count <= maxCount else {
                throw JSONFieldError(field: field, message: "\(field) may hold at most \(maxCount) assertions.")
            }
            var out: [JSONAssertion] = []
            for (i, item) in items.enumerated() {
                out.append(try parse(item, field: "\(field)[\(i)]"))
            }
            return out
        case let other?:
            throw JSONFieldError(field: field, message: "\(field) must be an array of assertions, not \(other.typeName).")
        }
    }

    static func parse(_ item: JSON, field: String) throws(JSONFieldError) -> JSONAssertion {
        let f = try JSONFields(item, path: field)
        for key in f.object.keys where !["path", "op", "value"].contains(key) {
            throw JSONFieldError(field: f.name(key), message: "\(f.name(key)) is not a field of an assertion (path, op, value).")
        }
        let pathText = try f.requiredString("path")
        let path: JSONPath
        do {
            path = try JSONPath(parsing: pathText)
        } catch {
            throw JSONFieldError(field: f.name("path"), message: "\(f.name("path")) is not a supported JSONPath ($, .name, [\"name\"], [index]): \(error.description).")
        }
        let opText = try f.requiredString("op")
        guard let op = Op(rawValue: opText) else {
            let all = Op.allCases.map(\.rawValue).joined(separator: ", ")
            throw JSONFieldError(field: f.name("op"), message: "\(f.name("op")) must be one of: \(all).")
        }
        let value = f.object["value"]
        guard op.takesValue else {
            if let value, value != .null {
                throw JSONFieldError(field: f.name("value"), message: "\(f.name("value")) must be absent or null for \(op.rawValue).")
            }
            return JSONAssertion(path: path, op: op)
        }
        // `null` is a value to compare with (`$.error == null`); only a missing one is refused.
        guard let value else {
            throw JSONFieldError(field: f.name("value"), message: "\(f.name("value")) is required for \(op.rawValue).")
        }
        guard value.serialized().count <= maxValueBytes else {
            throw JSONFieldError(field: f.name("value"), message: "\(f.name("value")) must be at most \(maxValueBytes) bytes of JSON.")
        }
        if op.isOrdering {
            switch value {
            case .int, .double, .string: break
            default:
                throw JSONFieldError(field: f.name("value"), message: "\(f.name("value")) must be a number or a string for \(op.rawValue).")
            }
        }
        return JSONAssertion(path: path, op: op, value: value)
    }

    /// As stored and shown: `{"path", "op", "value"}` (`value` null for exists ops).
    public func json() -> JSON {
        .object(JSONObject([("path", .string(path.text)), ("op", .string(op.rawValue)), ("value", value)]))
    }
}
