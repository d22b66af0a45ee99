import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Free TCP ports, each handed out once per test run (tests run in parallel).
public enum Ports {
    private static let given = Mutex<Set<UInt16>>([])

    public static func reserve() throws(ChildProcessError) -> UInt16 {
        for _ in 0..<50 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw ChildProcessError("socket failed: errno \(errno)") }
            defer { close(fd) }
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = 0
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
                }
            }
            guard ok else { continue }
            let port = UInt16(bigEndian: addr.sin_port)
            if given.withLock({ $0.insert(port).inserted }) { return port }
        }
        throw ChildProcessError("no free port found")
    }
}
