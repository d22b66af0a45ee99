/// A JSON value. Objects keep their keys in order, so answers come out in
/// the order the API documents them; `null` is explicit, as the spec shows.
/// The hub uses this instead of Codable: explicit nulls, strict parsing with
/// clear errors, and no Foundation in the binary.
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)

    public static func from(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
    public static func from(_ value: Int64?) -> JSON { value.map { .int($0) } ?? .null }
    public static func time(_ seconds: Int64?) -> JSON { seconds.map { .string(Time.rfc3339($0)) } ?? .null }

    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var intValue: Int64? { if case .int(let i) = self { return i }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    public var isNull: Bool { self == .null }

    /// The type's name as error messages say it.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Compact UTF-8 serialization.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    public var text: String { String(decoding: serialized(), as: UTF8.self) }

    /// Decimal digits straight into `out` (no String per number).
    static func writeInt(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        // The magnitude as UInt64, so Int64.min has one too.
        var m = value < 0 ? UInt64(bitPattern: 0 &- value) : UInt64(value)
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes: 19 digits at most, filled from the end
        withUnsafeMutableBytes(of: &digits) { buf in
            var i = buf.count
            repeat {
                i -= 1
                buf[i] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
            } while m > 0
            out.append(contentsOf: buf[i...])
        }
    }

    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: [110, 117, 108, 108])
        case .bool(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .int(let i): JSON.writeInt(i, to: &out)
        case .double(let d):
            if d.isFinite {
                if d == d.rounded(), abs(d) < 1e15 { out.append(contentsOf: String(Int64(d)).utf8) } else { out.append(contentsOf: String(d).utf8) }
            } else {
                out.append(contentsOf: [110, 117, 108, 108])
            }
        case .string(let s): JSON.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in object.entries.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A string's bytes go out in runs between the bytes that need an
    /// escape, one copy per run: a status page's JSON is mostly strings
    /// (5.3 MB at 1,000 monitors) and byte-by-byte appends with a table
    /// built per call were a seventh of its time (bench/pages.sh, perf).
    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var start = 0
            for i in bytes.indices {
                let b = bytes[i]
                guard b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                writeEscape(b, to: &out)
                start = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func writeEscape(_ b: UInt8, to out: inout [UInt8]) {
        out.append(92)
        switch b {
        case 0x22, 0x5C: out.append(b)
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        default:
            func hex(_ d: UInt8) -> UInt8 { d < 10 ? 48 + d : 87 + d }
            out.append(contentsOf: [UInt8(ascii: "u"), 48, 48, hex(b >> 4), hex(b & 0xF)])
        }
    }
}

/// An ordered JSON object.
public struct JSONObject: Sendable, Equatable {
    public private(set) var entries: [(key: String, value: JSON)] = []

    public init() {}
    public init(_ entries: [(String, JSON)]) { self.entries = entries.map { (key: $0.0, value: $0.1) } }

    public subscript(key: String) -> JSON? {
        get { entries.first { $0.key == key }?.value }
        set {
            if let i = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append((key: key, value: newValue))
            }
        }
    }

    public var keys: [String] { entries.map(\.key) }
    public var count: Int { entries.count }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.entries.count == b.entries.count && zip(a.entries, b.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(elements)) }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .double(value) }
}
