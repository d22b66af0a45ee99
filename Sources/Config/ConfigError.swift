/// One problem found while loading the configuration.
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    /// The config file, or nil for problems with environment variables or defaults.
    public var file: String?
    public var line: Int?
    public var column: Int?
    /// The dotted key (`server.workers`, `oauth.clients[1].id`), or "" for syntax errors.
    public var key: String
    public var message: String

    public init(file: String? = nil, line: Int? = nil, column: Int? = nil, key: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    init(file: String?, at position: TOMLPosition?, key: String, message: String) {
        self.init(file: file, line: position?.line, column: position?.column, key: key, message: message)
    }

    /// `file:line:col: key: message` (parts that are unknown are left out).
    public var description: String {
        var out = ""
        if let file {
            out += file + ":"
            if let line {
                out += "\(line):"
                if let column { out += "\(column):" }
            }
            out += " "
        }
        if !key.isEmpty { out += key + ": " }
        return out + message
    }
}

/// Loading failed; `issues` lists every problem found (a TOML syntax error
/// stops parsing, so it is then the only one).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var issues: [ConfigIssue]

    public init(issues: [ConfigIssue]) { self.issues = issues }
    public init(_ issue: ConfigIssue) { self.issues = [issue] }

    /// One line per issue.
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}
