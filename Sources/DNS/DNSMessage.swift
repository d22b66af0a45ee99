/// DNS messages (RFC 1035 §4, RFC 3596, EDNS0 from RFC 6891) as values:
/// pure encode and parse, no I/O.

public struct DNSHeader: Sendable, Equatable {
    public var id: UInt16
    /// QR: false in queries, true in responses.
    public var isResponse: Bool
    public var opcode: UInt8
    /// AA
    public var authoritative: Bool
    /// TC
    public var truncated: Bool
    /// RD
    public var recursionDesired: Bool
    /// RA
    public var recursionAvailable: Bool
    /// The header's 4 RCODE bits only; `DNSMessage.rcode` adds EDNS bits.
    public var rcode: UInt8

    public init(id: UInt16, isResponse: Bool = false, opcode: UInt8 = 0, authoritative: Bool = false,
                truncated: Bool = false, recursionDesired: Bool = true, recursionAvailable: Bool = false,
                rcode: UInt8 = 0) {
        self.id = id
        self.isResponse = isResponse
        self.opcode = opcode
        self.authoritative = authoritative
        self.truncated = truncated
        self.recursionDesired = recursionDesired
        self.recursionAvailable = recursionAvailable
        self.rcode = rcode
    }

    var flags: UInt16 {
        var f: UInt16 = 0
        if isResponse { f |= 0x8000 }
        f |= UInt16(opcode & 0x0F) << 11
        if authoritative { f |= 0x0400 }
        if truncated { f |= 0x0200 }
        if recursionDesired { f |= 0x0100 }
        if recursionAvailable { f |= 0x0080 }
        f |= UInt16(rcode & 0x0F)
        return f
    }

    init(id: UInt16, flags f: UInt16) {
        self.init(id: id, isResponse: f & 0x8000 != 0, opcode: UInt8((f >> 11) & 0x0F),
                  authoritative: f & 0x0400 != 0, truncated: f & 0x0200 != 0,
                  recursionDesired: f & 0x0100 != 0, recursionAvailable: f & 0x0080 != 0,
                  rcode: UInt8(f & 0x0F))
    }
}

public struct DNSQuestion: Sendable, Equatable {
    /// Canonical text (lowercase, no trailing dot).
    public var name: String
    public var type: DNSRecordType
    /// 1 = IN.
    public var qclass: UInt16

    public init(name: String, type: DNSRecordType, qclass: UInt16 = 1) {
        self.name = name
        self.type = type
        self.qclass = qclass
    }
}

public struct DNSSOA: Sendable, Equatable {
    public var mname: String
    public var rname: String
    public var serial: UInt32
    public var refresh: UInt32
    public var retry: UInt32
    public var expire: UInt32
    public var minimum: UInt32

    public init(mname: String, rname: String, serial: UInt32, refresh: UInt32, retry: UInt32,
                expire: UInt32, minimum: UInt32) {
        self.mname = mname
        self.rname = rname
        self.serial = serial
        self.refresh = refresh
        self.retry = retry
        self.expire = expire
        self.minimum = minimum
    }
}

/// Decoded RDATA. Names inside are canonical text.
public enum DNSRecordData: Sendable, Equatable {
    /// 4 bytes.
    case a([UInt8])
    /// 16 bytes.
    case aaaa([UInt8])
    case cname(String)
    case ns(String)
    case mx(preference: UInt16, exchange: String)
    /// The character-strings in order, each decoded as UTF-8 (invalid
    /// sequences become U+FFFD).
    case txt([String])
    case soa(DNSSOA)
    /// Any other type (and OPT), bytes as received.
    case raw([UInt8])
}

public struct DNSRecord: Sendable, Equatable {
    /// Owner name, canonical text.
    public var name: String
    public var type: DNSRecordType
    /// 1 = IN.
    public var rclass: UInt16
    public var ttl: UInt32
    public var data: DNSRecordData

    public init(name: String, type: DNSRecordType, rclass: UInt16 = 1, ttl: UInt32, data: DNSRecordData) {
        self.name = name
        self.type = type
        self.rclass = rclass
        self.ttl = ttl
        self.data = data
    }

