// Scalar values of the TOML subset: decimal integers and strings.

extension TOMLParserState {
    /// Decimal integer with optional sign and single `_` between digits.
    mutating func integer() throws(TOMLError) -> Int {
        let start = i
        while let b = peek, b < 0x80,
              TOMLValue.isBareKeyScalar(Unicode.Scalar(b)) || b == UInt8(ascii: "+") || b == UInt8(ascii: ".") || b == UInt8(ascii: ":") {
            i += 1
        }
        var token = Array(bytes[start..<i])
        let text = String(decoding: token, as: UTF8.self)
        var negative = false
        if let s = token.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") {
            negative = s == UInt8(ascii: "-")
            token.removeFirst()
        }
        let body = String(decoding: token, as: UTF8.self)
        if body == "inf" || body == "nan" || token.contains(UInt8(ascii: ".")) || (!body.hasPrefix("0x") && token.contains(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })) {
            throw error("floats are not supported: \(text)", at: start)
        }
        if body.hasPrefix("0x") || body.hasPrefix("0o") || body.hasPrefix("0b") {
            throw error("only decimal integers are supported: \(text)", at: start)
        }
        if token.contains(UInt8(ascii: ":")) || token.dropFirst().contains(UInt8(ascii: "-")) {
            throw error("dates and times are not supported: \(text)", at: start)
        }
        guard !token.isEmpty else { throw error("invalid integer \(text)", at: start) }
        if token.count > 1 && token[0] == UInt8(ascii: "0") {
            throw error("leading zeros are not allowed in integers: \(text)", at: start)
        }
        var value = 0
        var previousDigit = false
        for b in token {
            if b == UInt8(ascii: "_") {
                guard previousDigit else { throw error("invalid integer \(text): '_' must be between digits", at: start) }
                previousDigit = false
                continue
            }
            guard b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") else { throw error("invalid integer \(text)", at: start) }
            let digit = Int(b - UInt8(ascii: "0"))
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (r, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
            if o1 || o2 { throw error("integer out of range: \(text)", at: start) }
            value = r
            previousDigit = true
        }
        guard previousDigit else { throw error("invalid integer \(text): '_' must be between digits", at: start) }
        return value
    }

    mutating func basicString() throws(TOMLError) -> String {
        let start = i
        i += 1
        var out: [UInt8] = []
        while true {
            guard let c = peek else { throw error("unterminated string", at: start) }
            switch c {
            case UInt8(ascii: "\""):
                i += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                let escape = i
                i += 1
                guard let e = peek else { throw error("unterminated string", at: start) }
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"), UInt8(ascii: "U"):
                    let count = e == UInt8(ascii: "u") ? 4 : 8
                    var code: UInt32 = 0
                    for _ in 0..<count {
                        guard let h = peek, let d = hexDigit(h) else {
                            throw error("\\\(Character(Unicode.Scalar(e))) escape needs \(count) hex digits", at: escape)
                        }
                        code = code << 4 | d
                        i += 1
                    }
                    guard let scalar = Unicode.Scalar(code) else {
                        let text = String(decoding: bytes[escape..<i], as: UTF8.self)
                        throw error("\(text) is not a valid Unicode scalar value", at: escape)
                    }
                    UTF8.encode(scalar) { out.append($0) }
                default:
                    i -= 1
                    throw error("invalid escape sequence '\\\(found.dropFirst().dropLast())' in string", at: escape)
                }
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("unterminated string: strings cannot span lines (use \\n)")
            default:
                if (c < 0x20 && c != 0x09) || c == 0x7F { throw error("control characters in strings must be escaped") }
                out.append(c)
                i += 1
            }
        }
    }

    mutating func literalString() throws(TOMLError) -> String {
        let start = i
        i += 1
        let contentStart = i
        while true {
            guard let c = peek else { throw error("unterminated string", at: start) }
            if c == UInt8(ascii: "'") { break }
            if c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r") {
                throw error("unterminated string: literal strings cannot span lines")
            }
            if (c < 0x20 && c != 0x09) || c == 0x7F { throw error("control characters are not allowed in literal strings") }
            i += 1
        }
        let s = String(decoding: bytes[contentStart..<i], as: UTF8.self)
        i += 1
        return s
    }

    func hexDigit(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
