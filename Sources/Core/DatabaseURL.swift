/// Where the hub's database lives: `[database] url` (SPEC §14).
///
/// - `sqlite:///var/lib/pingtxt/pingtxt.db` (three slashes: the path is
///   absolute) or `sqlite:relative/path.db`;
/// - `postgres://user:password@host:5432/db?sslmode=require` (or
///   `postgresql://`), handed to libpq as it is, so every libpq parameter
///   (`sslmode`, `sslrootcert`, `connect_timeout`, several hosts…) works.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    /// The URL as written (with its password): what libpq and the config file get.
    public let text: String
    public enum Kind: Sendable, Equatable {
        case sqlite(path: String)
        case postgres(conninfo: String)
    }

    public let kind: Kind

    public var engine: DatabaseEngine {
        if case .sqlite = kind { return .sqlite }
        return .postgres
    }

    public init(sqlitePath: String) {
        kind = .sqlite(path: sqlitePath)
        text = "sqlite:" + sqlitePath
    }

    /// Parses and checks a URL; the error says what is wrong without
    /// repeating a password.
    public init(_ text: String) throws(DatabaseURLError) {
        self.text = text
        let lower = text.lowercased()
        if lower.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") {
                path.removeFirst(2)
                // sqlite://host/path has no meaning for a file.
                guard path.hasPrefix("/") else {
                    throw DatabaseURLError("database url: use sqlite:///absolute/path or sqlite:relative/path")
                }
            }
            guard !path.isEmpty, !path.utf8.contains(0) else {
                throw DatabaseURLError("database url: sqlite: needs a file path")
            }
            kind = .sqlite(path: path)
            return
        }
        guard lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") else {
            throw DatabaseURLError("database url must start with sqlite: or postgres:// (got \(Self.scheme(of: text)))")
        }
        guard !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw DatabaseURLError("database url contains a control character")
        }
        let rest = text[text.index(after: text.firstIndex(of: "/")!)...].dropFirst()   // after "//"
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        guard !host.isEmpty else {
            throw DatabaseURLError("database url: postgres:// needs a host (postgres://user:password@host:5432/db)")
        }
        kind = .postgres(conninfo: text)
    }

    /// The URL with its password replaced by `***`, for logs and errors.
    public var redacted: String {
        switch kind {
        case .sqlite(let path): return path
        case .postgres(let url): return Self.redact(url)
        }
    }

    public var description: String { redacted }

    static func redact(_ url: String) -> String {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return url }
        let restStart = url.index(colon, offsetBy: 3)
        let rest = url[restStart...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            // The password may also be a query parameter.
            return redactQueryPassword(url)
        }
        let user = authority[..<colon]
        return redactQueryPassword(String(url[..<restStart]) + user + ":***" + authority[at...] + rest[authorityEnd...])
    }

    private static func redactQueryPassword(_ url: String) -> String {
        guard let q = url.firstIndex(of: "?") else { return url }
        let params = url[url.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { p -> String in
            p.lowercased().hasPrefix("password=") ? "password=***" : String(p)
        }
        return String(url[...q]) + params.joined(separator: "&")
    }

    private static func scheme(of text: String) -> String {
        guard let colon = text.firstIndex(of: ":") else { return "no scheme" }
        return String(text[..<colon].prefix(20)) + ":"
    }
}

/// Which engine a database runs on (`/healthz` says it).
public enum DatabaseEngine: String, Sendable {
    case sqlite
    case postgres
}

/// A `[database] url` that cannot be used; the message never repeats a password.
public struct DatabaseURLError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
