#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One line per event on stderr, as text (`2026-11-29T10:00:00Z INFO msg k=v`)
/// or JSON (`{"ts":…,"level":…,"msg":…,"k":"v"}`). Written with one
/// `write(2)` per line so lines from several threads never interleave.
/// Secrets never reach here: callers log ids and prefixes, not tokens.
public final class Log: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warn, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var name: String { ["DEBUG", "INFO", "WARN", "ERROR"][rawValue] }
        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warn", "warning": self = .warn
            case "error": self = .error
            default: return nil
            }
        }
    }

    public enum Format: String, Sendable { case text, json }

    private struct Settings { var level: Level = .info; var format: Format = .text; var fd: Int32 = 2 }
    private let settings = Mutex(Settings())

    public static let shared = Log()

    public init() {}

    public func configure(level: Level? = nil, format: Format? = nil, fd: Int32? = nil) {
        settings.withLock {
            if let level { $0.level = level }
            if let format { $0.format = format }
            if let fd { $0.fd = fd }
        }
    }

    public func debug(_ msg: String, _ fields: KeyValuePairs<String, String> = [:]) { emit(.debug, msg, fields) }
    public func info(_ msg: String, _ fields: KeyValuePairs<String, String> = [:]) { emit(.info, msg, fields) }
    public func warn(_ msg: String, _ fields: KeyValuePairs<String, String> = [:]) { emit(.warn, msg, fields) }
    public func error(_ msg: String, _ fields: KeyValuePairs<String, String> = [:]) { emit(.error, msg, fields) }

    public func isEnabled(_ level: Level) -> Bool { settings.withLock { level >= $0.level } }

    public func emit(_ level: Level, _ msg: String, _ fields: KeyValuePairs<String, String>) {
        guard let line = format(level, msg, fields) else { return }
        write(line)
    }

    /// One formatted line (with its newline), or nil when the level is
    /// filtered out. Hot paths format into their own buffer and `write` many
    /// lines at once; `timestamp` lets them reuse one per second.
    public func format(_ level: Level, _ msg: String, _ fields: KeyValuePairs<String, String>,
                       timestamp: String? = nil) -> [UInt8]? {
        let (minimum, format) = settings.withLock { ($0.level, $0.format) }
        guard level >= minimum else { return nil }
        let ts = timestamp ?? Time.rfc3339(Time.now())
        var line: String
        switch format {
        case .text:
            // Messages and values can carry what a client sent (paths, user
            // agents, an SSO provider's `error`): a CR or LF must not start a
            // forged line, so anything but plain printable text is quoted
            // with its control characters escaped.
            // A message is prose with spaces: quoted only when it holds a control character.
            line = "\(ts) \(level.name) \(msg.unicodeScalars.contains(where: JSONText.isControl) ? JSONText.quote(msg) : msg)"
            for (k, v) in fields {
                let key = JSONText.needsQuoting(k) ? JSONText.quote(k) : k
                line += " \(key)=" + (JSONText.needsQuoting(v) || v.contains(where: { $0 == "=" }) ? JSONText.quote(v) : v)
            }
        case .json:
            line = "{\"ts\":\"\(ts)\",\"level\":\"\(level.name.lowercased())\",\"msg\":\(JSONText.quote(msg))"
            for (k, v) in fields { line += ",\(JSONText.quote(k)):\(JSONText.quote(v))" }
            line += "}"
        }
        line += "\n"
        return Array(line.utf8)
    }

    /// Writes formatted lines with as few write(2) calls as possible.
    public func write(_ bytes: [UInt8]) {
        let fd = settings.withLock { $0.fd }
        bytes.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 { if errno == EINTR { continue }; return }
                off += n
            }
        }
    }
}

/// JSON string quoting shared by the logger and hand-built JSON.
public enum JSONText {
    /// C0 and C1 controls, DEL, and the Unicode line and paragraph
    /// separators (which some log viewers and JavaScript treat as newlines):
    /// always written as `\uXXXX`, never raw.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029
    }

    /// Whether a log value must be quoted to stay one plain token: empty,
    /// or holding a space, a quote, a backslash or a control character.
    public static func needsQuoting(_ s: String) -> Bool {
        s.isEmpty || s.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "\\" || isControl($0) }
    }

    public static func quote(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if JSONText.isControl(scalar) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
