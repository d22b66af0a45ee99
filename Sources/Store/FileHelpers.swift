#if canImport(Glibc)
import Glibc
#endif
import Core
import CSQLite

/// Small filesystem helpers (Glibc only) for creating and backing up the
/// database file.
enum FileHelpers {
    /// `mkdir -p` of the path's directory with mode 0700: the database holds
    /// password hashes and TOTP secrets, so only the hub's user may list it.
    static func makeParentDirectory(of path: String) throws(StoreError) {
        guard path != ":memory:", let slash = path.lastIndex(of: "/") else { return }
        let dir = String(path[..<slash])
        guard !dir.isEmpty else { return }
        var current = dir.hasPrefix("/") ? "" : "."
        for part in dir.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + part
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                let code = errno
                throw StoreError(code: SQLITE_CANTOPEN,
                                 message: "mkdir \(current): \(SystemError("mkdir", errno: code))")
            }
        }
    }

    static func fsyncFile(_ path: String) throws(SystemError) {
        let fd = try sys("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        _ = try sys("fsync \(path)") { fsync(fd) }
    }

    /// Makes a rename durable.
    static func fsyncParentDirectory(of path: String) throws(SystemError) {
        let dir: String
        if let slash = path.lastIndex(of: "/") {
            dir = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            dir = "."
        }
        let fd = try sys("open \(dir)") { open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        _ = try sys("fsync \(dir)") { fsync(fd) }
    }
}
