import CLinux
import COpenSSL
import CShims
import Core
import HTTP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A blocking loopback listener; each accepted connection gets its own
/// thread running `handler(fd)`, which must close nothing (done here).
public final class RawServer: Sendable {
    public let port: UInt16
    private let fd: Int32
    private let acceptThread: Mutex<ThreadHandle?> = Mutex(nil)
    private let stopped = Atomic<Bool>(false)

    /// nil when the address family is not available (e.g. no IPv6).
    public init?(ipv6: Bool = false, handler: @escaping @Sendable (Int32) -> Void) {
        // Handlers (and OpenSSL's socket BIO) write with write(2): a peer that
        // went away must give EPIPE, not kill the test process.
        pt_ignore_sigpipe()
        let s = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, 4)
        let rc = withLoopbackSockaddr(ipv6: ipv6, port: 0) { bind(s, $0, $1) }
        guard rc == 0, listen(s, 1024) == 0 else { close(s); return nil }
        fd = s
        port = boundPort(s)
        let listener = s
        acceptThread.withLock {
            $0 = startThread(name: "raw-accept") { [self] in
                while !stopped.load(ordering: .relaxed) {
                    let c = accept(listener, nil, nil)
                    if c < 0 {
                        if errno == EINTR || errno == ECONNABORTED { continue }
                        return
                    }
                    if stopped.load(ordering: .relaxed) { close(c); return }
                    _ = startThread(name: "raw-conn") {
                        handler(c)
                        close(c)
                    }
                }
            }
        }
    }

    public func stop() {
        stopped.store(true, ordering: .relaxed)
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
        // Wake a blocked accept in case shutdown does not (connect once).
        let poke = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if poke >= 0 {
            _ = withLoopbackSockaddr(ipv6: false, port: port) { connect(poke, $0, $1) }
            close(poke)
        }
        acceptThread.withLock { $0?.join(); $0 = nil }
        close(fd)
    }
}

public func boundPort(_ fd: Int32) -> UInt16 {
    var storage = sockaddr_storage()
    var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
    }
    let family = Int32(storage.ss_family)
    return withUnsafePointer(to: &storage) { p in
        if family == AF_INET6 {
            return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
    }
}

/// Runs `body` with a loopback socket address (127.0.0.1 or ::1) and its length.
public func withLoopbackSockaddr<T>(ipv6: Bool, port: UInt16,
                                    _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
    if ipv6 {
        var a = sockaddr_in6()
        a.sin6_family = sa_family_t(AF_INET6)
        a.sin6_port = port.bigEndian
        _ = inet_pton(AF_INET6, "::1", &a.sin6_addr)
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
    }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_port = port.bigEndian
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &a) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}

/// Reads until the end of a request head (or EOF); returns it as text.
@discardableResult
public func readRequestHead(_ fd: Int32) -> String {
    var data: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fd, &buf, buf.count)
        if n <= 0 { break }
        data.append(contentsOf: buf[0..<n])
        if data.count >= 4, data.suffix(4) == [13, 10, 13, 10] { break }
        if let text = String(validating: data, as: UTF8.self), text.contains("\r\n\r\n") { break }
    }
    return String(decoding: data, as: UTF8.self)
}

public func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var off = 0
    while off < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + off, $0.count - off) }
        if n <= 0 { return }
        off += n
    }
}

/// A port with nothing listening (bound, then closed).
public func closedPort() -> Int {
    let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    _ = withLoopbackSockaddr(ipv6: false, port: 0) { bind(s, $0, $1) }
    let p = boundPort(s)
    close(s)
    return Int(p)
}

// MARK: TLS test server

/// A TLS server context from PEM files, shared by every stand-in TLS server
/// of this module (test servers, the TLS proxy, the fake SMTP server).
final class ServerCTX: @unchecked Sendable {
    // Configured once before any thread uses it; SSL_new is thread-safe.
    let ctx: OpaquePointer
    init?(cert: String, key: String) {
        guard let c = SSL_CTX_new(TLS_server_method()) else { return nil }
        ctx = c
        guard SSL_CTX_use_certificate_chain_file(c, cert) == 1,
              SSL_CTX_use_PrivateKey_file(c, key, SSL_FILETYPE_PEM) == 1 else { return nil }
    }
    deinit { SSL_CTX_free(ctx) }
}

/// A blocking TLS server (one thread per connection) answering any request
/// with `200 ok`.
public final class TLSTestServer: Sendable {
    private let raw: RawServer
    public var port: UInt16 { raw.port }

    public init?(cert: String, key: String) {
        guard let ctx = ServerCTX(cert: cert, key: key) else { return nil }
        guard let raw = RawServer(handler: { fd in
            guard let ssl = SSL_new(ctx.ctx) else { return }
            defer { SSL_free(ssl) }
            SSL_set_fd(ssl, fd)
            guard SSL_accept(ssl) == 1 else { return }
            var data: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 4096)
            while !(data.count >= 4 && data.suffix(4) == [13, 10, 13, 10]) {
                let n = SSL_read(ssl, &buf, Int32(buf.count))
                if n <= 0 { return }
                data.append(contentsOf: buf[0..<Int(n)])
            }
            let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)
            _ = SSL_write(ssl, reply, Int32(reply.count))
            SSL_shutdown(ssl)
        }) else { return nil }
        self.raw = raw
    }

    public func stop() { raw.stop() }
}

