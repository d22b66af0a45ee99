import COpenSSL
import Core

// Message digests through a per-thread EVP_MD_CTX.
//
// The EVP_MD objects are fetched once (`EVP_MD_fetch`) and kept for the life
// of the process: in OpenSSL 3, `EVP_sha256()` makes every call do an
// "implicit fetch" (a locked lookup in the provider's method store), which
// costs more than hashing a 48-byte token. A fetched EVP_MD is immutable and
// reference-counted, so sharing it between threads is safe; that is why the
// `nonisolated(unsafe)` below is sound. Global `let`s are initialised once,
// thread-safely, on first use.
nonisolated(unsafe) let fetchedSHA256: OpaquePointer = fetchDigest("SHA256")
nonisolated(unsafe) let fetchedSHA1: OpaquePointer = fetchDigest("SHA1")

private func fetchDigest(_ name: String) -> OpaquePointer {
    guard let md = EVP_MD_fetch(nil, name, nil) else {
        // Without the default provider no hash, HMAC or scrypt works: nothing
        // of authentication can run, and continuing would only fail later.
        fatalError("\(CryptoError.openSSL("EVP_MD_fetch(\(name))"))")
    }
    return md
}

/// Runs `body` over the bytes of `data` without copying when the collection is
/// contiguous (Array, String.UTF8View of a native string, slices), and through
/// a temporary array otherwise. An empty buffer still gets a valid pointer,
/// because some OpenSSL calls treat NULL as "no input given" rather than
/// "zero-length input".
@inline(__always)
func withBytes<C: Collection<UInt8>, R>(_ data: C, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    if let result = data.withContiguousStorageIfAvailable({ buffer -> R in
        if buffer.isEmpty { return withEmptyBuffer(body) }
        return body(UnsafeRawBufferPointer(buffer))
    }) {
        return result
    }
    let copy = Array(data)
    if copy.isEmpty { return withEmptyBuffer(body) }
    return copy.withUnsafeBytes(body)
}

@inline(__always)
private func withEmptyBuffer<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
    var dummy: UInt8 = 0
    return withUnsafeBytes(of: &dummy) { body(UnsafeRawBufferPointer(rebasing: $0[0..<0])) }
}

/// One-shot digest into a fresh array of `size` bytes.
@inline(__always)
func digest<C: Collection<UInt8>>(_ md: OpaquePointer, size: Int, _ data: C) -> [UInt8] {
    withBytes(data) { input in digest(md, size: size, bytes: input) }
}

/// A string's UTF-8 bytes, read in place: not through the generic
/// `Collection` path, whose unspecialised `withContiguousStorageIfAvailable`
/// looked up generic metadata on every call (a token hash per API request).
func digest(_ md: OpaquePointer, size: Int, utf8 s: String) -> [UInt8] {
    var s = s
    return s.withUTF8 { buffer in
        buffer.isEmpty ? withEmptyBuffer { digest(md, size: size, bytes: $0) } : digest(md, size: size, bytes: UnsafeRawBufferPointer(buffer))
    }
}

/// A digest context kept by each thread and re-initialised for every hash.
/// The one-shot `EVP_Digest` allocates a context and the provider's state
/// and frees both on every call; a kept context re-initialised with the
/// same algorithm reuses them: 122–170 ns instead of 188–259 ns per
/// 48-byte token against this machine's libcrypto (a C loop of 2 million
/// hashes each), paid on every API request. Per thread, because a context
/// is mutable state and the event loops hash concurrently.
private final class DigestContext {
    let ctx: OpaquePointer

    init() {
        guard let ctx = EVP_MD_CTX_new() else { fatalError("\(CryptoError.openSSL("EVP_MD_CTX_new"))") }
        self.ctx = ctx
    }

    deinit { EVP_MD_CTX_free(ctx) }
}

private let digestContexts = ThreadLocal { DigestContext() }

private func digest(_ md: OpaquePointer, size: Int, bytes input: UnsafeRawBufferPointer) -> [UInt8] {
    let ctx = digestContexts.value.ctx
    return ByteArrays.filled(capacity: size) { out in
        var length: UInt32 = 0
        // On a fetched SHA-2/SHA-1 with valid buffers these only fail on
        // allocation failure inside OpenSSL; a silently wrong hash would be
        // a security bug (e.g. every token hashing alike), so trap.
        guard EVP_DigestInit_ex2(ctx, md, nil) == 1,
              EVP_DigestUpdate(ctx, input.baseAddress, input.count) == 1,
              EVP_DigestFinal_ex(ctx, out.baseAddress, &length) == 1,
              Int(length) == size
        else {
            fatalError("\(CryptoError.openSSL("EVP_DigestInit_ex2/Update/Final_ex"))")
        }
        return size
    }
}

/// SHA-256 (FIPS 180-4). Used for token hashes and HMAC.
public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        digest(fetchedSHA256, size: byteCount, data)
    }

    /// Hash of the string's UTF-8 bytes.
    public static func hash(_ s: String) -> [UInt8] {
        digest(fetchedSHA256, size: byteCount, utf8: s)
    }
}

/// SHA-1: only for TOTP (RFC 6238 with SHA-1 is what authenticator apps
/// implement); never for anything that needs collision resistance.
public enum SHA1 {
    public static let byteCount = 20

    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        digest(fetchedSHA1, size: byteCount, data)
    }

    public static func hash(_ s: String) -> [UInt8] {
        digest(fetchedSHA1, size: byteCount, utf8: s)
    }
}