    /// Human form, as checks compare and show it:
    /// A "1.2.3.4"; AAAA RFC 5952 "2001:db8::1"; CNAME/NS the target name;
    /// MX "10 mail.example.com"; TXT the strings concatenated with no
    /// separator (as SPF/DKIM readers do, RFC 7208 §3.3); SOA
    /// "mname rname serial refresh retry expire minimum"; anything else
    /// RFC 3597 generic "\# 4 0a000001".
    public var value: String {
        switch data {
        case .a(let b): b.count == 4 ? IPAddressText.formatIPv4(b) : Self.generic(b)
        case .aaaa(let b): b.count == 16 ? IPAddressText.formatIPv6(b) : Self.generic(b)
        case .cname(let n), .ns(let n): n
        case .mx(let pref, let exchange): "\(pref) \(exchange)"
        case .txt(let strings): strings.joined()
        case .soa(let s): "\(s.mname) \(s.rname) \(s.serial) \(s.refresh) \(s.retry) \(s.expire) \(s.minimum)"
        case .raw(let b): Self.generic(b)
        }
    }

    static func generic(_ b: [UInt8]) -> String {
        let hex = b.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return b.isEmpty ? "\\# 0" : "\\# \(b.count) \(hex)"
    }
}

/// EDNS0 parameters carried by the OPT pseudo-record (RFC 6891 §6.1.3).
public struct DNSEDNS: Sendable, Equatable {
    public var udpPayloadSize: UInt16
    /// Upper 8 bits of the 12-bit extended RCODE.
    public var extendedRCode: UInt8
    public var version: UInt8
    public var dnssecOK: Bool
    /// Option bytes (code/length/value triples), unparsed.
    public var options: [UInt8]

    public init(udpPayloadSize: UInt16 = 1232, extendedRCode: UInt8 = 0, version: UInt8 = 0,
                dnssecOK: Bool = false, options: [UInt8] = []) {
        self.udpPayloadSize = udpPayloadSize
        self.extendedRCode = extendedRCode
        self.version = version
        self.dnssecOK = dnssecOK
        self.options = options
    }
}

public struct DNSMessage: Sendable, Equatable {
    public var header: DNSHeader
    public var questions: [DNSQuestion]
    public var answers: [DNSRecord]
    public var authority: [DNSRecord]
    /// Additional records without the OPT pseudo-record (that is `edns`).
    public var additional: [DNSRecord]
    public var edns: DNSEDNS?

    /// The UDP payload size our queries advertise (DNS Flag Day 2020).
    public static let defaultUDPPayloadSize: UInt16 = 1232

    public init(header: DNSHeader, questions: [DNSQuestion] = [], answers: [DNSRecord] = [],
                authority: [DNSRecord] = [], additional: [DNSRecord] = [], edns: DNSEDNS? = nil) {
        self.header = header
        self.questions = questions
        self.answers = answers
        self.authority = authority
        self.additional = additional
        self.edns = edns
    }

    /// Full response code: header bits plus the EDNS extension.
    public var rcode: DNSRCode {
        DNSRCode(code: Int(edns?.extendedRCode ?? 0) << 4 | Int(header.rcode))
    }

    /// A standard query: RD=1, one IN question, EDNS0 OPT advertising
    /// `ednsUDPSize` unless that is nil. The name is validated here.
    public static func query(id: UInt16, name: String, type: DNSRecordType,
                             ednsUDPSize: UInt16? = defaultUDPPayloadSize) throws(DNSError) -> DNSMessage {
        let canonical = try DNSName.normalize(name)
        return DNSMessage(header: DNSHeader(id: id, recursionDesired: true),
                          questions: [DNSQuestion(name: canonical, type: type)],
                          edns: ednsUDPSize.map { DNSEDNS(udpPayloadSize: $0) })
    }

    /// A random query id (from the system CSPRNG).
    public static func randomID() -> UInt16 {
        var rng = SystemRandomNumberGenerator()
        return UInt16.random(in: 0...UInt16.max, using: &rng)
    }

    // MARK: - Encoding

