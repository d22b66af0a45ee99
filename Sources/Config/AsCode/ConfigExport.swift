import Core

/// `pingtxt export`'s file from the hub's `GET /api/config` answer: each
/// object's API representation as a table of its section, without the
/// hub's own fields, references as keys, nulls left out (TOML has none, and
/// a left-out field takes its default on apply), sorted by key, so two hubs
/// with the same configuration give byte-equal files.
public enum ConfigExport {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static let header = """
        # pingtxt configuration (SPEC §13), written by `pingtxt export`.
        # Apply it with `pingtxt apply FILE`; objects are matched by their key.

        """

    public static func document(_ export: JSONObject, redact: Bool) throws(Failure) -> String {
        var keys: [ConfigSection: [Int64: String]] = [:]
        var items: [ConfigSection: [JSONObject]] = [:]
        for section in ConfigSection.allCases {
            for case .object(let o) in export[section.rawValue]?.arrayValue ?? [] {
                guard let id = o["id"]?.intValue else { throw Failure(description: "a \(section.singular) without an id in the hub's answer") }
                guard let key = o["key"]?.stringValue else {
                    throw Failure(description: "\(section.singular) \(id) has no key (was it created during the export? run it again)")
                }
                keys[section, default: [:]][id] = key
                items[section, default: []].append(o)
            }
        }
        var root = TOMLTable()
        for section in ConfigSection.allCases {
            let sorted = (items[section] ?? []).sorted { ($0["key"]?.stringValue ?? "") < ($1["key"]?.stringValue ?? "") }
            guard !sorted.isEmpty else { continue }
            var tables: [TOMLValue] = []
            for o in sorted { tables.append(.table(try table(o, section: section, keys: keys, redact: redact))) }
            root.set(section.rawValue, .array(tables), at: nil)
        }
        do {
            return header + (try TOMLWriter.write(root))
        } catch {
            throw Failure(description: "cannot write \(error.path): \(error.message)")
        }
    }

    /// The environment variable a redacted secret is read from on apply:
    /// `CHANNEL_OPS_SLACK_WEBHOOK_URL` for `config.webhook_url` of channel
    /// `ops-slack`.
    public static func variableName(_ section: ConfigSection, key: String, path: String) -> String {
        let last = path.split(separator: ".").last.map(String.init) ?? path
        let raw = "\(section.singular)_\(key)_\(last)".uppercased()
        return String(raw.unicodeScalars.map { s -> Character in
            (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") ? Character(s) : "_"
        })
    }

    static func table(_ o: JSONObject, section: ConfigSection, keys: [ConfigSection: [Int64: String]],
                      redact: Bool) throws(Failure) -> TOMLTable {
        let key = o["key"]?.stringValue ?? ""
        var json = o
        if redact {
            for case .string(let path) in o["secret_fields"]?.arrayValue ?? [] {
                json = replacing(json, path: path.split(separator: ".").map(String.init),
                                 with: .string("env:" + variableName(section, key: key, path: path)))
            }
        }
        var t = TOMLTable()
        t.set("key", .string(key), at: nil)
        let refs = section.references
        for (field, value) in json.entries where field != "key" && !ConfigSection.readOnly.contains(field) {
            if let ref = refs.first(where: { $0.apiField == field && $0.inArray == nil }) {
                if let v = try referenced(value, ref, keys: keys, owner: "\(section.singular) \"\(key)\"") { t.set(ref.fileField, v, at: nil) }
                continue
            }
            if let ref = refs.first(where: { $0.inArray == field }), case .array(let elements) = value {
                var out: [TOMLValue] = []
                for case .object(let e) in elements {
                    var sub = TOMLTable()
                    for (k, v) in e.entries {
                        if k == ref.apiField {
                            if let r = try referenced(v, ref, keys: keys, owner: "\(section.singular) \"\(key)\"") { sub.set(ref.fileField, r, at: nil) }
                        } else if let converted = try toml(v, path: "\(field).\(k)") {
                            sub.set(k, converted, at: nil)
                        }
                    }
                    out.append(.table(sub))
                }
                t.set(field, .array(out), at: nil)
                continue
            }
            if let converted = try toml(value, path: field) { t.set(field, converted, at: nil) }
        }
        return t
    }

    /// Ids as keys; arrays sorted (they are sets, except an ordered
    /// reference), so the order of ids on one hub does not show in the file.
    static func referenced(_ value: JSON, _ ref: ConfigReference, keys: [ConfigSection: [Int64: String]],
                           owner: String) throws(Failure) -> TOMLValue? {
        func name(_ id: Int64) throws(Failure) -> String {
            guard let k = keys[ref.target]?[id] else {
                throw Failure(description: "\(owner): \(ref.apiField) names \(ref.target.singular) \(id), which has no key")
            }
            return k
        }
        switch value {
        case .null: return nil
        case .int(let id): return .string(try name(id))
        case .array(let ids):
            var out: [String] = []
            for case .int(let id) in ids { out.append(try name(id)) }
            return .array((ref.ordered ? out : out.sorted()).map { .string($0) })
        default: throw Failure(description: "\(owner): \(ref.apiField) is not an id")
        }
    }

    /// JSON as TOML: objects as tables, nulls in objects left out.
    static func toml(_ value: JSON, path: String) throws(Failure) -> TOMLValue? {
        switch value {
        case .null: return nil
        case .bool(let b): return .boolean(b)
        case .int(let i): return .integer(Int(i))
        case .string(let s): return .string(s)
        case .double(let d):
            throw Failure(description: "\(path): the number \(d) has a fraction, which the file format cannot hold")
        case .array(let items):
            var out: [TOMLValue] = []
            for (n, item) in items.enumerated() {
                guard let v = try toml(item, path: "\(path)[\(n)]") else {
                    throw Failure(description: "\(path)[\(n)]: null inside an array cannot be written")
                }
                out.append(v)
            }
            return .array(out)
        case .object(let o):
            var t = TOMLTable()
            for (k, v) in o.entries { if let c = try toml(v, path: "\(path).\(k)") { t.set(k, c, at: nil) } }
            return .table(t)
        }
    }

    static func replacing(_ o: JSONObject, path: [String], with value: JSON) -> JSONObject {
        guard let first = path.first, o[first] != nil else { return o }
        var out = o
        if path.count == 1 {
            out[first] = value
        } else if case .object(let sub)? = o[first] {
            out[first] = .object(replacing(sub, path: Array(path.dropFirst()), with: value))
        }
        return out
    }
}
