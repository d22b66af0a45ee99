import Core
/// Applies a parsed TOML document and environment overrides on top of the
/// defaults, collecting every issue instead of stopping at the first.
struct ConfigLoader {
    let file: String?
    var config = HubConfig()
    var issues: [ConfigIssue] = []
    /// Keys given a value by the file or the environment (not defaults),
    /// for rules such as "path or url, not both".
    var given = Set<String>()

    init(file: String?) { self.file = file }

    mutating func issue(_ position: TOMLPosition?, _ key: String, _ message: String) {
        issues.append(ConfigIssue(file: file, at: position, key: key, message: message))
    }

    // MARK: File

    mutating func apply(_ root: TOMLTable) {
        for section in root.keys {
            let value = root[section]!
            let position = root.position(of: section)
            if section == "oauth" {
                applyOAuth(value, at: position)
                continue
            }
            if section == "sso" {
                applySSO(value, at: position)
                continue
            }
            let keys = ConfigKeys.keys(in: section)
            if keys.isEmpty {
                let what = value.tableValue != nil ? "unknown section [\(section)]" : "unknown key (keys belong in a [section])"
                issue(position, section, what + Suggest.hint(section, among: ConfigKeys.sections + ["oauth", "sso"], format: { "[\($0)]" }))
                continue
            }
            guard let table = value.tableValue else {
                issue(position, section, "must be a [\(section)] table, not \(value.typeName)")
                continue
            }
            for name in table.keys {
                let path = "\(section).\(name)"
                let at = table.position(of: name)
                guard let key = keys.first(where: { $0.name == name }) else {
                    issue(at, path, "unknown key" + Suggest.hint(name, among: keys.map(\.name), format: { "\(section).\($0)" }))
                    continue
                }
                do {
                    try key.set(table[name]!, in: &config)
                    given.insert(path)
                } catch {
                    issue(at, path, error.message)
                }
            }
        }
    }

    /// The tables of `[[section.key]]` (e.g. `[[oauth.clients]]`), reporting a
    /// section that is not a table, other keys in it, or a key that is not
    /// an array of tables. Empty when absent or wrong.
    mutating func arrayOfTables(_ value: TOMLValue, at position: TOMLPosition?, section: String, key: String,
                                noun: String) -> [TOMLTable] {
        guard let table = value.tableValue else {
            issue(position, section, "must be a table; declare \(noun)s with [[\(section).\(key)]]")
            return []
        }
        for name in table.keys where name != key {
            issue(table.position(of: name), "\(section).\(name)",
                  "unknown key" + Suggest.hint(name, among: [key], format: { "\(section).\($0)" }))
        }
        guard let list = table[key] else { return [] }
        guard let items = list.arrayValue, items.allSatisfy({ $0.tableValue != nil }) else {
            issue(table.position(of: key), "\(section).\(key)",
                  "must be an array of tables: declare each \(noun) under [[\(section).\(key)]]")
            return []
        }
        return items.compactMap(\.tableValue)
    }

