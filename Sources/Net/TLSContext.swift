import COpenSSL
import CShims
import Core
import Crypto
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The engine's one client `SSL_CTX`: TLS ≥ 1.2, the system trust store
/// (`SSL_CTX_set_default_verify_paths`, so `SSL_CERT_FILE` / `SSL_CERT_DIR`
/// apply) plus an optional extra CA file. Handshakes run with
/// `SSL_VERIFY_NONE` and the verdict is read afterwards, so the certificate
/// is always captured. An `SSL_CTX` is safe to share between threads once
/// configured (OpenSSL 3).
final class TLSContext: @unchecked Sendable {
    private enum State {
        case notYet
        case ready(OpaquePointer)
        case failed(String)
    }

    // Created once, under the mutex, before any handshake uses it; OpenSSL
    // locks internally for SSL_new.
    private let state = Mutex<State>(.notYet)
    private let extraCAFile: String?

    init(extraCAFile: String?) {
        self.extraCAFile = extraCAFile
    }

    deinit {
        if case .ready(let ctx) = state.withLock({ $0 }) { SSL_CTX_free(ctx) }
    }

    /// The shared context. Creating it initialises OpenSSL's TLS machinery
    /// and loads the system trust bundle (~30 ms, a few MB resident), so it
    /// happens at the first TLS handshake, not at start-up: many hubs have
    /// no https check due in their first seconds, or none at all.
    func ready() throws(ClientFailure) -> OpaquePointer {
        let current = state.withLock { s -> State in
            if case .notYet = s { s = Self.make(extraCAFile: extraCAFile) }
            return s
        }
        switch current {
        case .ready(let ctx): return ctx
        case .failed(let message): throw .tls(message)
        case .notYet: throw .tls("TLS unavailable")
        }
    }

    private static func make(extraCAFile: String?) -> State {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { return .failed("SSL_CTX_new: \(openSSLErrorReason())") }
        guard pt_ssl_ctx_configure_client(ctx) == 1 else {
            SSL_CTX_free(ctx)
            return .failed("configuring SSL_CTX: \(openSSLErrorReason())")
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        if SSL_CTX_set_default_verify_paths(ctx) != 1 { ERR_clear_error() }
        if let extraCAFile, SSL_CTX_load_verify_locations(ctx, extraCAFile, nil) != 1 {
            let error = "cannot load CA file \(extraCAFile): \(openSSLErrorReason())"
            Log.shared.error("TLS client context unavailable", ["error": error])
            SSL_CTX_free(ctx)
            return .failed(error)
        }
        return .ready(ctx)
    }
}


/// Reads what the peer's certificate says after a completed handshake.
func captureTLSInfo(ssl: OpaquePointer, host: String, isIPLiteral: Bool) -> TLSInfo? {
    guard let cert = SSL_get1_peer_certificate(ssl) else { return nil }
    defer { X509_free(cert) }
    let result = SSL_get_verify_result(ssl)
    let verified = result == Int(X509_V_OK)
    var error: String?
    if !verified { error = String(cString: X509_verify_cert_error_string(result)) }
    let matches: Bool
    if isIPLiteral {
        matches = X509_check_ip_asc(cert, host, 0) == 1
    } else {
        matches = X509_check_host(cert, host, host.utf8.count, 0, nil) == 1
    }
    var buf = [CChar](repeating: 0, count: 4096)
    func text(_ n: Int32) -> String {
        String(decoding: buf.prefix(Int(max(0, n))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    let subject = text(pt_x509_name_text(cert, 0, &buf, Int32(buf.count)))
    let issuer = text(pt_x509_name_text(cert, 1, &buf, Int32(buf.count)))
    let sans = text(pt_x509_san_dns_names(cert, &buf, Int32(buf.count)))
    let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) } ?? ""
    return TLSInfo(verified: verified, verifyError: error, hostnameMatches: matches,
                   notBefore: Int64(pt_x509_time(cert, 0)), notAfter: Int64(pt_x509_time(cert, 1)),
                   subject: subject, issuer: issuer,
                   dnsNames: sans.split(separator: "\n").map(String.init),
                   protocolVersion: String(cString: SSL_get_version(ssl)), cipher: cipher)
}
