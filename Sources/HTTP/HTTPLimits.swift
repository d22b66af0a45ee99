/// Size limits enforced while parsing (SPEC §2; configurable).
public struct HTTPLimits: Sendable, Equatable {
    /// Request line, CRLF excluded → `414`.
    public var maxRequestLineBytes: Int
    /// Header section (all field lines with their CRLFs, and trailers) → `431`.
    public var maxHeaderBytes: Int
    /// Decoded body → `413`.
    public var maxBodyBytes: Int
    /// Number of header fields → `431`.
    public var maxHeaderCount: Int

    public init(maxRequestLineBytes: Int = 8192, maxHeaderBytes: Int = 16384,
                maxBodyBytes: Int = 1 << 20, maxHeaderCount: Int = 128) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderCount = maxHeaderCount
    }
}