    mutating func applyOAuth(_ value: TOMLValue, at position: TOMLPosition?) {
        let clients = arrayOfTables(value, at: position, section: "oauth", key: "clients", noun: "client")
        for (index, client) in clients.enumerated() {
            let base = "oauth.clients[\(index)]"
            var id: String?, name: String?, uris: [String]?
            for key in client.keys {
                let at = client.position(of: key)
                let value = client[key]!
                do throws(InvalidValue) {
                    switch key {
                    case "id":
                        guard let s = value.stringValue else { throw InvalidValue("must be a string, not \(value.typeName)") }
                        id = try Validate.clientID(s)
                        if let seen = config.oauthClients.firstIndex(where: { $0.id == s }) {
                            throw InvalidValue("duplicate client id \(TOMLValue.quote(s)) (also oauth.clients[\(seen)])")
                        }
                    case "name":
                        guard let s = value.stringValue else { throw InvalidValue("must be a string, not \(value.typeName)") }
                        name = try Validate.displayName(s)
                    case "redirect_uris":
                        guard let array = value.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                            throw InvalidValue("must be an array of strings, not \(value.typeName)")
                        }
                        guard !array.isEmpty else { throw InvalidValue("must list at least one redirect URI") }
                        var list: [String] = []
                        for uri in array { list.append(try Validate.redirectURI(uri.stringValue!)) }
                        uris = list
                    default:
                        throw InvalidValue("unknown key" + Suggest.hint(key, among: ["id", "name", "redirect_uris"], format: { "\(base).\($0)" }))
                    }
                } catch {
                    issue(at, "\(base).\(key)", error.message)
                }
            }
            for (key, present) in [("id", client["id"] != nil), ("name", client["name"] != nil), ("redirect_uris", client["redirect_uris"] != nil)] where !present {
                issue(client.position, "\(base).\(key)", "is required")
            }
            if let id, let name, let uris {
                config.oauthClients.append(OAuthClientConfig(id: id, name: name, redirectURIs: uris))
            } else {
                // Keep indices aligned for duplicate detection messages.
                config.oauthClients.append(OAuthClientConfig(id: "", name: "", redirectURIs: []))
            }
        }
        config.oauthClients.removeAll { $0.id.isEmpty }
    }

    // MARK: Environment

    /// `PINGTXT_<SECTION>_<KEY>` overrides. Variables with the prefix that
    /// name no key are ignored (other tools use the prefix too).
    mutating func applyEnvironment(_ environment: [String: String]) {
        for key in ConfigKeys.all {
            let variable = key.environmentVariable
            guard let raw = environment[variable] else { continue }
            // A secret's value stays out of every message.
            let shown = key.isSecret ? "\(variable)=********" : "\(variable)=\(TOMLValue.quote(raw))"
            let value: TOMLValue
            switch key.kind {
            case .string:
                value = .string(raw)
            case .integer:
                let trimmed = Validate.trim(raw)
                guard let n = Int(trimmed) else {
                    issues.append(ConfigIssue(key: key.path, message: "\(shown): must be an integer"))
                    continue
                }
                value = .integer(n)
            case .boolean:
                switch Validate.trim(raw).lowercased() {
                case "true", "1": value = .boolean(true)
                case "false", "0": value = .boolean(false)
                default:
                    issues.append(ConfigIssue(key: key.path, message: "\(shown): must be true, false, 1 or 0"))
                    continue
                }
            case .stringArray:
                value = .array(raw.split(separator: ",").map { Validate.trim(String($0)) }.filter { !$0.isEmpty }.map { .string($0) })
            }
            do {
                try key.set(value, in: &config)
                given.insert(key.path)
            } catch {
                issues.append(ConfigIssue(key: key.path, message: "\(shown): \(error.message)"))
            }
        }
    }
}

extension ConfigLoader {
    /// Rules between keys, checked once file and environment are applied.
    mutating func checkCombinations() {
        let smtp = config.smtp
        func add(_ key: String, _ message: String) { issues.append(ConfigIssue(key: "smtp.\(key)", message: message)) }
        if smtp.isConfigured {
            if smtp.from.isEmpty { add("from", "is required when smtp.host is set (the sender address of alert mails)") }
            if smtp.security == .none && !LoopbackHost.contains(smtp.host) {
                add("security", "none (no encryption) is only allowed with a loopback host, not \(TOMLValue.quote(smtp.host)); use starttls or tls")
            }
        }
        if smtp.username.isEmpty && !smtp.password.isEmpty { add("username", "is required when smtp.password is set") }
        if given.contains("database.path") && given.contains("database.url") && config.database.url != nil {
            issues.append(ConfigIssue(key: "database.url", message: "set database.path or database.url, not both "
                + "(a SQLite file can be given as url = \"sqlite:///path/to/pingtxt.db\")"))
        }
        if !smtp.username.isEmpty && smtp.password.isEmpty { add("password", "is required when smtp.username is set") }
    }

}

/// "did you mean …?" for misspelt keys.
enum Suggest {
    static func hint(_ word: String, among candidates: [String], format: (String) -> String) -> String {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0)) }.filter { $0.1 <= max(1, word.count / 3) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
        return "; did you mean \(format(best.0))?"
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(1, b.count) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