    /// Wire bytes, names compressed. TXT strings longer than 255 bytes are
    /// split into character-strings of at most 255 bytes, each ending on a
    /// UTF-8 scalar boundary.
    public func encode() throws(DNSError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        var names = NameWriter()
        out.put16(header.id)
        var h = header
        h.rcode &= 0x0F
        out.put16(h.flags)
        for count in [questions.count, answers.count, authority.count, additional.count + (edns == nil ? 0 : 1)] {
            guard count <= 0xFFFF else { throw .malformedResponse("too many records") }
            out.put16(UInt16(count))
        }
        for q in questions {
            names.write(try DNSName.labels(q.name), into: &out)
            out.put16(q.type.code)
            out.put16(q.qclass)
        }
        for r in answers + authority + additional {
            try Self.encodeRecord(r, into: &out, names: &names)
        }
        if let edns {
            out.append(0) // root owner
            out.put16(DNSRecordType.opt.code)
            out.put16(edns.udpPayloadSize)
            out.append(edns.extendedRCode)
            out.append(edns.version)
            out.put16(edns.dnssecOK ? 0x8000 : 0)
            guard edns.options.count <= 0xFFFF else { throw .malformedResponse("EDNS options too long") }
            out.put16(UInt16(edns.options.count))
            out.append(contentsOf: edns.options)
        }
        guard out.count <= 0xFFFF else { throw .malformedResponse("message longer than 65535 bytes") }
        return out
    }

    private static func encodeRecord(_ r: DNSRecord, into out: inout [UInt8], names: inout NameWriter) throws(DNSError) {
        names.write(try DNSName.labels(r.name), into: &out)
        out.put16(r.type.code)
        out.put16(r.rclass)
        out.put32(r.ttl)
        let lengthAt = out.count
        out.put16(0)
        switch r.data {
        case .a(let b), .aaaa(let b), .raw(let b):
            out.append(contentsOf: b)
        case .cname(let n), .ns(let n):
            names.write(try DNSName.labels(n), into: &out)
        case .mx(let pref, let exchange):
            out.put16(pref)
            names.write(try DNSName.labels(exchange), into: &out)
        case .txt(let strings):
            for s in strings {
                let bytes = Array(s.utf8)
                if bytes.isEmpty { out.append(0); continue }
                var i = 0
                while i < bytes.count {
                    var n = min(255, bytes.count - i)
                    // Never cut inside a UTF-8 sequence: each piece must be
                    // text on its own (found by the `dns` fuzz target).
                    while i + n < bytes.count, bytes[i + n] & 0xC0 == 0x80 { n -= 1 }
                    out.append(UInt8(n))
                    out.append(contentsOf: bytes[i..<(i + n)])
                    i += n
                }
            }
        case .soa(let s):
            names.write(try DNSName.labels(s.mname), into: &out)
            names.write(try DNSName.labels(s.rname), into: &out)
            for v in [s.serial, s.refresh, s.retry, s.expire, s.minimum] { out.put32(v) }
        }
        let length = out.count - lengthAt - 2
        guard length <= 0xFFFF else { throw .malformedResponse("RDATA longer than 65535 bytes") }
        out[lengthAt] = UInt8(length >> 8)
        out[lengthAt + 1] = UInt8(length & 0xFF)
    }

    // MARK: - Parsing

    /// Parses a whole message. Bytes after the last counted record are
    /// ignored; everything counted must be present and well-formed.
    public static func parse(_ msg: [UInt8]) throws(DNSError) -> DNSMessage {
        var r = Reader(msg: msg)
        let id = try r.u16("header")
        let header = DNSHeader(id: id, flags: try r.u16("header"))
        let qd = Int(try r.u16("header")), an = Int(try r.u16("header"))
        let ns = Int(try r.u16("header")), ar = Int(try r.u16("header"))
        var message = DNSMessage(header: header)
        for _ in 0..<qd {
            let name = try r.name()
            message.questions.append(DNSQuestion(name: name, type: DNSRecordType(code: try r.u16("question")),
                                                 qclass: try r.u16("question")))
        }
        for _ in 0..<an { message.answers.append(try r.record()) }
        for _ in 0..<ns { message.authority.append(try r.record()) }
        for _ in 0..<ar {
            let rec = try r.record()
            if rec.type == .opt {
                guard message.edns == nil else { throw .malformedResponse("more than one OPT record") }
                guard rec.name.isEmpty else { throw .malformedResponse("OPT record with a non-root owner") }
                guard case .raw(let options) = rec.data else { continue }
                message.edns = DNSEDNS(udpPayloadSize: rec.rclass, extendedRCode: UInt8(rec.ttl >> 24),
                                       version: UInt8((rec.ttl >> 16) & 0xFF), dnssecOK: rec.ttl & 0x8000 != 0,
                                       options: options)
            } else {
                message.additional.append(rec)
            }
        }
        return message
    }

