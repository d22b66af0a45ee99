#if canImport(Glibc)
import Glibc
#endif
import CLibPQ
import CPostgres
import CSQLite

/// What both libpq users (`PostgresConnection`, `PostgresListener`) need
/// from the C side: loading libpq, opening a session from keyword/value
/// pairs and turning libpq's multi-line messages into one line.
enum LibPQ {
    /// The library's soname; Debian's package for it is `libpq5`.
    static let library = "libpq.so.5"
    /// How `open`'s errors begin (`StoreError.isClientLibraryMissing`).
    static let unavailable = "PostgreSQL needs the libpq client library"

    /// Loads libpq on first use (CLibPQ): a hub on SQLite never maps it.
    /// Every PQ* call must come after this; `connect` calls it.
    static func load() throws(StoreError) {
        if pt_pq_installed() != 0 { return }
        pt_pq_install(try open(library: library))
    }

    /// `library` opened with every function the hub calls resolved, or the
    /// reason it cannot be, as an error an operator can act on.
    static func open(library: String) throws(StoreError) -> OpaquePointer {
        var error = [CChar](repeating: 0, count: 512)
        if let table = pt_pq_open(library, &error, error.count) { return table }
        let reason = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        throw StoreError(code: SQLITE_CANTOPEN,
                         message: "\(unavailable) (\(library), libpq 14 or later), "
                             + "which could not be loaded: \(reason). Install it (Debian and Ubuntu: apt-get install libpq5)")
    }

    /// Closes what `open` returned (when it was not installed).
    static func close(_ table: OpaquePointer) { pt_pq_close(table) }

    /// `PQconnectdbParams` with `expand_dbname` = 1 (a `dbname` value may
    /// hold the whole URL). Pairs are processed in order, the last value of
    /// a keyword wins. Returns the connected session, or the reason (the
    /// failed session is already finished).
    static func connect(_ params: [(key: String, value: String)]) -> Result<OpaquePointer, ConnectFailure> {
        do { try load() } catch { return .failure(ConnectFailure(message: error.message, unavailable: error)) }
        let c = withCStrings(params.map(\.key)) { k in withCStrings(params.map(\.value)) { v in PQconnectdbParams(k, v, 1) } }
        guard let c else { return .failure(ConnectFailure(message: "libpq: out of memory")) }
        guard PQstatus(c) == CONNECTION_OK else {
            let message = oneLine(PQerrorMessage(c))
            PQfinish(c)
            return .failure(ConnectFailure(message: message))
        }
        return .success(c)
    }

    struct ConnectFailure: Error {
        let message: String
        /// Set when libpq itself could not be loaded: no connection was tried.
        var unavailable: StoreError? = nil
    }

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

/// Loads libpq for code outside Store that calls it directly (the test
/// support administers its PostgreSQL server with libpq): its PQ* calls go
/// through the same loader as Store's and fail without it.
public enum PostgresClientLibrary {
    public static func load() throws(StoreError) { try LibPQ.load() }
}
