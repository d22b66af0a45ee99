import Core

/// Turns a response into bytes: status line, the handler's headers, then
/// `Date`, `Content-Length` and `Connection` as the server decides them.
/// The body is always sent whole with `Content-Length`, so a handler's
/// `Transfer-Encoding` is dropped too: both would contradict the framing.
/// Bytes are appended straight into one buffer (no intermediate strings),
/// and the `Date` line is rebuilt once a second: this runs for every answer.
struct ResponseEncoder {
    private var cachedSecond: Int64 = -1
    private var dateLine: [UInt8] = []

    mutating func encode(_ response: HTTPResponse, headOnly: Bool, close: Bool, http10KeepAlive: Bool) -> [UInt8] {
        let now = Time.now()
        if now != cachedSecond {
            cachedSecond = now
            dateLine = Array("Date: \(Time.httpDate(now))\r\n".utf8)
        }
        // 1xx, 204 and 304 carry no body and no Content-Length (RFC 9110 §8.6).
        let bodyless = response.status < 200 || response.status == 204 || response.status == 304
        let withBody = !headOnly && !bodyless
        let reason = HTTPStatus.reason(response.status)
        // An upper bound of what is written; `ByteWriter` traps past it.
        var capacity = 9 + 20 + 1 + reason.utf8.count + 2 + dateLine.count + 16 + 20 + 2 + 24 + 2
        for (name, value) in response.headers { capacity += name.utf8.count + value.utf8.count + 4 }
        if withBody { capacity += response.body.count }
        return ByteArrays.filled(capacity: capacity) { buffer in
            var out = ByteWriter(buffer)
            out.put("HTTP/1.1 ")
            out.putDecimal(response.status)
            out.put(" ")
            out.put(reason)
            out.put("\r\n")
            for (name, value) in response.headers
            where !HTTPHeaders.equalNames(name, "Content-Length") && !HTTPHeaders.equalNames(name, "Connection")
                && !HTTPHeaders.equalNames(name, "Date") && !HTTPHeaders.equalNames(name, "Transfer-Encoding") {
                out.put(name)
                out.put(": ")
                out.put(value)
                out.put("\r\n")
            }
            out.put(dateLine)
            if !bodyless {
                out.put("Content-Length: ")
                out.putDecimal(response.body.count)
                out.put("\r\n")
            }
            if close {
                out.put("Connection: close\r\n")
            } else if http10KeepAlive {
                out.put("Connection: keep-alive\r\n")
            }
            out.put("\r\n")
            if withBody { out.put(response.body) }
            return out.count
        }
    }
}

/// Copies into a buffer sized beforehand, checking every write against its
/// end. Appending each piece to an array went through the generic
/// `append(contentsOf:)`, about 125 instructions a piece and twelve pieces
/// an answer (callgrind, `/api/me`); this is a bounds check and a copy.
private struct ByteWriter {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= buffer.count - count, "response larger than its computed size")
        if let base = bytes.baseAddress, !bytes.isEmpty {
            (buffer.baseAddress! + count).initialize(from: base, count: bytes.count)
        }
        count += bytes.count
    }

    mutating func put(_ text: StaticString) {
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func put(_ text: String) {
        var text = text
        text.withUTF8 { put($0) }
    }

    mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    /// A non-negative number's digits (status codes and lengths); a
    /// negative one, which neither can be, as `String` would write it.
    mutating func putDecimal(_ value: Int) {
        guard value >= 0 else { put(String(value)); return }
        var digits = 1
        var rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        precondition(digits <= buffer.count - count, "response larger than its computed size")
        var v = value
        for i in stride(from: count + digits - 1, through: count, by: -1) {
            buffer[i] = UInt8(48 + v % 10)
            v /= 10
        }
        count += digits
    }
}