    /// Reads only the id and, when present, the first question: enough to
    /// decide whether a datagram answers our query before trusting it.
    static func peekIDAndQuestion(_ msg: [UInt8]) -> (id: UInt16, question: DNSQuestion?)? {
        guard msg.count >= 12 else { return nil }
        var r = Reader(msg: msg)
        guard let id = try? r.u16("header") else { return nil }
        r.pos = 4
        guard let qd = try? r.u16("header") else { return nil }
        r.pos = 12
        guard qd >= 1, let name = try? r.name(), let t = try? r.u16("q"), let c = try? r.u16("q") else {
            return (id, nil)
        }
        return (id, DNSQuestion(name: name, type: DNSRecordType(code: t), qclass: c))
    }
}

struct Reader {
    let msg: [UInt8]
    var pos = 0

    mutating func u8(_ what: String) throws(DNSError) -> UInt8 {
        guard pos < msg.count else { throw .malformedResponse("truncated \(what) at offset \(pos)") }
        defer { pos += 1 }
        return msg[pos]
    }

    mutating func u16(_ what: String) throws(DNSError) -> UInt16 {
        guard pos + 2 <= msg.count else { throw .malformedResponse("truncated \(what) at offset \(pos)") }
        defer { pos += 2 }
        return UInt16(msg[pos]) << 8 | UInt16(msg[pos + 1])
    }

    mutating func u32(_ what: String) throws(DNSError) -> UInt32 {
        guard pos + 4 <= msg.count else { throw .malformedResponse("truncated \(what) at offset \(pos)") }
        defer { pos += 4 }
        return UInt32(msg[pos]) << 24 | UInt32(msg[pos + 1]) << 16 | UInt32(msg[pos + 2]) << 8 | UInt32(msg[pos + 3])
    }

    mutating func name() throws(DNSError) -> String {
        let (labels, next) = try DNSName.read(msg, at: pos)
        pos = next
        return DNSName.text(labels)
    }

    mutating func record() throws(DNSError) -> DNSRecord {
        let owner = try name()
        let type = DNSRecordType(code: try u16("record type"))
        let rclass = try u16("record class")
        let ttl = try u32("record TTL")
        let rdlength = Int(try u16("record length"))
        let start = pos
        let end = start + rdlength
        guard end <= msg.count else {
            throw .malformedResponse("\(type) RDATA of \(rdlength) bytes runs past end of message")
        }
        let data: DNSRecordData
        switch type {
        case .a:
            guard rdlength == 4 else { throw .malformedResponse("A RDATA is \(rdlength) bytes, not 4") }
            data = .a(Array(msg[start..<end]))
            pos = end
        case .aaaa:
            guard rdlength == 16 else { throw .malformedResponse("AAAA RDATA is \(rdlength) bytes, not 16") }
            data = .aaaa(Array(msg[start..<end]))
            pos = end
        case .cname:
            data = .cname(try name())
        case .ns:
            data = .ns(try name())
        case .mx:
            let pref = try u16("MX preference")
            data = .mx(preference: pref, exchange: try name())
        case .txt:
            var strings: [String] = []
            while pos < end {
                let len = Int(msg[pos])
                guard pos + 1 + len <= end else { throw .malformedResponse("TXT character-string runs past RDATA") }
                strings.append(String(decoding: msg[(pos + 1)..<(pos + 1 + len)], as: UTF8.self))
                pos += 1 + len
            }
            data = .txt(strings)
        case .soa:
            let mname = try name()
            let rname = try name()
            data = .soa(DNSSOA(mname: mname, rname: rname, serial: try u32("SOA"), refresh: try u32("SOA"),
                               retry: try u32("SOA"), expire: try u32("SOA"), minimum: try u32("SOA")))
        default:
            data = .raw(Array(msg[start..<end]))
            pos = end
        }
        guard pos == end else {
            throw .malformedResponse("\(type) RDATA length \(rdlength) does not match its contents (\(pos - start) bytes)")
        }
        return DNSRecord(name: owner, type: type, rclass: rclass, ttl: ttl, data: data)
    }
}

extension [UInt8] {
    mutating func put16(_ v: UInt16) {
        append(UInt8(v >> 8))
        append(UInt8(v & 0xFF))
    }

    mutating func put32(_ v: UInt32) {
        append(UInt8(v >> 24))
        append(UInt8((v >> 16) & 0xFF))
        append(UInt8((v >> 8) & 0xFF))
        append(UInt8(v & 0xFF))
    }
}
