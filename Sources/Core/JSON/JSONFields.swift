/// A request body's field that is missing, of the wrong type or invalid:
/// becomes `400 {"error": {"code": "validation_failed", "field": …}}`.
public struct JSONFieldError: Error, Sendable, Equatable {
    public let field: String
    public let message: String
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}

/// Typed, validating access to a JSON object's fields. Each accessor names
/// the field in its error, with the path of nested objects (`http.method`).
public struct JSONFields: Sendable {
    public let object: JSONObject
    public let path: String

    public init(_ json: JSON, path: String = "") throws(JSONFieldError) {
        guard case .object(let o) = json else {
            throw JSONFieldError(field: path, message: path.isEmpty ? "The body must be a JSON object."
                                 : "\(path) must be an object.")
        }
        object = o
        self.path = path
    }

    public func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Whether the key is present (null included): PATCH uses this.
    public func has(_ key: String) -> Bool { object[key] != nil }

    public func string(_ key: String) throws(JSONFieldError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?: throw JSONFieldError(field: name(key), message: "\(name(key)) must be a string, not \(other.typeName).")
        }
    }

    public func requiredString(_ key: String) throws(JSONFieldError) -> String {
        guard let s = try string(key) else { throw JSONFieldError(field: name(key), message: "\(name(key)) is required.") }
        return s
    }

    public func int(_ key: String) throws(JSONFieldError) -> Int64? {
        switch object[key] {
        case nil, .null?: return nil
        case .int(let i)?: return i
        case .double(let d)? where d == d.rounded() && abs(d) < 9e15: return Int64(d)
        case let other?: throw JSONFieldError(field: name(key), message: "\(name(key)) must be an integer, not \(other.typeName).")
        }
    }

    public func int(_ key: String, in range: ClosedRange<Int64>) throws(JSONFieldError) -> Int64? {
        guard let v = try int(key) else { return nil }
        guard range.contains(v) else {
            throw JSONFieldError(field: name(key), message: "\(name(key)) must be between \(range.lowerBound) and \(range.upperBound).")
        }
        return v
    }

    public func bool(_ key: String) throws(JSONFieldError) -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case let other?: throw JSONFieldError(field: name(key), message: "\(name(key)) must be true or false, not \(other.typeName).")
        }
    }

    public func stringArray(_ key: String) throws(JSONFieldError) -> [String]? {
        switch object[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            var out: [String] = []
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else {
                    throw JSONFieldError(field: "\(name(key))[\(i)]", message: "\(name(key))[\(i)] must be a string.")
                }
                out.append(s)
            }
            return out
        case let other?: throw JSONFieldError(field: name(key), message: "\(name(key)) must be an array, not \(other.typeName).")
        }
    }

    /// An RFC 3339 time field as Unix seconds.
    public func time(_ key: String) throws(JSONFieldError) -> Int64? {
        guard let s = try string(key) else { return nil }
        guard let t = Time.parseRFC3339(s) else {
            throw JSONFieldError(field: name(key), message: "\(name(key)) must be an RFC 3339 time such as 2026-11-29T10:00:00Z.")
        }
        return t
    }

    public func nested(_ key: String) throws(JSONFieldError) -> JSONFields? {
        guard let v = object[key], v != .null else { return nil }
        return try JSONFields(v, path: name(key))
    }

    /// A value must be one of a fixed set (`role`, `scope`).
    public func oneOf(_ key: String, _ allowed: [String]) throws(JSONFieldError) -> String? {
        guard let s = try string(key) else { return nil }
        guard allowed.contains(s) else {
            throw JSONFieldError(field: name(key), message: "\(name(key)) must be one of: \(allowed.joined(separator: ", ")).")
        }
        return s
    }
}
