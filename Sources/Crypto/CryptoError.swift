import COpenSSL

/// A failed OpenSSL call. `message` names our operation and carries OpenSSL's
/// own error text (the whole thread-local error queue, oldest first), because
/// "scrypt failed" alone hides whether it was memory, parameters or a provider.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    /// Builds an error for `operation` and drains OpenSSL's error queue, so a
    /// stale entry can never be blamed on a later, unrelated call.
    public static func openSSL(_ operation: String) -> CryptoError {
        var texts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            buffer.withUnsafeMutableBufferPointer { ERR_error_string_n(code, $0.baseAddress, $0.count) }
            texts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return CryptoError(texts.isEmpty ? "\(operation) failed" : "\(operation) failed: \(texts.joined(separator: "; "))")
    }

    public var description: String { message }
}

/// The oldest queued OpenSSL error's reason ("certificate verify failed"
/// from "error:0A000086:SSL routines::certificate verify failed"), or
/// "unknown error"; the queue is cleared. Shared by every TLS user (checks,
/// mail) so the texts people see in results and logs read the same.
public func openSSLErrorReason() -> String {
    let code = ERR_get_error()
    ERR_clear_error()
    guard code != 0 else { return "unknown error" }
    var buf = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buf, buf.count)
    let text = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if let r = text.firstRange(of: "::") { return String(text[r.upperBound...]) }
    return text
}
