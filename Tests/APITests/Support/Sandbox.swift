import Core
import TestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One test's private world: a temp directory, a database path inside it, a
/// port nobody else in this test run was given, and the clean environment
/// every `pingtxt` child gets. Removed (with its files) on deinit.
final class Sandbox {
    let dir: String
    let port: UInt16
    var environment: [String: String]
    let engine: TestEngine

    /// `database`: a different database file (e.g. a backup) instead of `dir/pingtxt.db`.
    /// `engine`: `.postgres` puts the hub on a fresh schema of the test
    /// PostgreSQL server (`PINGTXT_DATABASE_URL`) instead of a SQLite file.
    /// `databaseURL`: join a database another sandbox's hub already uses
    /// (several hubs on one PostgreSQL database).
    init(environment extra: [String: String] = [:], database: String? = nil, engine: TestEngine = .sqlite,
         databaseURL: String? = nil) throws {
        var template = Array("/tmp/pingtxt-apitest-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HarnessError("mkdtemp failed: errno \(errno)")
        }
        dir = String(cString: made)
        port = try Ports.reserve()
        environment = [
            "PATH": getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin",
            "SWIFT_BACKTRACE": "enable=no",
            "PINGTXT_SERVER_LISTEN": "127.0.0.1:\(port)",
            "PINGTXT_SERVER_PUBLIC_URL": "http://127.0.0.1:\(port)",
            "PINGTXT_SERVER_WORKERS": "4",
        ]
        self.engine = engine
        if let databaseURL {
            environment["PINGTXT_DATABASE_URL"] = databaseURL
        } else if engine == .postgres {
            environment["PINGTXT_DATABASE_URL"] = try engine.url(in: dir)
        } else {
            environment["PINGTXT_DATABASE_PATH"] = database ?? "\(dir)/pingtxt.db"
        }
        for (k, v) in extra { environment[k] = v }
    }

    deinit { Self.removeTree(dir) }

    func path(_ name: String) -> String { "\(dir)/\(name)" }

    /// The hub's database, for a test to open beside it.
    var databaseURL: DatabaseURL {
        get throws {
            if let url = environment["PINGTXT_DATABASE_URL"] { return try DatabaseURL(url) }
            return DatabaseURL(sqlitePath: environment["PINGTXT_DATABASE_PATH"] ?? path("pingtxt.db"))
        }
    }

    /// Runs `pingtxt <args>` with this sandbox's environment.
    func cli(_ args: [String], stdin: String? = nil, environment extra: [String: String] = [:]) throws -> Subprocess.Output {
        var env = environment
        for (k, v) in extra { env[k] = v }
        return try Subprocess.run(try ChildProcess.pingtxtBinary(), args, environment: env, input: stdin)
    }

    /// `pingtxt token create` → the printed token.
    func token(email: String, scope: String = "write", name: String = "test") throws -> String {
        let out = try cli(["token", "create", "--email", email, "--scope", scope, "--name", name])
        guard out.status == .exited(0) else { throw HarnessError("token create failed (\(out.status)): \(out.stderr)") }
        return out.stdout.split(separator: "\n").last.map(String.init) ?? ""
    }

    func writeFile(_ name: String, _ text: String) throws -> String {
        let p = path(name)
        guard let f = fopen(p, "w") else { throw HarnessError("cannot write \(p)") }
        fputs(text, f)
        fclose(f)
        return p
    }

    static func readFile(_ path: String) -> String { readTextFile(path) ?? "" }

    static func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The directory is flat (database, WAL, log, backups): unlink, then rmdir.
    static func removeTree(_ path: String) {
        if let d = opendir(path) {
            while let entry = readdir(d) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
                }
                if name == "." || name == ".." { continue }
                let child = "\(path)/\(name)"
                if unlink(child) != 0 { removeTree(child) }
            }
            closedir(d)
        }
        rmdir(path)
    }
}

