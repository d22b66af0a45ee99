/// Error correction level (ISO/IEC 18004 §6.5.1): roughly 7 % (L), 15 % (M),
/// 25 % (Q) and 30 % (H) of the codewords can be restored.
public enum ECC: Sendable, CaseIterable {
    case low, medium, quartile, high

    /// The two level bits of the format information (Table 12): the order
    /// L, M, Q, H is 01, 00, 11, 10, not a counting order.
    var formatBits: Int {
        switch self {
        case .low: return 1
        case .medium: return 0
        case .quartile: return 3
        case .high: return 2
        }
    }

    var row: Int {
        switch self {
        case .low: return 0
        case .medium: return 1
        case .quartile: return 2
        case .high: return 3
        }
    }

    /// Error correction codewords per block, by version 1…40 (Table 9).
    var codewordsPerBlock: [Int] { Capacity.ecPerBlock[row] }
    /// Number of error correction blocks, by version 1…40 (Table 9).
    var blocks: [Int] { Capacity.blockCount[row] }
}

/// The symbol capacities of ISO/IEC 18004 Table 9, reduced to the two
/// numbers the encoder needs per version and level; everything else (block
/// lengths, data capacity) follows from the count of data modules.
enum Capacity {
    static let ecPerBlock: [[Int]] = [
        [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
         28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
         26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
         28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
         30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]
    static let blockCount: [[Int]] = [
        [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
         8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
         17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
         23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
         25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    /// Modules left for codewords (data + error correction + remainder bits)
    /// once the function patterns of `version` are placed: the full square
    /// minus finders with separators and format areas, timing patterns,
    /// alignment patterns (less their overlap with timing) and version info.
    static func dataModules(version v: Int) -> Int {
        var n = (16 * v + 128) * v + 64
        if v >= 2 {
            let a = v / 7 + 2
            n -= (25 * a - 10) * a - 55
            if v >= 7 { n -= 36 }
        }
        return n
    }

    static func totalCodewords(version v: Int) -> Int { dataModules(version: v) / 8 }

    static func dataCodewords(version v: Int, ecc: ECC) -> Int {
        totalCodewords(version: v) - ecc.codewordsPerBlock[v - 1] * ecc.blocks[v - 1]
    }

    /// Bits of the byte-mode character count indicator (Table 3).
    static func countBits(version v: Int) -> Int { v <= 9 ? 8 : 16 }

    /// The most bytes of byte-mode data `version` holds at `ecc`.
    static func byteCapacity(version v: Int, ecc: ECC) -> Int {
        (dataCodewords(version: v, ecc: ecc) * 8 - 4 - countBits(version: v)) / 8
    }
}
