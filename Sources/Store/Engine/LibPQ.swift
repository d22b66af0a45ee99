#if canImport(Glibc)
import Glibc
#endif
import CPostgres

/// What both libpq users (`PostgresConnection`, `PostgresListener`) need
/// from the C side: opening a session from keyword/value pairs and turning
/// libpq's multi-line messages into one line.
enum LibPQ {
    /// `PQconnectdbParams` with `expand_dbname` = 1 (a `dbname` value may
    /// hold the whole URL). Pairs are processed in order, the last value of
    /// a keyword wins. Returns the connected session, or libpq's message
    /// (the failed session is already finished).
    static func connect(_ params: [(key: String, value: String)]) -> Result<OpaquePointer, ConnectFailure> {
        let c = withCStrings(params.map(\.key)) { k in withCStrings(params.map(\.value)) { v in PQconnectdbParams(k, v, 1) } }
        guard let c else { return .failure(ConnectFailure(message: "libpq: out of memory")) }
        guard PQstatus(c) == CONNECTION_OK else {
            let message = oneLine(PQerrorMessage(c))
            PQfinish(c)
            return .failure(ConnectFailure(message: message))
        }
        return .success(c)
    }

    struct ConnectFailure: Error { let message: String }

    /// libpq messages span lines ("DETAIL: …", tab-indented hints); a log
    /// line or a one-line error must not: control characters become one
    /// space, runs of spaces one, trailing ones dropped.
    static func oneLine(_ p: UnsafePointer<CChar>?) -> String {
        guard let p else { return "" }
        var out: [UInt8] = []
        for b in String(cString: p).utf8 {
            let c: UInt8 = b < 0x20 || b == 0x7F ? 0x20 : b
            if c == 0x20 && (out.last == 0x20 || out.isEmpty) { continue }
            out.append(c)
        }
        while out.last == 0x20 { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// A NULL-terminated array of C strings for libpq's keyword/value calls.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { for c in copies { free(c) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
