import Core
#if canImport(Glibc)
import Glibc
#endif

/// A blocking raw-socket client for server tests: sends exact bytes and
/// reads answers off the wire, so tests see what a real peer sees.
final class TestClient {
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, timeoutMillis: Int = 5000) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 { close(fd); throw SystemError("connect", errno: errno) }
        var tv = timeval(tv_sec: timeoutMillis / 1000, tv_usec: (timeoutMillis % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, bytes.count - off) }
            if n <= 0 { return }
            off += n
        }
    }

    /// Reads more bytes; false on EOF, error or timeout.
    @discardableResult
    func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads until EOF or timeout and returns whether EOF came (not a timeout).
    func waitForClose() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { buffer.append(contentsOf: chunk[0..<n]); continue }
            if n == 0 { return true }
            return errno == ECONNRESET
        }
    }

    /// Reads one response; `headRequest` means no body follows the head.
    func readResponse(headRequest: Bool = false) -> Response? {
        while true {
            if let end = headerEnd() {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = head.components("\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
                let headers = lines.map { line -> (String, String) in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    return (String(parts[0]), parts.count > 1 ? String(parts[1].drop { $0 == " " }) : "")
                }
                let length = headRequest || status < 200 || status == 204 || status == 304 ? 0
                    : Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
                while buffer.count < end + 4 + length { if !fill() { return nil } }
                let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                buffer.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            if !fill() { return nil }
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

extension String {
    func components(_ separator: String) -> [String] {
        split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }
}
