/// The parsers under fuzzing, by the name `FUZZ_TARGET` takes (and the
/// folder of seeds under `fuzz/corpus/`).
enum FuzzTarget: String, CaseIterable {
    case httpRequest = "http-request"
    case httpResponse = "http-response"
    case dns
    case smtp
    case toml
    case json
    case cron
    case tzif

    func run(_ input: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .httpRequest: HTTPRequestTarget.run(input)
        case .httpResponse: HTTPResponseTarget.run(input)
        case .dns: DNSTarget.run(input)
        case .smtp: SMTPTarget.run(input)
        case .toml: TOMLTarget.run(input)
        case .json: JSONTarget.run(input)
        case .cron: CronTarget.run(input)
        case .tzif: TZifTarget.run(input)
        }
    }
}

/// Splits an input as every harness does: whole, cut in two at a point
/// chosen by its first byte, and byte by byte when short (1 KiB), so a
/// parser fed from a socket must give the same result however the bytes
/// arrive.
enum Cuts {
    static let byteByByteLimit = 1024

    static func variants(_ input: UnsafeBufferPointer<UInt8>) -> [[ArraySlice<UInt8>]] {
        let bytes = Array(input)
        var out: [[ArraySlice<UInt8>]] = [[bytes[...]]]
        let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % bytes.count
        out.append([bytes[..<cut], bytes[cut...]])
        if bytes.count <= byteByByteLimit { out.append(bytes.indices.map { bytes[$0...$0] }) }
        return out
    }
}
