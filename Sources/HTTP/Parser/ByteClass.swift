/// Character classes of RFC 9110 / RFC 3986 that the request parser checks
/// byte by byte. Switches over byte ranges compile to compact branch trees,
/// so there is no table to initialise lazily on the hot path.
enum ByteClass {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let space: UInt8 = 32
    static let tab: UInt8 = 9

    /// RFC 9110 §5.6.2 `tchar`: what method names, field names and codings are made of.
    @inline(__always)
    static func isTokenChar(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// SP or HTAB: the optional whitespace (OWS/BWS) around values.
    @inline(__always)
    static func isWhitespace(_ b: UInt8) -> Bool { b == space || b == tab }

    /// `field-vchar` plus SP and HTAB (RFC 9110 §5.5): visible ASCII and
    /// obs-text (0x80–0xFF); controls and DEL are refused.
    @inline(__always)
    static func isFieldValueChar(_ b: UInt8) -> Bool {
        b == tab || (b >= 0x20 && b != 0x7F)
    }

    /// RFC 3986 `unreserved` and `sub-delims`, the common core of path,
    /// query and authority characters.
    @inline(__always)
    static func isUnreservedOrSubDelim(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// The value of a hex digit, or nil.
    @inline(__always)
    static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(b - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// ASCII case-insensitive comparison of raw bytes with a lowercase literal.
    static func equalsLowercased<S: Collection>(_ bytes: S, _ lowercase: StaticString) -> Bool where S.Element == UInt8 {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        var i = 0
        for b in bytes {
            let lowered = (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) ? b | 0x20 : b
            if lowered != lowercase.utf8Start[i] { return false }
            i += 1
        }
        return true
    }
}
