import Core
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A running `pingtxt serve` in its own sandbox: spawned with posix_spawn,
/// stderr and stdout appended to `hub.log` in the sandbox, ready once
/// `/healthz` answers 200. Killed (SIGKILL) on deinit if still running.
final class HubProcess {
    static let adminEmail = "admin@example.com"
    static let adminPassword = "correct horse battery"

    let sandbox: Sandbox
    let arguments: [String]
    private(set) var pid: pid_t = 0
    var port: UInt16 { sandbox.port }
    var logPath: String { sandbox.path("hub.log") }

    /// `admin`: set PINGTXT_ADMIN_EMAIL/PASSWORD (first-start admin).
    /// `arguments`: extra `serve` arguments (e.g. `--log-format json`).
    init(admin: Bool = true, environment: [String: String] = [:], arguments: [String] = [],
         database: String? = nil, engine: TestEngine = .sqlite, databaseURL: String? = nil, start: Bool = true) throws {
        var env = environment
        if admin {
            env["PINGTXT_ADMIN_EMAIL"] = env["PINGTXT_ADMIN_EMAIL"] ?? Self.adminEmail
            env["PINGTXT_ADMIN_PASSWORD"] = env["PINGTXT_ADMIN_PASSWORD"] ?? Self.adminPassword
        }
        sandbox = try Sandbox(environment: env, database: database, engine: engine, databaseURL: databaseURL)
        self.arguments = arguments
        if start { try self.start() }
    }

    deinit {
        if pid > 0 {
            kill(pid, SIGKILL)
            _ = Subprocess.wait(pid, timeoutMillis: 5_000)
        }
    }

    var isRunning: Bool { pid > 0 }

    /// Spawns the hub and waits (bounded) for `/healthz` = 200. The bound is
    /// generous: the test machine is shared and can be heavily loaded.
    func start(timeoutMillis: Int = 30_000) throws {
        precondition(pid == 0, "already running")
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw HarnessError("cannot open \(logPath)") }
        defer { close(log) }
        pid = try ChildProcess.spawn(try ChildProcess.pingtxtBinary(), ["serve"] + arguments, environment: sandbox.environment,
                                   stdout: log, stderr: log)
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while Time.monotonicNanos() < deadline {
            if let status = Subprocess.wait(pid, timeoutMillis: 0) {
                pid = 0
                throw HarnessError("hub exited during start-up (\(status)); log:\n\(self.log)")
            }
            if let client = try? WireClient(port: port, timeoutSeconds: 2),
               let r = try? client.request("GET", "/healthz"), r.status == 200 {
                return
            }
            usleep(25_000)
        }
        throw HarnessError("hub did not answer /healthz within \(timeoutMillis) ms; log:\n\(self.log)")
    }

    /// Sends `signal` and reaps the process within `timeoutMillis`; nil if it
    /// did not exit (it is then killed so the test can go on).
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeoutMillis: Int = 10_000) -> ExitStatus? {
        guard pid > 0 else { return nil }
        kill(pid, signal)
        let status = Subprocess.wait(pid, timeoutMillis: timeoutMillis)
        if status == nil {
            kill(pid, SIGKILL)
            _ = Subprocess.wait(pid, timeoutMillis: 5_000)
        }
        pid = 0
        return status
    }

    /// `kill -9`: no chance to flush or clean up.
    func kill9() {
        _ = stop(signal: SIGKILL, timeoutMillis: 5_000)
    }

    /// Stops (SIGTERM, or SIGKILL when `hard`) and starts again on the same
    /// database, port and environment.
    func restart(hard: Bool = false) throws {
        if hard { kill9() } else { _ = stop() }
        try start()
    }

    // MARK: log

    var log: String { Sandbox.readFile(logPath) }
    var logLines: [String] { log.split(separator: "\n").map(String.init) }

    /// Waits (bounded) until some log line satisfies `predicate`.
    func waitForLog(timeoutMillis: Int = 10_000, _ predicate: (String) -> Bool) -> Bool {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        repeat {
            if logLines.contains(where: predicate) { return true }
            usleep(20_000)
        } while Time.monotonicNanos() < deadline
        return false
    }

    // MARK: CLI and HTTP

    func cli(_ args: [String], stdin: String? = nil) throws -> Subprocess.Output {
        try sandbox.cli(args, stdin: stdin)
    }

    func token(email: String = HubProcess.adminEmail, scope: String = "write", name: String = "test") throws -> String {
        try sandbox.token(email: email, scope: scope, name: name)
    }

    func connect() throws -> WireClient { try WireClient(port: port) }

    /// One request on a fresh connection.
    func call(_ method: String, _ target: String, token: String? = nil, json: JSON? = nil,
              headers: [(String, String)] = []) throws -> WireResponse {
        var h = headers
        if let token { h.append(("Authorization", "Bearer \(token)")) }
        var body: [UInt8]?
        if let json {
            h.append(("Content-Type", "application/json"))
            body = json.serialized()
        }
        return try connect().request(method, target, headers: h, body: body)
    }
}
