import API
import Agent
import Auth
import Config
import Core
import Store
#if canImport(Glibc)
import Glibc
#endif

/// `pingtxt user add|passwd`.
enum UserCommands {
    static func add(_ args: Arguments) throws {
        try args.allow(["config", "email", "role", "name", "password-stdin"])
        let email = try args.required("email")
        guard let role = Role(rawValue: try args.required("role")) else {
            throw CLIError("--role must be admin or readonly")
        }
        let password = try readPassword(args)
        let db = try CLI.openDatabase(try CLI.loadConfig(args))
        defer { db.close() }
        let user = try describe { try UserService(database: db).create(email: email, name: args.options["name"], role: role, password: password) }
        print("created user \(user.email) (id \(user.id), \(user.role))" + (password == nil ? " without a password" : ""))
    }

    static func passwd(_ args: Arguments) throws {
        try args.allow(["config", "email", "password-stdin"])
        let email = try args.required("email")
        guard let password = try readPassword(args) else {
            throw CLIError("no password given: use --password-stdin or run in a terminal")
        }
        let db = try CLI.openDatabase(try CLI.loadConfig(args))
        defer { db.close() }
        try describe { try UserService(database: db).setPassword(email: email, password: password) }
        print("password set for \(email)")
    }

    /// `--password-stdin` reads one line; otherwise a terminal is asked with
    /// echo off; with neither, nil (a user without a password).
    static func readPassword(_ args: Arguments) throws -> String? {
        if args.flags.contains("password-stdin") {
            guard let line = readLine(strippingNewline: true) else { throw CLIError("no password on stdin") }
            return line.hasSuffix("\r") ? String(line.dropLast()) : line
        }
        guard isatty(0) == 1 else { return nil }
        return Terminal.readSecret(prompt: "Password: ")
    }
}

/// `pingtxt token create`.
enum TokenCommand {
    static func create(_ args: Arguments) throws {
        try args.allow(["config", "email", "scope", "name"])
        let email = try args.required("email")
        guard let scope = Scope(rawValue: try args.required("scope")) else {
            throw CLIError("--scope must be read or write")
        }
        let db = try CLI.openDatabase(try CLI.loadConfig(args))
        defer { db.close() }
        guard let user = try UserService(database: db).find(email: email) else {
            throw CLIError("no user with the email \(email)")
        }
        let (_, token) = try describe {
            try TokenService(database: db).create(for: user, name: args.options["name"] ?? "cli", scope: scope, expiresAt: nil)
        }
        print(token)
    }
}

/// `pingtxt backup --out FILE`.
enum BackupCommand {
    static func run(_ args: Arguments) throws {
        try args.allow(["config", "out"])
        let out = try args.required("out")
        let db = try CLI.openDatabase(try CLI.loadConfig(args))
        defer { db.close() }
        do {
            try db.backup(to: out)
        } catch {
            throw CLIError("backup to \(out) failed: \(error)")
        }
        print("backup written to \(out)")
    }
}

/// `pingtxt check-config`.
enum CheckConfigCommand {
    static func run(_ args: Arguments) throws {
        try args.allow(["config"])
        let config = try CLI.loadConfig(args)
        // [agent] is only read by `pingtxt agent`; when filled in, check it the same way.
        if !config.agent.hub.isEmpty || !config.agent.token.isEmpty {
            do {
                try AgentSettings.validateToken(config.agent.token)
                _ = try AgentSettings.normalizeHubURL(config.agent.hub)
            } catch {
                throw CLIError("invalid [agent] settings: \(error.description)")
            }
        }
        print("configuration OK (listen \(config.server.listen), database \(config.database.location.redacted))")
    }
}

/// Domain refusals as one CLI line.
func describe<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as AuthError {
        switch e {
        case .unauthenticated(let m), .notFound(let m): throw CLIError(m)
        case .forbidden(_, let m), .conflict(_, let m): throw CLIError(m)
        case .invalid(_, let m): throw CLIError(m)
        }
    }
}
