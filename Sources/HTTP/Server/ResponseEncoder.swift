import Core

/// Turns a response into bytes: status line, the handler's headers, then
/// `Date`, `Content-Length` and `Connection` as the server decides them.
/// The body is always sent whole with `Content-Length`, so a handler's
/// `Transfer-Encoding` is dropped too: both would contradict the framing.
struct ResponseEncoder {
    private var cachedSecond: Int64 = -1
    private var cachedDate = ""

    mutating func encode(_ response: HTTPResponse, headOnly: Bool, close: Bool, http10KeepAlive: Bool) -> [UInt8] {
        let now = Time.now()
        if now != cachedSecond {
            cachedSecond = now
            cachedDate = Time.httpDate(now)
        }
        var text = "HTTP/1.1 \(response.status) \(HTTPStatus.reason(response.status))\r\n"
        for (name, value) in response.headers
        where !HTTPHeaders.equalNames(name, "Content-Length") && !HTTPHeaders.equalNames(name, "Connection")
            && !HTTPHeaders.equalNames(name, "Date") && !HTTPHeaders.equalNames(name, "Transfer-Encoding") {
            text += "\(name): \(value)\r\n"
        }
        text += "Date: \(cachedDate)\r\n"
        // 1xx, 204 and 304 carry no body and no Content-Length (RFC 9110 §8.6).
        let bodyless = response.status < 200 || response.status == 204 || response.status == 304
        if !bodyless { text += "Content-Length: \(response.body.count)\r\n" }
        if close {
            text += "Connection: close\r\n"
        } else if http10KeepAlive {
            text += "Connection: keep-alive\r\n"
        }
        text += "\r\n"
        var bytes = Array(text.utf8)
        if !headOnly && !bodyless { bytes.append(contentsOf: response.body) }
        return bytes
    }
}
