import CPostgres
import Synchronization
import Store
#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server for the tests, started once per test process on
/// loopback: `initdb` into a fresh directory under /tmp, then `pg_ctl start`
/// on a free port with its socket in that directory. PostgreSQL refuses to
/// run as root, so under root (CI) both run as the `postgres` user that
/// Debian's package creates (`runuser`). Each test gets a schema of its own
/// (`database(…)`), which is much cheaper than a database each.
///
/// The server is stopped (SIGQUIT, immediate) and its directory removed at
/// process exit; a server left by a test process that crashed is found by
/// the next run (its `owner` pid is gone) and removed the same way.
public final class PostgresServer: Sendable {
    public let port: Int
    public let directory: String
    private let schemas = Atomic<Int>(0)
    /// What starting the server again needs (`restart`).
    private let start: [String]
    private let stopped = Atomic<Bool>(false)

    /// The one server of this process, started on first use.
    public static let shared: Result<PostgresServer, ChildProcessError> = {
        do throws(ChildProcessError) {
            return .success(try PostgresServer())
        } catch {
            return .failure(error)
        }
    }()

    /// Where the server binaries are: `PINGTXT_TEST_PG_BIN`, or the newest
    /// `/usr/lib/postgresql/<version>/bin` (Debian's layout).
    static func binaries() -> String? {
        if let dir = getenv("PINGTXT_TEST_PG_BIN").map({ String(cString: $0) }), !dir.isEmpty { return dir }
        guard let d = opendir("/usr/lib/postgresql") else { return nil }
        defer { closedir(d) }
        var versions: [Int] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if let v = Int(name), access("/usr/lib/postgresql/\(v)/bin/initdb", X_OK) == 0 { versions.append(v) }
        }
        return versions.max().map { "/usr/lib/postgresql/\($0)/bin" }
    }

    /// A server of its own (not the shared one), for a test that stops or
    /// restarts it.
    public static func makePrivate() throws(ChildProcessError) -> PostgresServer { try PostgresServer() }

    private init() throws(ChildProcessError) {
        guard let bin = Self.binaries() else {
            throw ChildProcessError("PostgreSQL server not found (no /usr/lib/postgresql/*/bin/initdb): "
                + "apt-get install postgresql (see .ci/run), or set PINGTXT_TEST_POSTGRES=off to run the tests on SQLite only")
        }
        Self.removeStale()
        var template = Array("/tmp/pingtxt-pg-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ChildProcessError("mkdtemp failed")
        }
        directory = String(cString: made)
        writeFile(directory + "/owner", "\(getpid())\n")
        var prefix: [String] = []
        if getuid() == 0 {
            guard let pw = getpwnam("postgres") else {
                throw ChildProcessError("running as root, but there is no postgres user to run PostgreSQL as (apt-get install postgresql)")
            }
            chown(directory, pw.pointee.pw_uid, pw.pointee.pw_gid)
            prefix = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        }
        let data = directory + "/data"
        let log = directory + "/server.log"
        // C locale: text sorts by bytes, as on SQLite. No fsync: a test
        // cluster need not survive a power cut.
        try Self.run(prefix + [bin + "/initdb", "-D", data, "-U", "pingtxt", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"],
                     log: directory + "/initdb.log")
        port = Int(try Ports.reserve())
        let options = "-c listen_addresses=127.0.0.1 -p \(port) -k \(directory) -c fsync=off -c full_page_writes=off "
            + "-c max_connections=600 -c shared_buffers=64MB"
        start = prefix + [bin + "/pg_ctl", "-D", data, "-l", log, "-w", "-t", "60", "-o", options, "start"]
        try Self.run(start, log: directory + "/pg_ctl.log")
        Self.stopAtExit(directory)
    }

    /// A URL for a new, empty schema of the server's `postgres` database:
    /// a database of its own for one test.
    public func database(_ label: String = "t") throws -> String {
        let n = schemas.wrappingAdd(1, ordering: .relaxed).newValue
        let schema = "\(label.filter { $0.isLetter || $0.isNumber || $0 == "_" }.prefix(30).lowercased())_\(getpid())_\(n)"
        try execute("CREATE SCHEMA \(schema)")
        return "postgres://pingtxt@127.0.0.1:\(port)/postgres?options=-csearch_path%3D\(schema)"
    }

    /// Kills the server (SIGQUIT: immediate, as a crash would) and starts it
    /// again on the same port: every connection to it breaks.
    public func restart() throws {
        Self.kill(directory)
        try Self.run(start, log: directory + "/pg_ctl-restart.log")
    }

    /// Runs SQL as the superuser on the `postgres` database.
    public func execute(_ sql: String) throws {
        try PostgresClientLibrary.load()
        let c = PQconnectdb("host=127.0.0.1 port=\(port) user=pingtxt dbname=postgres connect_timeout=10")
        defer { PQfinish(c) }
        guard PQstatus(c) == CONNECTION_OK else {
            throw ChildProcessError("connect to the test PostgreSQL: \(String(cString: PQerrorMessage(c)))")
        }
        let r = PQexec(c, sql)
        defer { PQclear(r) }
        let s = PQresultStatus(r)
        guard s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK else {
            throw ChildProcessError("\(sql): \(String(cString: PQresultErrorMessage(r)))")
        }
    }

    // MARK: processes

    private static func run(_ args: [String], log: String) throws(ChildProcessError) {
        let fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { close(fd) }
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(args[0], Array(args.dropFirst()),
                                         environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"],
                                         stdout: fd, stderr: fd)
        } catch {
            throw ChildProcessError("\(args[0]): \(error)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let text = readTextFile(log) ?? ""
            throw ChildProcessError("\(args.joined(separator: " ")) failed (status \(status)): \(text.suffix(2000))")
        }
    }

    // MARK: cleanup

    private static let atExitDirectories = Mutex<[String]>([])

    private static func stopAtExit(_ directory: String) {
        let first = atExitDirectories.withLock { dirs -> Bool in
            dirs.append(directory)
            return dirs.count == 1
        }
        guard first else { return }
        atexit {
            for dir in PostgresServer.atExitDirectories.withLock({ $0 }) { PostgresServer.stop(dir) }
        }
    }

    /// Immediate shutdown (SIGQUIT to the postmaster), then the directory goes.
    static func stop(_ directory: String) {
        kill(directory)
        removeTree(directory)
    }

    private static func kill(_ directory: String) {
        guard let text = readTextFile(directory + "/data/postmaster.pid"),
              let first = text.split(separator: "\n").first, let pid = pid_t(first) else { return }
        Glibc.kill(pid, SIGQUIT)
        for _ in 0..<500 where Glibc.kill(pid, 0) == 0 { usleep(10_000) }
    }

    /// Servers whose test process is gone.
    private static func removeStale() {
        guard let d = opendir("/tmp") else { return }
        var stale: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            guard name.hasPrefix("pingtxt-pg-") else { continue }
            let dir = "/tmp/" + name
            let owner = readTextFile(dir + "/owner").flatMap { pid_t(String($0.filter(\.isNumber))) }
            if let owner, Glibc.kill(owner, 0) == 0 { continue }
            stale.append(dir)
        }
        closedir(d)
        for dir in stale { stop(dir) }
    }

    private static func removeTree(_ path: String) {
        _ = runProgram(["rm", "-rf", path])
    }
}

/// A whole file as UTF-8, or nil when it cannot be read.
public func readTextFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &buf, buf.count)
        if n <= 0 { break }
        bytes.append(contentsOf: buf[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}
