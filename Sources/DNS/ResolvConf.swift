#if canImport(Glibc)
import Glibc
#endif

/// The parts of resolv.conf(5) the stub resolver uses: `nameserver` lines
/// (first three, as glibc's MAXNS) and `options timeout:N attempts:N`
/// (capped at 30 s and 5 like glibc; a later option wins). Everything else
/// (search, domain, ndots, rotate…) is ignored: checks query names as given.
public struct ResolvConf: Sendable, Equatable {
    public static let maxNameservers = 3
    public static let defaultPath = "/etc/resolv.conf"

    public var nameservers: [String] = []
    public var timeoutSeconds: Int?
    public var attempts: Int?

    public init(nameservers: [String] = [], timeoutSeconds: Int? = nil, attempts: Int? = nil) {
        self.nameservers = nameservers
        self.timeoutSeconds = timeoutSeconds
        self.attempts = attempts
    }

    public static func parse(_ text: String) -> ResolvConf {
        var conf = ResolvConf()
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            var line = rawLine[...]
            if let hash = line.firstIndex(where: { $0 == "#" || $0 == ";" }) { line = line[..<hash] }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let keyword = words.first else { continue }
            switch keyword {
            case "nameserver":
                guard words.count >= 2, conf.nameservers.count < maxNameservers else { continue }
                let server = String(words[1])
                // Only literal addresses are valid here (glibc ignores others).
                if DNSServerAddress(parsing: server) != nil { conf.nameservers.append(server) }
            case "options":
                for option in words.dropFirst() {
                    if option.hasPrefix("timeout:"), let v = Int(option.dropFirst(8)), v >= 0 {
                        conf.timeoutSeconds = min(max(v, 1), 30)
                    } else if option.hasPrefix("attempts:"), let v = Int(option.dropFirst(9)), v >= 0 {
                        conf.attempts = min(max(v, 1), 5)
                    }
                }
            default:
                continue
            }
        }
        return conf
    }

    /// Reads and parses the file; nil when it cannot be read.
    public static func load(path: String = defaultPath) -> ResolvConf? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return parse(String(decoding: bytes, as: UTF8.self))
    }
}
