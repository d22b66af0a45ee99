/// Pass/fail of a `dns` check from its `expected` value and a response.
/// Pure: no I/O.
public struct DNSCheckOutcome: Sendable, Equatable {
    public var ok: Bool
    /// One line for the check's status: what matched, or what was wrong
    /// (`NXDOMAIN`, `no A records`, `expected 10.0.0.5, got 10.0.0.6, 10.0.0.7`).
    public var message: String

    public init(ok: Bool, message: String) {
        self.ok = ok
        self.message = message
    }
}

public enum DNSExpectation {
    /// CNAME links followed from the query name within the answer section.
    static let maxChain = 16

    /// Rules:
    /// - rcode other than NOERROR fails with its mnemonic ("NXDOMAIN").
    /// - The relevant records are the answers of the asked type owned by the
    ///   query name or by a name reached from it through CNAME records in
    ///   the answer section (so an A query answered with CNAME + A passes).
    ///   None → "no A records".
    /// - `expected` nil (or blank) passes with ≥1 relevant record.
    /// - Otherwise any relevant record must equal `expected`: A/AAAA as
    ///   parsed addresses (`2001:db8:0::1` = `2001:db8::1`); CNAME/NS names
    ///   ASCII case-insensitively, a trailing dot ignored; MX as
    ///   "pref exchange" (pref numerically) or just the exchange name; TXT
    ///   exactly against the concatenated strings.
    public static func evaluate(expected: String?, response: DNSResponse) -> DNSCheckOutcome {
        guard response.rcode == .noError else {
            return DNSCheckOutcome(ok: false, message: response.rcode.description)
        }
        let records = relevantRecords(response)
        guard !records.isEmpty else {
            return DNSCheckOutcome(ok: false, message: "no \(response.type.name) records")
        }
        let values = records.map(\.value)
        guard let expected, !expected.allSatisfy({ $0 == " " || $0 == "\t" }) else {
            return DNSCheckOutcome(ok: true, message: values.joined(separator: ", "))
        }
        if records.contains(where: { matches(expected: expected, record: $0) }) {
            return DNSCheckOutcome(ok: true, message: "\(expected) found")
        }
        return DNSCheckOutcome(ok: false, message: "expected \(expected), got \(values.joined(separator: ", "))")
    }

    /// Answers of the asked type on the CNAME chain from the query name.
    /// For a CNAME query, only the CNAME records of the query name itself.
    public static func relevantRecords(_ response: DNSResponse) -> [DNSRecord] {
        var owners: Set<String> = [response.name]
        if response.type != .cname {
            var current = response.name
            for _ in 0..<maxChain {
                guard let link = response.answers.first(where: { $0.type == .cname && $0.name == current }),
                      case .cname(let target) = link.data, !owners.contains(target)
                else { break }
                owners.insert(target)
                current = target
            }
        }
        return response.answers.filter { $0.type == response.type && owners.contains($0.name) }
    }

    static func matches(expected raw: String, record: DNSRecord) -> Bool {
        let expected = trim(raw)
        switch record.data {
        case .a(let bytes):
            return IPAddressText.parseIPv4(expected) == bytes
        case .aaaa(let bytes):
            return IPAddressText.parseIPv6(expected) == bytes
        case .cname(let name), .ns(let name):
            return DNSName.equal(expected, name)
        case .mx(let preference, let exchange):
            let parts = expected.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if parts.count == 1 { return DNSName.equal(String(parts[0]), exchange) }
            guard parts.count == 2, let p = UInt16(parts[0]) else { return false }
            return p == preference && DNSName.equal(String(parts[1]), exchange)
        case .txt:
            return raw == record.value
        case .soa, .raw:
            return raw == record.value
        }
    }

    private static func trim(_ s: String) -> String {
        var t = s[...]
        while let f = t.first, f == " " || f == "\t" { t = t.dropFirst() }
        while let l = t.last, l == " " || l == "\t" { t = t.dropLast() }
        return String(t)
    }
}
