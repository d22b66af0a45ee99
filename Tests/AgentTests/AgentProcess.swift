import Core
import TestSupport
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
        var env = environment
        env["SWIFT_BACKTRACE"] = "enable=no"  // a crash must not hang the test (NOTES.md)
        env["PATH"] = "/usr/bin:/bin"
        pid = try ChildProcess.spawn(try ChildProcess.pingtxtBinary(), ["agent"] + args, environment: env,
                                     stdout: log, stderr: log)
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            _ = wait(timeoutMillis: 5000)
        }
        unlink(logPath)
    }

    private static let counter = Atomic<Int>(0)

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
