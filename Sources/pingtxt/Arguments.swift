/// Command-line words and `--flag value` options after them.
struct Arguments {
    var words: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []

    /// Flags that take no value.
    static let booleanFlags: Set<String> = ["password-stdin", "help", "redact", "dry-run", "prune"]

    init(_ argv: [String]) throws(CLIError) {
        var i = 0
        while i < argv.count {
            let arg = argv[i]
            if arg.hasPrefix("--") {
                var name = String(arg.dropFirst(2))
                var value: String?
                if let eq = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if Self.booleanFlags.contains(name) {
                    if value != nil { throw CLIError("--\(name) takes no value") }
                    flags.insert(name)
                } else {
                    if value == nil {
                        i += 1
                        guard i < argv.count else { throw CLIError("--\(name) needs a value") }
                        value = argv[i]
                    }
                    options[name] = value
                }
            } else {
                words.append(arg)
            }
            i += 1
        }
    }

    /// Refuses options the command does not know, so typos are not ignored.
    func allow(_ names: Set<String>) throws(CLIError) {
        for name in options.keys.sorted() where !names.contains(name) {
            throw CLIError("unknown option --\(name)")
        }
        for name in flags.sorted() where !names.contains(name) {
            throw CLIError("unknown option --\(name)")
        }
    }

    func required(_ name: String) throws(CLIError) -> String {
        guard let v = options[name], !v.isEmpty else { throw CLIError("--\(name) is required") }
        return v
    }
}

/// A CLI failure: printed as one line on stderr, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
