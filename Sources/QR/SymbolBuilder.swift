/// Lays out one symbol (ISO/IEC 18004 §6.3, §7.7–7.9): function patterns,
/// the codeword bits in the two-column zigzag, then each of the eight masks
/// is tried and the one with the lowest penalty kept, with its format (and,
/// from version 7, version) information.
struct SymbolBuilder {
    let version: Int
    let ecc: ECC
    let size: Int
    private var modules: [Bool]
    /// Function-pattern modules: never carry data and are never masked.
    private var reserved: [Bool]

    init(version: Int, ecc: ECC) {
        self.version = version
        self.ecc = ecc
        size = version * 4 + 17
        modules = [Bool](repeating: false, count: size * size)
        reserved = modules
    }

    /// `mask` forces one pattern (tests decode each of the eight); nil
    /// picks the lowest penalty as the standard requires.
    func build(codewords: [UInt8], mask forced: Int? = nil) -> QRMatrix {
        var s = self
        s.drawFunctionPatterns()
        s.placeData(codewords)
        var best: QRMatrix?
        var bestPenalty = Int.max
        for mask in forced.map({ [$0] }) ?? Array(0..<8) {
            var candidate = s
            candidate.applyMask(mask)
            candidate.drawFormat(mask: mask)
            let matrix = QRMatrix(version: version, ecc: ecc, mask: mask, size: size, modules: candidate.modules)
            let penalty = Penalty.score(matrix)
            if penalty < bestPenalty {
                best = matrix
                bestPenalty = penalty
            }
        }
        return best!
    }

    // MARK: function patterns

    private mutating func set(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y * size + x] = dark
        reserved[y * size + x] = true
    }

    private mutating func drawFunctionPatterns() {
        // Timing patterns first: finders and alignment patterns overwrite
        // their ends.
        for i in 0..<size {
            set(6, i, i % 2 == 0)
            set(i, 6, i % 2 == 0)
        }
        drawFinder(3, 3)
        drawFinder(size - 4, 3)
        drawFinder(3, size - 4)
        let centres = Self.alignmentCentres(version: version)
        for cy in centres {
            for cx in centres {
                // The three corners with finders get no alignment pattern.
                let nearFinder = (cx == 6 && cy == 6) || (cx == 6 && cy == size - 7) || (cx == size - 7 && cy == 6)
                if !nearFinder { drawAlignment(cx, cy) }
            }
        }
        // Reserve the format areas now (written per mask later) and draw
        // the version information, which does not depend on the mask.
        drawFormat(mask: 0)
        drawVersion()
    }

    /// A 7×7 finder with its one-module light separator, clipped at edges.
    private mutating func drawFinder(_ cx: Int, _ cy: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = cx + dx, y = cy + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let ring = max(abs(dx), abs(dy))
                set(x, y, ring != 2 && ring != 4)
            }
        }
    }

    private mutating func drawAlignment(_ cx: Int, _ cy: Int) {
        for dy in -2...2 {
            for dx in -2...2 { set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
        }
    }

    /// Row/column coordinates of alignment pattern centres (Annex E): 6,
    /// then evenly spaced (an even step) up to size − 7; the step is rounded
    /// up so the uneven gap falls between the first two.
    static func alignmentCentres(version v: Int) -> [Int] {
        if v == 1 { return [] }
        let count = v / 7 + 2
        let size = v * 4 + 17
        let step = v == 32 ? 26 : (v * 8 + count * 3 + 5) / (count * 4 - 4) * 2
        var out = [6]
        var pos = size - 7
        var tail: [Int] = []
        for _ in 0..<(count - 1) {
            tail.insert(pos, at: 0)
            pos -= step
        }
        out += tail
        return out
    }

    // MARK: format and version information

    /// 15 format bits: level and mask, BCH(15,5) remainder, XOR 0x5412.
    static func formatBits(ecc: ECC, mask: Int) -> Int {
        let data = ecc.formatBits << 3 | mask
        return (data << 10 | bchRemainder(data, generator: 0x537, degree: 10)) ^ 0x5412
    }

    /// 18 version bits: the version and its BCH(18,6) remainder.
    static func versionBits(_ version: Int) -> Int {
        version << 12 | bchRemainder(version, generator: 0x1F25, degree: 12)
    }

    static func bchRemainder(_ data: Int, generator: Int, degree: Int) -> Int {
        var r = data << degree
        for shift in stride(from: bitLength(r) - 1, through: degree, by: -1) where (r >> shift) & 1 == 1 {
            r ^= generator << (shift - degree)
        }
        return r
    }

    private static func bitLength(_ v: Int) -> Int {
        var n = 0
        while v >> n != 0 { n += 1 }
        return n
    }

    /// Both copies of the format information (Figure 25). Bit 0 is the
    /// least significant; the first copy runs down column 8 beside the
    /// top-left finder and then left along row 8, the second is split
    /// between the other two finders, with the dark module above the
    /// bottom-left one.
    private mutating func drawFormat(mask: Int) {
        let bits = Self.formatBits(ecc: ecc, mask: mask)
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
        for i in 0...5 { set(8, i, bit(i)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)
    }

    /// Two 6×3 blocks of version information from version 7 on (§7.10).
    private mutating func drawVersion() {
        guard version >= 7 else { return }
        let bits = Self.versionBits(version)
        for i in 0..<18 {
            let dark = (bits >> i) & 1 == 1
            let a = size - 11 + i % 3, b = i / 3
            set(a, b, dark)
            set(b, a, dark)
        }
    }

    // MARK: data and masks

    /// Codeword bits, most significant first, in two-module-wide columns
    /// from the bottom right, alternately upwards and downwards, skipping
    /// the vertical timing pattern and every function module (§7.7.3).
    /// Remainder bits stay light.
    private mutating func placeData(_ codewords: [UInt8]) {
        var i = 0
        let totalBits = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = ((right + 1) & 2) == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !reserved[y * size + x] && i < totalBits {
                    modules[y * size + x] = (codewords[i >> 3] >> (7 - (i & 7))) & 1 == 1
                    i += 1
                }
            }
            right -= 2
        }
    }

    /// The mask conditions of Table 10 (i = row, j = column).
    static func maskHit(_ mask: Int, row i: Int, column j: Int) -> Bool {
        switch mask {
        case 0: return (i + j) % 2 == 0
        case 1: return i % 2 == 0
        case 2: return j % 3 == 0
        case 3: return (i + j) % 3 == 0
        case 4: return (i / 2 + j / 3) % 2 == 0
        case 5: return (i * j) % 2 + (i * j) % 3 == 0
        case 6: return ((i * j) % 2 + (i * j) % 3) % 2 == 0
        default: return ((i + j) % 2 + (i * j) % 3) % 2 == 0
        }
    }

    private mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !reserved[y * size + x] && Self.maskHit(mask, row: y, column: x) {
                modules[y * size + x].toggle()
            }
        }
    }
}
