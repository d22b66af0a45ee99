import Core
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The real `pingtxt` binary (next to the test bundle) run as `pingtxt agent`
/// in a child process: stdout and stderr go to a log file, signals are at
/// their defaults, no descriptors are inherited.
final class AgentProcess {
    let pid: pid_t
    let logPath: String
    private(set) var status: Int32?

    init(_ args: [String], environment: [String: String] = [:]) throws {
        logPath = "/tmp/pingtxt-agent-test-\(getpid())-\(Self.counter.add(1, ordering: .relaxed).newValue).log"
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw AgentProcessError("cannot open \(logPath)") }
        defer { close(log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, log, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attr, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGPIPE, SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let path = try Self.binary()
        var env = environment
        env["SWIFT_BACKTRACE"] = "enable=no"  // a crash must not hang the test (NOTES.md)
        env["PATH"] = "/usr/bin:/bin"
        let argv: [UnsafeMutablePointer<CChar>?] = ([path, "agent"] + args).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child = pid_t()
        let rc = posix_spawn(&child, path, &actions, &attr, argv, envp)
        guard rc == 0 else { throw AgentProcessError("posix_spawn failed: \(rc)") }
        pid = child
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            _ = wait(timeoutMillis: 5000)
        }
        unlink(logPath)
    }

    private static let counter = Atomic<Int>(0)

    /// `…/debug/pingtxtPackageTests.xctest` → `…/debug/pingtxt`.
    static func binary() throws -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        guard n > 0 else { throw AgentProcessError("readlink /proc/self/exe failed") }
        let exe = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let candidate = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/pingtxt"
        guard access(candidate, X_OK) == 0 else { throw AgentProcessError("no pingtxt binary at \(candidate)") }
        return candidate
    }

    /// The exit code, or nil if it did not exit normally in time (or was signalled).
    func wait(timeoutMillis: Int) -> Int32? {
        if let status { return status }
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while true {
            var raw: Int32 = 0
            let r = waitpid(pid, &raw, WNOHANG)
            if r == pid {
                status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : -(raw & 0x7f)
                return status
            }
            if Time.monotonicNanos() >= deadline { return nil }
            usleep(10_000)
        }
    }

    func signal(_ sig: Int32) { kill(pid, sig) }

    var output: String {
        let fd = open(logPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// Runs to the end (bounded) and returns (exit code, output lines).
    static func run(_ args: [String], environment: [String: String] = [:]) throws -> (Int32?, [String]) {
        let p = try AgentProcess(args, environment: environment)
        let code = p.wait(timeoutMillis: 20_000)
        return (code, p.lines)
    }
}

struct AgentProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
