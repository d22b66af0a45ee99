import Core

/// A problem in a config-as-code file, named by file, line and object:
/// `monitors.toml:12: monitor "api": interval: must be 10 to 86400.`
public struct ConfigDocumentError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }

    public init(file: String, line: Int?, object: String?, message: String) {
        var s = file
        if let line { s += ":\(line)" }
        s += ": "
        if let object { s += object + ": " }
        description = s + message
    }
}

/// One object of the file: its section, key and table.
public struct ConfigItem: Sendable {
    public var section: ConfigSection
    public var key: String
    public var table: TOMLTable
    /// The line of its `[[section]]` header.
    public var line: Int?

    public var label: String { "\(section.singular) \"\(key)\"" }
}

/// `pingtxt apply`'s view of a file: the objects by section, the API body
/// each becomes, and where in the file a field of it was written.
public struct ConfigDocument: Sendable {
    public let name: String
    public private(set) var items: [ConfigItem] = []

    public static func parse(_ text: String, name: String) throws(ConfigDocumentError) -> ConfigDocument {
        let root: TOMLTable
        do {
            root = try TOMLParser.parse(text)
        } catch {
            throw ConfigDocumentError(file: name, line: error.line, object: nil, message: error.message)
        }
        var file = ConfigDocument(name: name)
        for sectionName in root.keys {
            let line = root.position(of: sectionName)?.line
            guard let section = ConfigSection(rawValue: sectionName) else {
                throw ConfigDocumentError(file: name, line: line, object: nil, message: "unknown section \"\(sectionName)\"; expected one of "
                                      + ConfigSection.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard case .array(let elements) = root[sectionName]! else {
                throw ConfigDocumentError(file: name, line: line, object: nil, message: "\(sectionName) must be written as [[\(sectionName)]] tables")
            }
            var seen: [String: Int?] = [:]
            for element in elements {
                guard case .table(let t) = element else {
                    throw ConfigDocumentError(file: name, line: line, object: nil, message: "\(sectionName) must be written as [[\(sectionName)]] tables")
                }
                let at = t.position?.line
                guard case .string(let key)? = t["key"] else {
                    throw ConfigDocumentError(file: name, line: at, object: nil, message: "every [[\(sectionName)]] needs a key = \"…\"")
                }
                let keyLine = t.position(of: "key")?.line ?? at
                let label = "\(section.singular) \"\(key)\""
                guard Self.isKey(key) else {
                    throw ConfigDocumentError(file: name, line: keyLine, object: label,
                                          message: "key must be 1 to 64 characters of a-z, 0-9, '.', '_' and '-'")
                }
                if let first = seen[key] {
                    throw ConfigDocumentError(file: name, line: keyLine, object: label,
                                          message: "the key is used twice" + (first.map { " (first at line \($0))" } ?? ""))
                }
                seen[key] = at
                file.items.append(ConfigItem(section: section, key: key, table: t, line: at))
            }
        }
        return file
    }

    /// The same rule as the hub's `KeyRules` (the CLI checks before asking).
    public static func isKey(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64 && s.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    public func items(_ section: ConfigSection) -> [ConfigItem] { items.filter { $0.section == section } }

    /// Whether the file defines an object of `section` with `key`.
    public func defines(_ section: ConfigSection, _ key: String) -> Bool {
        items.contains { $0.section == section && $0.key == key }
    }

    public func error(_ item: ConfigItem, field: String?, _ message: String) -> ConfigDocumentError {
        ConfigDocumentError(file: name, line: field.flatMap { line(item, field: $0) } ?? item.line, object: item.label, message: message)
    }

    /// The body of `PUT …/by-key/{key}`: the table as JSON, `env:NAME`
    /// strings replaced by the variable's value, references as ids through
    /// `ids`. A reference to an object that the file defines but the hub
    /// does not have yet is left out and reported in `pending` (the caller
    /// sends the object again once it exists); one to an object neither has
    /// is an error.
    public func body(_ item: ConfigItem, ids: [ConfigSection: [String: Int64]],
                     environment: [String: String]) throws(ConfigDocumentError) -> (json: JSON, pending: Bool) {
        var pending = false
        var out = JSONObject()
        let refs = item.section.references
        for field in item.table.keys where field != "key" {
            let value = try resolveEnvironment(item.table[field]!, item: item, field: field, environment: environment)
            if let ref = refs.first(where: { $0.fileField == field && $0.inArray == nil }) {
                let (json, missing) = try resolve(value, ref, item: item, field: field, ids: ids)
                pending = pending || missing
                out[ref.apiField] = json
            } else if let ref = refs.first(where: { $0.inArray == field }), case .array(let elements) = value {
                var converted: [JSON] = []
                for (n, element) in elements.enumerated() {
                    guard case .table(let sub) = element else { converted.append(Self.json(element)); continue }
                    var o = JSONObject()
                    for k in sub.keys {
                        if k == ref.fileField {
                            let (json, missing) = try resolve(sub[k]!, ref, item: item, field: "\(field)[\(n)].\(k)", ids: ids)
                            pending = pending || missing
                            o[ref.apiField] = json
                        } else {
                            o[k] = Self.json(sub[k]!)
                        }
                    }
                    converted.append(.object(o))
                }
                out[field] = .array(converted)
            } else {
                out[field] = Self.json(value)
            }
        }
        return (.object(out), pending)
    }

    func resolve(_ value: TOMLValue, _ ref: ConfigReference, item: ConfigItem, field: String,
                 ids: [ConfigSection: [String: Int64]]) throws(ConfigDocumentError) -> (JSON, Bool) {
        var missing = false
        func id(_ key: String) throws(ConfigDocumentError) -> Int64? {
            if let id = ids[ref.target]?[key] { return id }
            guard defines(ref.target, key) else {
                throw error(item, field: field, "\(field): no \(ref.target.singular) has the key \"\(key)\" (neither in this file nor on the hub)")
            }
            missing = true
            return nil
        }
        if ref.many {
            guard case .array(let keys) = value else { throw error(item, field: field, "\(field) must be an array of keys") }
            var out: [Int64] = []
            for k in keys {
                guard case .string(let key) = k else { throw error(item, field: field, "\(field) must be an array of keys") }
                if let i = try id(key) { out.append(i) }
            }
            return (.array((ref.ordered ? out : out.sorted()).map { .int($0) }), missing)
        }
        guard case .string(let key) = value else { throw error(item, field: field, "\(field) must be a key") }
        return (try id(key).map { .int($0) } ?? .null, missing)
    }

    func resolveEnvironment(_ value: TOMLValue, item: ConfigItem, field: String,
                            environment: [String: String]) throws(ConfigDocumentError) -> TOMLValue {
        switch value {
        case .string(let s) where s.hasPrefix("env:"):
            let name = String(s.dropFirst(4))
            guard let v = environment[name] else {
                throw error(item, field: field, "\(field): the environment variable \(name) is not set")
            }
            return .string(v)
        case .array(let items):
            var out: [TOMLValue] = []
            for (n, v) in items.enumerated() { out.append(try resolveEnvironment(v, item: item, field: "\(field)[\(n)]", environment: environment)) }
            return .array(out)
        case .table(let t):
            var out = TOMLTable(position: t.position)
            for k in t.keys {
                out.set(k, try resolveEnvironment(t[k]!, item: item, field: "\(field).\(k)", environment: environment), at: t.position(of: k))
            }
            return .table(out)
        default: return value
        }
    }

    static func json(_ v: TOMLValue) -> JSON {
        switch v {
        case .string(let s): return .string(s)
        case .integer(let i): return .int(Int64(i))
        case .boolean(let b): return .bool(b)
        case .array(let items): return .array(items.map(json))
        case .table(let t): return .object(JSONObject(t.keys.map { ($0, json(t[$0]!)) }))
        }
    }

    /// The line where a field (as the API names it: `http.method`,
    /// `steps[1].channel_ids`, `monitor_ids`) was written, or the nearest
    /// enclosing table's line.
    public func line(_ item: ConfigItem, field: String) -> Int? {
        var table = item.table
        var best = item.line
        let renames = Dictionary(item.section.references.map { ($0.apiField, $0.fileField) }, uniquingKeysWith: { a, _ in a })
        for part in field.split(separator: ".") {
            var name = String(part)
            var index: Int?
            if let open = name.firstIndex(of: "["), let close = name.firstIndex(of: "]"), open < close {
                index = Int(name[name.index(after: open)..<close])
                name = String(name[..<open])
            }
            name = renames[name] ?? name
            guard let value = table[name] else { break }
            if let l = table.position(of: name)?.line { best = l }
            if case .table(let sub) = value {
                table = sub
            } else if case .array(let elements) = value, let index, index < elements.count, case .table(let sub) = elements[index] {
                if let l = sub.position?.line { best = l }
                table = sub
            } else {
                break
            }
        }
        return best
    }
}