// MARK: certificates made at test time

/// Runs a program (PATH lookup), output discarded; returns its exit status.
@discardableResult
public func runProgram(_ args: [String], cwd: String? = nil) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = args.map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid = pid_t()
    let rc = argv.withUnsafeBufferPointer { posix_spawnp(&pid, args[0], &actions, nil, $0.baseAddress!, environ) }
    guard rc == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status >> 8) & 0xFF
}

public func writeFile(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    writeAll(fd, text)
    close(fd)
}

/// A throwaway CA and server certificates, made with the openssl CLI in a
/// fresh temporary directory. A directory it made is removed with it, or at
/// the process's exit for the fixtures kept in globals (never deinitialised):
/// it holds private keys.
public final class TLSFixture: Sendable {
    public let dir: String
    private let ownsDirectory: Bool
    public var caFile: String { dir + "/ca.crt" }
    public func cert(_ name: String) -> String { "\(dir)/\(name).crt" }
    public func key(_ name: String) -> String { "\(dir)/\(name).key" }

    /// `directory`: an existing directory to make the files in (e.g. a test's
    /// sandbox); nil = a fresh temporary one.
    public init?(directory: String? = nil) {
        if let directory {
            dir = directory
            ownsDirectory = false
        } else {
            var template = Array("/tmp/pingtxt-net-XXXXXX".utf8CString)
            guard let p = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
            dir = String(cString: p)
            ownsDirectory = true
            TLSFixtureDirectories.add(dir)
        }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        guard runProgram(["openssl", "req", "-x509"] + ec + ["-keyout", key("ca"), "-out", caFile, "-days", "30",
                                                          "-subj", "/CN=pingtxt test CA"]) == 0 else { return nil }
        // name, CN, SAN, days (nil = backdated and expired via `openssl ca`)
        let leaves: [(String, String, String, Int?)] = [
            ("valid", "localhost", "DNS:localhost,IP:127.0.0.1", 30),
            ("soon", "localhost", "DNS:localhost,IP:127.0.0.1", 5),
            ("expired", "localhost", "DNS:localhost,IP:127.0.0.1", nil),
            ("wronghost", "wrong.example", "DNS:wrong.example", 30),
        ]
        writeFile(dir + "/index.txt", "")
        writeFile(dir + "/serial", "1000\n")
        writeFile(dir + "/ca.cnf", """
            [ ca ]
            default_ca = testca
            [ testca ]
            dir = \(dir)
            database = \(dir)/index.txt
            new_certs_dir = \(dir)
            serial = \(dir)/serial
            certificate = \(caFile)
            private_key = \(key("ca"))
            default_md = sha256
            policy = anything
            unique_subject = no
            [ anything ]
            commonName = supplied

            """)
        for (name, cn, san, days) in leaves {
            let ext = "\(dir)/\(name).ext"
            writeFile(ext, "subjectAltName=\(san)\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n")
            let csr = "\(dir)/\(name).csr"
            guard runProgram(["openssl", "req", "-new"] + ec + ["-keyout", key(name), "-out", csr, "-subj", "/CN=\(cn)"]) == 0
            else { return nil }
            let rc: Int32
            if let days {
                rc = runProgram(["openssl", "x509", "-req", "-in", csr, "-CA", caFile, "-CAkey", key("ca"),
                                 "-CAcreateserial", "-out", cert(name), "-days", "\(days)", "-extfile", ext])
            } else {
                rc = runProgram(["openssl", "ca", "-batch", "-notext", "-config", "\(dir)/ca.cnf", "-in", csr,
                                 "-out", cert(name), "-startdate", "20200101000000Z", "-enddate", "20200201000000Z",
                                 "-extfile", ext])
            }
            guard rc == 0 else { return nil }
        }
    }

    public func remove() {
        _ = runProgram(["rm", "-rf", dir])
        TLSFixtureDirectories.forget(dir)
    }

    deinit {
        if ownsDirectory && TLSFixtureDirectories.forget(dir) { _ = runProgram(["rm", "-rf", dir]) }
    }
}

/// The directories TLS fixtures made and have not removed yet, removed by an
/// `atexit` handler installed with the first.
private enum TLSFixtureDirectories {
    private static let state = Mutex<(dirs: Set<String>, installed: Bool)>(([], false))

    static func add(_ dir: String) {
        let install = state.withLock { s -> Bool in
            s.dirs.insert(dir)
            defer { s.installed = true }
            return !s.installed
        }
        if install { atexit { TLSFixtureDirectories.removeAll() } }
    }

    /// Whether `dir` was still there to forget.
    @discardableResult
    static func forget(_ dir: String) -> Bool { state.withLock { $0.dirs.remove(dir) != nil } }

    private static func removeAll() {
        let dirs = state.withLock { s -> Set<String> in defer { s.dirs = [] }; return s.dirs }
        for dir in dirs.sorted() { _ = runProgram(["rm", "-rf", dir]) }
    }
}

extension ServerConfiguration {
    /// A stand-in peer's server: any free port on 127.0.0.1, one loop, a few
    /// workers, no access log.
    public static func loopbackPeer() -> ServerConfiguration {
        var config = ServerConfiguration()
        config.host = "127.0.0.1"
        config.port = 0
        config.eventLoops = 1
        config.workers = 4
        config.accessLog = false
        return config
    }
}
