#if canImport(Glibc)
import Glibc
#endif

/// Bytes received but not yet consumed by the parser, with a read index and
/// a line-scan index. The scan index remembers how far the current line has
/// been searched for LF, so feeding a line byte by byte stays linear.
struct InputBuffer: Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var readIndex = 0
    /// Where the LF search for the line starting at `readIndex` resumes.
    private var scanIndex = 0

    /// Above this, a fully consumed buffer gives its memory back instead of
    /// keeping it for the next request (one large body should not pin it).
    private static let retainedCapacity = 64 * 1024
    /// Unconsumed bytes are only moved to the front once at least this many
    /// consumed bytes precede them, keeping compaction amortised O(1) per byte.
    private static let compactionThreshold = 4096

    var readableCount: Int { bytes.count - readIndex }

    mutating func append(_ raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }

    mutating func append<C: Collection>(_ more: C) where C.Element == UInt8 { bytes.append(contentsOf: more) }

    /// The byte `offset` positions past the read index, if it has arrived.
    func peek(_ offset: Int) -> UInt8? {
        let i = readIndex + offset
        return i < bytes.count ? bytes[i] : nil
    }

    /// The unconsumed bytes (a view; valid until the next mutation).
    var readable: ArraySlice<UInt8> { bytes[readIndex...] }

    mutating func consume(_ count: Int) {
        readIndex += count
        scanIndex = readIndex
    }

    /// Removes and returns up to `limit` bytes.
    mutating func take(upTo limit: Int) -> [UInt8] {
        let n = min(limit, readableCount)
        let chunk = Array(bytes[readIndex..<readIndex + n])
        consume(n)
        return chunk
    }

    /// The next CRLF-terminated line without its CRLF, consumed; nil while it
    /// is incomplete.
    ///
    /// `maxContent` bounds the line's length without CRLF. The check runs on
    /// the partial line too, with the same arithmetic as on a complete one, so
    /// an overlong line fails identically however the input was split: the
    /// content is at least the buffered length, minus one if the last byte
    /// might be the CR of the CRLF.
    mutating func nextLine(maxContent: Int, tooLong: HTTPError) throws(HTTPError) -> ArraySlice<UInt8>? {
        guard let lf = findLF() else {
            let buffered = readableCount
            if buffered > 0 {
                let minimumContent = bytes[bytes.count - 1] == ByteClass.cr ? buffered - 1 : buffered
                if minimumContent > maxContent { throw tooLong }
            }
            return nil
        }
        let endsWithCR = lf > readIndex && bytes[lf - 1] == ByteClass.cr
        let contentEnd = endsWithCR ? lf - 1 : lf
        if contentEnd - readIndex > maxContent { throw tooLong }
        guard endsWithCR else { throw ParseError.bareLF }
        let line = bytes[readIndex..<contentEnd]
        if line.contains(ByteClass.cr) { throw ParseError.bareCR }
        consume(lf + 1 - readIndex)
        return line
    }

    private mutating func findLF() -> Int? {
        let start = scanIndex
        let found: Int? = bytes.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress, start < p.count,
                  let hit = memchr(base + start, Int32(ByteClass.lf), p.count - start) else { return nil }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
        scanIndex = found ?? bytes.count
        return found
    }

    /// Drops consumed bytes when that is cheap or worthwhile.
    mutating func compact() {
        guard readIndex > 0 else { return }
        if readIndex == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= Self.retainedCapacity)
        } else if readIndex >= Self.compactionThreshold && readIndex * 2 >= bytes.count {
            bytes.removeSubrange(0..<readIndex)
        } else {
            return
        }
        scanIndex -= readIndex
        readIndex = 0
    }

    /// Forgets everything (after an error nothing more will be parsed).
    mutating func discardAll() {
        bytes = []
        readIndex = 0
        scanIndex = 0
    }
}
