/// Domain names on the wire (RFC 1035 §3.1, §4.1.4) and as text.
///
/// Text form: lowercase ASCII, labels joined with ".", no trailing dot; the
/// root is "". Label bytes that would be ambiguous or unprintable are escaped
/// as in zone files: "\." and "\\" for the two special characters, "\DDD"
/// (decimal) for bytes outside 0x21…0x7E. Parsing accepts those escapes back.
public enum DNSName {
    public static let maxLabelLength = 63
    /// Wire length including the length bytes and the final zero byte.
    public static let maxWireLength = 255
    /// Compression pointers followed while decoding one name.
    static let maxPointerJumps = 64

    /// Text → labels (raw bytes, case kept). A single trailing dot is
    /// allowed; "" and "." are the root (no labels).
    public static func labels(_ text: String) throws(DNSError) -> [[UInt8]] {
        let b = Array(text.utf8)
        if b.isEmpty || b == [46] { return [] }
        var labels: [[UInt8]] = []
        var current: [UInt8] = []
        var i = 0
        var endedWithDot = false
        while i < b.count {
            let c = b[i]
            endedWithDot = false
            if c == 46 { // "."
                guard !current.isEmpty else { throw .invalidName("empty label in \"\(text)\"") }
                labels.append(current)
                current = []
                endedWithDot = true
                i += 1
                continue
            }
            if c == 92 { // backslash escape
                guard i + 1 < b.count else { throw .invalidName("dangling escape in \"\(text)\"") }
                let d = b[i + 1]
                if d >= 48 && d <= 57 {
                    guard i + 3 < b.count, (48...57).contains(b[i + 2]), (48...57).contains(b[i + 3])
                    else { throw .invalidName("bad \\DDD escape in \"\(text)\"") }
                    let v = Int(d - 48) * 100 + Int(b[i + 2] - 48) * 10 + Int(b[i + 3] - 48)
                    guard v <= 255 else { throw .invalidName("bad \\DDD escape in \"\(text)\"") }
                    current.append(UInt8(v))
                    i += 4
                } else {
                    current.append(d)
                    i += 2
                }
            } else {
                guard c > 0x20 && c != 0x7F else { throw .invalidName("control or space character in \"\(text)\"") }
                current.append(c)
                i += 1
            }
            guard current.count <= maxLabelLength else {
                throw .invalidName("label longer than \(maxLabelLength) bytes in \"\(text)\"")
            }
        }
        if !endedWithDot {
            guard !current.isEmpty else { throw .invalidName("empty label in \"\(text)\"") }
            labels.append(current)
        }
        let wire = labels.reduce(1) { $0 + 1 + $1.count }
        guard wire <= maxWireLength else { throw .invalidName("name longer than \(maxWireLength) bytes: \"\(text)\"") }
        return labels
    }

    /// Labels → canonical text (lowercased, escaped, no trailing dot).
    public static func text(_ labels: [[UInt8]]) -> String {
        var out: [UInt8] = []
        for (n, label) in labels.enumerated() {
            if n > 0 { out.append(46) }
            for var c in label {
                if c >= 65 && c <= 90 { c += 32 }
                if c == 46 || c == 92 {
                    out.append(92); out.append(c)
                } else if c <= 0x20 || c >= 0x7F {
                    out.append(92)
                    out.append(48 + c / 100); out.append(48 + (c / 10) % 10); out.append(48 + c % 10)
                } else {
                    out.append(c)
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Canonical text of any accepted input ("WWW.Example.COM." → "www.example.com").
    public static func normalize(_ text: String) throws(DNSError) -> String {
        self.text(try labels(text))
    }

    /// Case-insensitive name equality on canonical forms; invalid names
    /// compare by lowercased text without a trailing dot.
    public static func equal(_ a: String, _ b: String) -> Bool {
        func canon(_ s: String) -> String {
            if let n = try? normalize(s) { return n }
            var t = s.lowercased()
            if t.hasSuffix(".") { t.removeLast() }
            return t
        }
        return canon(a) == canon(b)
    }

    /// Reads a possibly compressed name starting at `offset`. Returns the
    /// labels and the offset just past the name's bytes at the original
    /// position (after the first pointer, if any).
    ///
    /// Errors: out-of-bounds reads or pointers, pointers that do not point
    /// strictly backwards (which rules out loops), reserved label types
    /// (0x40/0x80, i.e. a length byte above 63), names over 255 bytes.
    static func read(_ msg: [UInt8], at offset: Int) throws(DNSError) -> (labels: [[UInt8]], next: Int) {
        var labels: [[UInt8]] = []
        var pos = offset
        var next: Int? = nil
        var wire = 1
        var jumps = 0
        // Lowest offset reached so far: every pointer must go below it.
        var floor = offset
        while true {
            guard pos < msg.count else { throw .malformedResponse("name runs past end of message at offset \(pos)") }
            let len = Int(msg[pos])
            switch len & 0xC0 {
            case 0xC0:
                guard pos + 1 < msg.count else { throw .malformedResponse("compression pointer truncated at offset \(pos)") }
                let target = (len & 0x3F) << 8 | Int(msg[pos + 1])
                guard target < msg.count else {
                    throw .malformedResponse("compression pointer at offset \(pos) points past end (\(target))")
                }
                guard target < floor else {
                    throw .malformedResponse("compression pointer loop at offset \(pos) (target \(target))")
                }
                jumps += 1
                guard jumps <= maxPointerJumps else { throw .malformedResponse("too many compression pointers") }
                if next == nil { next = pos + 2 }
                floor = target
                pos = target
            case 0x00:
                if len == 0 {
                    return (labels, next ?? pos + 1)
                }
                guard pos + 1 + len <= msg.count else { throw .malformedResponse("label runs past end of message at offset \(pos)") }
                wire += 1 + len
                guard wire <= maxWireLength else { throw .malformedResponse("name longer than \(maxWireLength) bytes") }
                labels.append(Array(msg[(pos + 1)..<(pos + 1 + len)]))
                pos += 1 + len
            default:
                throw .malformedResponse("label length byte 0x\(String(len, radix: 16)) at offset \(pos) (label > 63 or reserved type)")
            }
        }
    }
}

/// Appends names with compression (RFC 1035 §4.1.4): each suffix written at
/// an offset below 0x4000 is remembered and later pointed to.
struct NameWriter {
    private var offsets: [String: Int] = [:]

    mutating func write(_ labels: [[UInt8]], into out: inout [UInt8], compress: Bool = true) {
        for i in 0..<labels.count {
            let suffix = labels[i...]
            let key = DNSName.text(Array(suffix))
            if compress, let at = offsets[key] {
                out.append(0xC0 | UInt8(at >> 8))
                out.append(UInt8(at & 0xFF))
                return
            }
            if compress && out.count < 0x4000 { offsets[key] = out.count }
            out.append(UInt8(labels[i].count))
            out.append(contentsOf: labels[i])
        }
        out.append(0)
    }
}
