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
        var out: [UInt8] = []
        out.reserveCapacity(160 + response.headers.count * 40 + (headOnly || bodyless ? 0 : response.body.count))
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(response.status, to: &out)
        out.append(0x20)
        out.append(contentsOf: HTTPStatus.reason(response.status).utf8)
        out.append(contentsOf: [13, 10])
        for (name, value) in response.headers
        where !HTTPHeaders.equalNames(name, "Content-Length") && !HTTPHeaders.equalNames(name, "Connection")
            && !HTTPHeaders.equalNames(name, "Date") && !HTTPHeaders.equalNames(name, "Transfer-Encoding") {
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: [58, 32])
            out.append(contentsOf: value.utf8)
            out.append(contentsOf: [13, 10])
        }
        out.append(contentsOf: dateLine)
        if !bodyless {
            out.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(response.body.count, to: &out)
            out.append(contentsOf: [13, 10])
        }
        if close {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if http10KeepAlive {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: [13, 10])
        if !headOnly && !bodyless { out.append(contentsOf: response.body) }
        return out
    }

    private func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(48 + value))
            return
        }
        out.append(contentsOf: String(value).utf8)
    }
}
