/// Record types the hub asks for, plus any other code kept as `.other`.
/// Codes from RFC 1035 §3.2.2 and RFC 3596 (AAAA).
public enum DNSRecordType: Sendable, Hashable, CustomStringConvertible {
    case a, ns, cname, soa, mx, txt, aaaa
    /// EDNS0 pseudo-record (RFC 6891), seen only in the additional section.
    case opt
    case other(UInt16)

    public init(code: UInt16) {
        switch code {
        case 1: self = .a
        case 2: self = .ns
        case 5: self = .cname
        case 6: self = .soa
        case 15: self = .mx
        case 16: self = .txt
        case 28: self = .aaaa
        case 41: self = .opt
        default: self = .other(code)
        }
    }

    public var code: UInt16 {
        switch self {
        case .a: 1
        case .ns: 2
        case .cname: 5
        case .soa: 6
        case .mx: 15
        case .txt: 16
        case .aaaa: 28
        case .opt: 41
        case .other(let code): code
        }
    }

    /// The types a `dns` monitor may ask for (SPEC §5 `record_type`).
    public static let checkable: [DNSRecordType] = [.a, .aaaa, .cname, .mx, .txt, .ns]

    /// Parses an API `record_type` ("A", "AAAA", "CNAME", "MX", "TXT", "NS";
    /// ASCII case-insensitive). Other types are not offered to checks: nil.
    public init?(apiName: String) {
        switch apiName.uppercased() {
        case "A": self = .a
        case "AAAA": self = .aaaa
        case "CNAME": self = .cname
        case "MX": self = .mx
        case "TXT": self = .txt
        case "NS": self = .ns
        default: return nil
        }
    }

    /// "A", "AAAA", …; unknown codes as RFC 3597 "TYPE65".
    public var name: String {
        switch self {
        case .a: "A"
        case .ns: "NS"
        case .cname: "CNAME"
        case .soa: "SOA"
        case .mx: "MX"
        case .txt: "TXT"
        case .aaaa: "AAAA"
        case .opt: "OPT"
        case .other(let code): "TYPE\(code)"
        }
    }

    public var description: String { name }
}

/// Response code: the 4 header bits, extended by EDNS0 (RFC 6891) when an
/// OPT record is present.
public enum DNSRCode: Sendable, Hashable, CustomStringConvertible {
    case noError, formErr, servFail, nxDomain, notImp, refused
    case other(Int)

    public init(code: Int) {
        switch code {
        case 0: self = .noError
        case 1: self = .formErr
        case 2: self = .servFail
        case 3: self = .nxDomain
        case 4: self = .notImp
        case 5: self = .refused
        default: self = .other(code)
        }
    }

    public var code: Int {
        switch self {
        case .noError: 0
        case .formErr: 1
        case .servFail: 2
        case .nxDomain: 3
        case .notImp: 4
        case .refused: 5
        case .other(let code): code
        }
    }

    /// Mnemonic as dig prints it: "NOERROR", "NXDOMAIN", …, "RCODE9".
    public var description: String {
        switch self {
        case .noError: "NOERROR"
        case .formErr: "FORMERR"
        case .servFail: "SERVFAIL"
        case .nxDomain: "NXDOMAIN"
        case .notImp: "NOTIMP"
        case .refused: "REFUSED"
        case .other(let code): "RCODE\(code)"
        }
    }
}

public enum DNSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No usable answer from any server within the time allowed.
    case timeout
    /// Socket-level failure (refused, unreachable, bad resolver address…).
    case network(String)
    /// A response (or a message given to the codec) that breaks RFC 1035.
    case malformedResponse(String)
    /// A name that cannot be put on the wire (empty label, label > 63
    /// bytes, name > 255 bytes, control characters).
    case invalidName(String)

    public var description: String {
        switch self {
        case .timeout: "timeout"
        case .network(let m): "network error: \(m)"
        case .malformedResponse(let m): "malformed response: \(m)"
        case .invalidName(let m): "invalid name: \(m)"
        }
    }
}

// `.other(1)` and `.a` are the same type on the wire: compare by code.
extension DNSRecordType {
    public static func == (a: DNSRecordType, b: DNSRecordType) -> Bool { a.code == b.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension DNSRCode {
    public static func == (a: DNSRCode, b: DNSRCode) -> Bool { a.code == b.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
