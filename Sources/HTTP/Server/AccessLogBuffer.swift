import Core

/// One event loop's access-log lines, buffered and written once per pass of
/// the loop rather than once per request. The timestamp is formatted once a
/// second. A path whose segment is a secret (a ping key, an acknowledge
/// link's token) is logged as its route, never with the secret.
struct AccessLogBuffer {
    private var buffer: [UInt8] = []
    private var second: Int64 = 0
    private var timestamp = ""

    /// Routes whose parameter is a credential: `{key}` (`/ping/{key}`) and
    /// `{token}` (`/ack/{token}`).
    static func hidesSecret(_ route: String) -> Bool {
        route.contains("{key}") || route.contains("{token}")
    }

    mutating func append(method: String, path: String, route: String?, status: Int, bytes: Int, seconds: Double, client: String) {
        let now = Time.now()
        if now != second {
            second = now
            timestamp = Time.rfc3339(now)
        }
        let shown = route.map { Self.hidesSecret($0) } == true ? route! : path
        if let line = Log.shared.format(.info, "request", ["method": method, "path": shown, "status": "\(status)",
                                                          "bytes": "\(bytes)", "ms": Self.milliseconds(seconds),
                                                          "client": client], timestamp: timestamp) {
            buffer.append(contentsOf: line)
        }
    }

    /// Writes what is buffered, if anything.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        Log.shared.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Milliseconds with three decimals (`12.345`), without `String(format:)`.
    static func milliseconds(_ seconds: Double) -> String {
        let scaled = Int((seconds * 1_000_000).rounded())
        let frac = scaled % 1000
        return "\(scaled / 1000)." + String(repeating: "0", count: frac < 10 ? 2 : frac < 100 ? 1 : 0) + "\(frac)"
    }
}
