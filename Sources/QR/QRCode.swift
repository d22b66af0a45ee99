/// A QR code encoder written from ISO/IEC 18004: byte mode, error correction
/// levels L/M/Q/H, versions 1–40 chosen automatically (the smallest that
/// fits), Reed–Solomon blocks interleaved, the mask with the lowest penalty.
public enum QRCode {
    /// The module matrix for `text` (its UTF-8 bytes in byte mode).
    public static func matrix(_ text: String, ecc: ECC = .medium) throws -> QRMatrix {
        try matrix(bytes: Array(text.utf8), ecc: ecc)
    }

    public static func matrix(bytes: [UInt8], ecc: ECC = .medium) throws -> QRMatrix {
        try matrix(bytes: bytes, ecc: ecc, mask: nil)
    }

    static func matrix(bytes: [UInt8], ecc: ECC, mask: Int?) throws -> QRMatrix {
        let version = try chooseVersion(byteCount: bytes.count, ecc: ecc)
        let data = dataCodewords(bytes, version: version, ecc: ecc)
        let codewords = interleave(data, version: version, ecc: ecc)
        return SymbolBuilder(version: version, ecc: ecc).build(codewords: codewords, mask: mask)
    }

    /// An SVG of the code at level M: one `<path>` of unit squares on a
    /// white background with a 4-module quiet zone, `moduleSize` pixels per
    /// module. Scalable (viewBox in modules) and labelled for screen readers.
    public static func svg(_ text: String, moduleSize: Int = 4) throws -> String {
        try matrix(text).svg(moduleSize: moduleSize)
    }

    /// The smallest version whose byte-mode capacity holds `byteCount`.
    static func chooseVersion(byteCount: Int, ecc: ECC) throws -> Int {
        for v in 1...40 where Capacity.byteCapacity(version: v, ecc: ecc) >= byteCount {
            return v
        }
        throw QRError.tooLong(bytes: byteCount, capacity: Capacity.byteCapacity(version: 40, ecc: ecc))
    }

    /// The data codewords (§7.4): mode 0100, the count, the bytes, a
    /// terminator of up to four zero bits, zero bits to a byte boundary,
    /// then the pad codewords 11101100 and 00010001 alternately.
    static func dataCodewords(_ bytes: [UInt8], version: Int, ecc: ECC) -> [UInt8] {
        let capacity = Capacity.dataCodewords(version: version, ecc: ecc)
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: Capacity.countBits(version: version))
        for b in bytes { bits.append(Int(b), count: 8) }
        bits.append(0, count: min(4, capacity * 8 - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var out = bits.bytes
        var pad: UInt8 = 0xEC
        while out.count < capacity {
            out.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return out
    }

    /// Splits the data into blocks (§7.5.2: the shorter blocks first, the
    /// longer ones one data codeword more), adds each block's error
    /// correction codewords and interleaves (§7.6): data codewords column by
    /// column across the blocks, then the error correction codewords.
    static func interleave(_ data: [UInt8], version: Int, ecc: ECC) -> [UInt8] {
        let blockCount = ecc.blocks[version - 1]
        let ecLength = ecc.codewordsPerBlock[version - 1]
        let total = Capacity.totalCodewords(version: version)
        let shortBlocks = blockCount - total % blockCount
        let shortData = total / blockCount - ecLength

        var blocks: [[UInt8]] = []
        var eccBlocks: [[UInt8]] = []
        var offset = 0
        for i in 0..<blockCount {
            let length = shortData + (i < shortBlocks ? 0 : 1)
            let block = Array(data[offset..<offset + length])
            offset += length
            blocks.append(block)
            eccBlocks.append(ReedSolomon.remainder(block, degree: ecLength))
        }
        var out: [UInt8] = []
        out.reserveCapacity(total)
        for i in 0...shortData {
            for block in blocks where i < block.count { out.append(block[i]) }
        }
        for i in 0..<ecLength {
            for block in eccBlocks { out.append(block[i]) }
        }
        return out
    }
}

public enum QRError: Error, Equatable, CustomStringConvertible {
    /// The text is longer than a version 40 symbol holds at that level.
    case tooLong(bytes: Int, capacity: Int)

    public var description: String {
        switch self {
        case .tooLong(let bytes, let capacity):
            return "text of \(bytes) bytes does not fit in a QR code (at most \(capacity) bytes at this level)"
        }
    }
}

/// Bits appended most significant first.
struct BitBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, count n: Int) {
        for i in stride(from: n - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 == 1 { bytes[count / 8] |= UInt8(0x80 >> (count % 8)) }
            count += 1
        }
    }
}
