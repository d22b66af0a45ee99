import Core
import TestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A failure of the harness itself (not of the hub under test).
struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// How a child process ended.
enum ExitStatus: Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    /// Decodes a `waitpid` status (WIFEXITED / WTERMSIG are C macros).
    init(raw: Int32) {
        if raw & 0x7f == 0 {
            self = .exited((raw >> 8) & 0xff)
        } else {
            self = .signaled(raw & 0x7f)
        }
    }

    var description: String {
        switch self {
        case .exited(let code): return "exit \(code)"
        case .signaled(let sig): return "signal \(sig)"
        }
    }
}

/// Waiting for children started by `ChildProcess.spawn`, and running one to
/// completion with its output captured.
enum Subprocess {
    /// Reaps `pid`, polling up to `timeoutMillis`; nil if it is still running.
    static func wait(_ pid: pid_t, timeoutMillis: Int) -> ExitStatus? {
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while true {
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { return ExitStatus(raw: status) }
            if r < 0 && errno != EINTR { return nil }
            if Time.monotonicNanos() >= deadline { return nil }
            usleep(10_000)
        }
    }

    /// A pipe whose ends are not inherited by other children.
    static func pipe() throws -> (read: Int32, write: Int32) {
        // pipe2(O_CLOEXEC) is GNU-only; under the spawn lock no child can be
        // started between pipe() and the fcntl calls.
        let fds = ChildProcess.spawnLock.withLock { _ -> [Int32]? in
            var fds: [Int32] = [0, 0]
            guard Glibc.pipe(&fds) == 0 else { return nil }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            return fds
        }
        guard let fds else { throw HarnessError("pipe failed: errno \(errno)") }
        return (fds[0], fds[1])
    }

    struct Output {
        var status: ExitStatus
        var stdout: String
        var stderr: String
        /// stderr's non-empty lines.
        var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// Runs to completion with `input` on stdin, capturing stdout and stderr
    /// (read together with poll, so neither pipe can fill up and block).
    static func run(_ path: String, _ args: [String], environment: [String: String], input: String?,
                    timeoutMillis: Int = 60_000) throws -> Output {
        let inPipe = try pipe(), outPipe = try pipe(), errPipe = try pipe()
        if let input {
            let bytes = Array(input.utf8)   // small: fits in the pipe buffer
            _ = bytes.withUnsafeBytes { write(inPipe.write, $0.baseAddress, $0.count) }
        }
        close(inPipe.write)
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(path, args, environment: environment, stdin: inPipe.read, stdout: outPipe.write, stderr: errPipe.write)
        } catch {
            for fd in [inPipe.read, outPipe.read, outPipe.write, errPipe.read, errPipe.write] { close(fd) }
            throw error
        }
        close(inPipe.read)
        close(outPipe.write)
        close(errPipe.write)
        var out: [UInt8] = [], err: [UInt8] = []
        var open = [outPipe.read, errPipe.read]
        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !open.isEmpty && Time.monotonicNanos() < deadline {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let n = poll(&fds, nfds_t(fds.count), 200)
            if n <= 0 { continue }
            for p in fds where p.revents != 0 {
                let got = chunk.withUnsafeMutableBytes { read(p.fd, $0.baseAddress, $0.count) }
                if got > 0 {
                    if p.fd == outPipe.read { out += chunk[0..<got] } else { err += chunk[0..<got] }
                } else if got == 0 || errno != EINTR {
                    close(p.fd)
                    open.removeAll { $0 == p.fd }
                }
            }
        }
        for fd in open { close(fd) }
        guard let status = wait(pid, timeoutMillis: open.isEmpty ? 30_000 : 0) else {
            kill(pid, SIGKILL)
            _ = wait(pid, timeoutMillis: 5_000)
            throw HarnessError("\(args.joined(separator: " ")) did not finish in time")
        }
        return Output(status: status, stdout: String(decoding: out, as: UTF8.self),
                      stderr: String(decoding: err, as: UTF8.self))
    }
}
