import CPostgres
import CSQLite

/// Values to and from libpq's text format.
enum PostgresParameters {
    /// Encodes `args` for `PQexecPrepared`: text format for everything but
    /// bytea (binary, so a hash is 32 bytes on the wire and not 66), NULL as
    /// a null pointer. All values live in one buffer for the call.
    static func withEncoded<R>(_ args: [SQLValue], sql: String,
                               _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R)
        throws(StoreError) -> R {
        var buffer: [UInt8] = [0]
        var offsets: [Int] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        offsets.reserveCapacity(args.count)
        for (i, arg) in args.enumerated() {
            switch arg {
            case .null:
                offsets.append(-1); lengths.append(0); formats.append(0)
                continue
            case .blob(let b):
                offsets.append(buffer.count)
                buffer.append(contentsOf: b)
                lengths.append(Int32(b.count)); formats.append(1)
                continue
            case .integer(let v):
                offsets.append(buffer.count)
                buffer.append(contentsOf: String(v).utf8)
            case .real(let d):
                offsets.append(buffer.count)
                let text = d.isNaN ? "NaN" : d.isInfinite ? (d > 0 ? "Infinity" : "-Infinity") : "\(d)"
                buffer.append(contentsOf: text.utf8)
            case .text(let s):
                // PostgreSQL text cannot hold NUL; SQLite would store it.
                // Refuse rather than cut the value short at the NUL.
                if s.utf8.contains(0) {
                    throw StoreError(code: SQLITE_MISMATCH, message: "argument \(i + 1) contains a NUL character", sql: sql)
                }
                offsets.append(buffer.count)
                buffer.append(contentsOf: s.utf8)
            }
            buffer.append(0)
            lengths.append(0); formats.append(0)
        }
        return buffer.withUnsafeBufferPointer { base in
            let raw = UnsafeRawPointer(base.baseAddress!)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { $0 < 0 ? nil : (raw + $0).assumingMemoryBound(to: CChar.self) }
            return pointers.withUnsafeBufferPointer { p in
                lengths.withUnsafeBufferPointer { l in
                    formats.withUnsafeBufferPointer { f in body(p.baseAddress, l.baseAddress, f.baseAddress) }
                }
            }
        }
    }
}

/// Column values from a text-format result, by the column's type OID
/// (`pg_type.oid`; the built-in ones are fixed).
enum PostgresValues {
    static let bool: UInt32 = 16, bytea: UInt32 = 17, int8: UInt32 = 20, int2: UInt32 = 21, int4: UInt32 = 23,
               oid: UInt32 = 26, float4: UInt32 = 700, float8: UInt32 = 701, numeric: UInt32 = 1700

    static func decode(_ res: OpaquePointer, _ row: Int32, _ col: Int32, type: UInt32) -> SQLValue {
        if PQgetisnull(res, row, col) == 1 { return .null }
        let len = Int(PQgetlength(res, row, col))
        guard let p = PQgetvalue(res, row, col) else { return .null }
        let bytes = UnsafeRawBufferPointer(start: p, count: len)
        switch type {
        case int8, int4, int2, oid:
            return integer(bytes).map { .integer($0) } ?? .text(String(decoding: bytes, as: UTF8.self))
        case bool:
            // Booleans are 0/1 integers on SQLite; keep one vocabulary.
            return .integer(bytes.first == UInt8(ascii: "t") ? 1 : 0)
        case float4, float8:
            return .real(real(bytes))
        case numeric:
            // sum() and friends of bigint are numeric: whole numbers stay
            // integers, as SQLite's sum() of integers is one.
            if !bytes.contains(UInt8(ascii: ".")) && !bytes.contains(UInt8(ascii: "e")), let n = integer(bytes) {
                return .integer(n)
            }
            return .real(real(bytes))
        case bytea:
            return .blob(hex(bytes))
        default:
            return .text(String(decoding: bytes, as: UTF8.self))
        }
    }

    private static func integer(_ b: UnsafeRawBufferPointer) -> Int64? {
        guard !b.isEmpty else { return nil }
        var i = 0
        let negative = b[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        guard i < b.count else { return nil }
        var n: Int64 = 0
        while i < b.count {
            let d = b[i]
            guard d >= 0x30 && d <= 0x39 else { return nil }
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(Int64(d - 0x30)) : m.addingReportingOverflow(Int64(d - 0x30))
            if o1 || o2 { return nil }
            n = s
            i += 1
        }
        return n
    }

    private static func real(_ b: UnsafeRawBufferPointer) -> Double {
        let s = String(decoding: b, as: UTF8.self)
        switch s {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: return Double(s) ?? .nan
        }
    }

    /// bytea's text output: `\x` then two hex digits a byte.
    private static func hex(_ b: UnsafeRawBufferPointer) -> [UInt8] {
        guard b.count >= 2, b[0] == UInt8(ascii: "\\"), b[1] == UInt8(ascii: "x") else { return Array(b) }
        var out = [UInt8]()
        out.reserveCapacity((b.count - 2) / 2)
        var i = 2
        while i + 1 < b.count {
            out.append(nibble(b[i]) << 4 | nibble(b[i + 1]))
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: 0
        }
    }
}
