import Core
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Child processes for tests (the real `pingtxt` binary as hub, agent or
/// CLI): posix_spawn with explicit standard streams, a clean environment,
/// default signal handling and no inherited descriptors (tests run in
/// parallel, so a child must never keep another test's pipe open).
public enum ChildProcess {
    /// Held while spawning, and by callers making pipes, so no child is
    /// started between creating a descriptor and marking it close-on-exec.
    public static let spawnLock = Mutex(())

    /// The `pingtxt` binary built next to this test bundle.
    public static func pingtxtBinary() throws -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        guard n > 0 else { throw ChildProcessError("readlink /proc/self/exe failed") }
        let exe = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // …/debug/pingtxtPackageTests.xctest → …/debug/pingtxt
        let dir = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let candidate = dir + "/pingtxt"
        guard access(candidate, X_OK) == 0 else {
            throw ChildProcessError("no pingtxt binary at \(candidate) (test runner is \(exe)); run `swift build` first")
        }
        return candidate
    }

    /// Starts `path`; `stdin`/`stdout`/`stderr` are descriptors to install
    /// (-1 = /dev/null).
    public static func spawn(_ path: String, _ args: [String], environment: [String: String],
                             stdin: Int32 = -1, stdout: Int32 = -1, stderr: Int32 = -1) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, target) in [(stdin, Int32(0)), (stdout, 1), (stderr, 2)] {
            if fd >= 0 {
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // Close every other descriptor in the child (glibc ≥ 2.34; not exported
        // to Swift without _GNU_SOURCE, so looked up at run time).
        if let closeFrom = closeFromAction { _ = closeFrom(&actions, 3) }

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

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }
            .map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid = pid_t()
        let rc = spawnLock.withLock { _ in posix_spawn(&pid, path, &actions, &attr, argv, envp) }
        guard rc == 0 else { throw ChildProcessError("posix_spawn \(path) failed: \(String(cString: strerror(rc)))") }
        return pid
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFromAction: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }
}

/// A failure to start a child process (not of the program under test).
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
