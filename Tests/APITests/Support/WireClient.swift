import Core
#if canImport(Glibc)
import Glibc
#endif

/// An answer read off the wire.
struct WireResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
    var text: String { String(decoding: body, as: UTF8.self) }
    func json() throws -> JSON { try JSON.parse(body) }
    /// `error.code` of a JSON error body, nil when the body is not that shape.
    var errorCode: String? { (try? json())?["error"]?["code"]?.stringValue }
}

/// A small blocking HTTP/1.1 client over a raw socket: sends exactly the
/// bytes a test gives and parses answers by `Content-Length`, so tests see
/// what a real peer sees (keep-alive, pipelining, interim 100, closes).
final class WireClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, timeoutSeconds: Int = 30) throws {
        // Connect first, then own the descriptor: a throwing class init that
        // had set `fd` would still run deinit, and a double close could hit
        // another test's freshly opened descriptor.
        fd = try Self.connectedSocket(port: port, timeoutSeconds: timeoutSeconds)
    }

    private static func connectedSocket(port: UInt16, timeoutSeconds: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket failed: errno \(errno)") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 {
            let e = errno
            close(fd)
            throw HarnessError("connect to 127.0.0.1:\(port) failed: errno \(e)")
        }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    deinit { close(fd) }

    /// Writes all bytes; false if the peer closed (no SIGPIPE).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, bytes.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            off += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// The bytes of a request: Host and (with a body) Content-Length added
    /// unless the caller gave them.
    static func encode(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        let names = Set(headers.map { $0.0.lowercased() })
        if !names.contains("host") { text += "Host: 127.0.0.1\r\n" }
        for (k, v) in headers { text += "\(k): \(v)\r\n" }
        if let body, !names.contains("content-length") { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + (body ?? [])
    }

    /// Sends one request and reads its answer.
    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil) throws -> WireResponse {
        send(Self.encode(method, target, headers: headers, body: body))
        guard let response = readResponse(head: method == "HEAD") else {
            throw HarnessError("no answer to \(method) \(target)")
        }
        return response
    }

    /// Reads one answer (an interim 1xx counts as one). `head`: the request
    /// was HEAD, so no body follows whatever Content-Length says.
    func readResponse(head: Bool = false) -> WireResponse? {
        while true {
            if let end = headerEnd() {
                let lines = String(decoding: buffer[0..<end], as: UTF8.self)
                    .split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let statusLine = lines[0].split(separator: " ")
                guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else { return nil }
                let headers = lines.dropFirst().map { line -> (name: String, value: String) in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    let value = parts.count > 1 ? String(parts[1].drop { $0 == " " }) : ""
                    return (String(parts.first ?? ""), value)
                }
                let response = WireResponse(status: status, headers: headers, body: [])
                buffer.removeFirst(end + 4)
                if head || status < 200 || status == 204 || status == 304 { return response }
                if let lengthText = response.header("Content-Length") {
                    guard let length = Int(lengthText) else { return nil }
                    while buffer.count < length { if !fill() { return nil } }
                    var r = response
                    r.body = Array(buffer[0..<length])
                    buffer.removeFirst(length)
                    return r
                }
                while fill() {}   // no length: the body runs to EOF
                var r = response
                r.body = buffer
                buffer = []
                return r
            }
            if !fill() { return nil }
        }
    }

    /// Everything until the peer closes (or the read timeout passes).
    func readToEnd() -> [UInt8] {
        while fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Whether the peer closed the connection (EOF or reset) before the read timeout.
    func waitForClose() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { buffer += chunk[0..<n]; continue }
            if n == 0 { return true }
            if errno == EINTR { continue }
            return errno == ECONNRESET
        }
    }

    /// Bytes received but not yet consumed.
    var pending: [UInt8] { buffer }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { buffer += chunk[0..<n]; return true }
            if n < 0 && errno == EINTR { continue }
            return false
        }
    }

    private func headerEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4)
        where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }
}
