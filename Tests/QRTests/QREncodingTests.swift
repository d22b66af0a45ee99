@testable import QR
import Testing

/// Known vectors from ISO/IEC 18004 and values computed here by other means
/// than the encoder's own code paths.
@Suite struct QREncodingTests {
    @Test func byteModeDataCodewordsOfTheISOExampleText() {
        // "01234567" as bytes at 1-M: 0100, count 00001000, the eight
        // bytes, terminator, then pad codewords EC 11 to 16 codewords.
        let data = QRCode.dataCodewords(Array("01234567".utf8), version: 1, ecc: .medium)
        #expect(data == [0x40, 0x83, 0x03, 0x13, 0x23, 0x33, 0x43, 0x53, 0x63, 0x70,
                         0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11])
    }

    @Test func reedSolomonMatchesTheISOAnnexExample() {
        // Annex I: "01234567" in numeric mode at 1-M; its data codewords and
        // the ten error correction codewords printed in the standard.
        let data: [UInt8] = [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        #expect(ReedSolomon.remainder(data, degree: 10) == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    /// GF(256) product by shift-and-add, independent of the log tables.
    static func slowMultiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = Int(a), b = Int(b), p = 0
        while b > 0 {
            if b & 1 == 1 { p ^= a }
            a <<= 1
            if a & 0x100 != 0 { a ^= 0x11D }
            b >>= 1
        }
        return UInt8(p)
    }

    @Test(arguments: [7, 10, 13, 17, 22, 26, 28, 30])
    func codewordPolynomialVanishesAtTheGeneratorRoots(degree: Int) {
        // A correct block (data followed by its remainder) is a multiple of
        // the generator, so it is zero at α⁰…αⁿ⁻¹ (Horner, slow multiply).
        var seed: UInt32 = 12345
        var data: [UInt8] = []
        for _ in 0..<40 {
            seed = seed &* 1_103_515_245 &+ 12345
            data.append(UInt8(truncatingIfNeeded: seed >> 16))
        }
        let block = data + ReedSolomon.remainder(data, degree: degree)
        var root: UInt8 = 1
        for _ in 0..<degree {
            var value: UInt8 = 0
            for c in block { value = Self.slowMultiply(value, root) ^ c }
            #expect(value == 0)
            root = Self.slowMultiply(root, 2)
        }
    }

    @Test func formatInformationForEveryLevelAndMask() {
        // ISO/IEC 18004 Annex C, Table C.1: masked 15-bit sequences.
        let expected: [(ECC, [Int])] = [
            (.low, [0x77C4, 0x72F3, 0x7DAA, 0x789D, 0x662F, 0x6318, 0x6C41, 0x6976]),
            (.medium, [0x5412, 0x5125, 0x5E7C, 0x5B4B, 0x45F9, 0x40CE, 0x4F97, 0x4AA0]),
            (.quartile, [0x355F, 0x3068, 0x3F31, 0x3A06, 0x24B4, 0x2183, 0x2EDA, 0x2BED]),
            (.high, [0x1689, 0x13BE, 0x1CE7, 0x19D0, 0x0762, 0x0255, 0x0D0C, 0x083B]),
        ]
        for (ecc, values) in expected {
            for mask in 0..<8 {
                #expect(SymbolBuilder.formatBits(ecc: ecc, mask: mask) == values[mask], "\(ecc) mask \(mask)")
            }
        }
    }

    @Test func versionInformation() {
        // Annex D, Table D.1.
        #expect(SymbolBuilder.versionBits(7) == 0x07C94)
        #expect(SymbolBuilder.versionBits(8) == 0x085BC)
        #expect(SymbolBuilder.versionBits(21) == 0x15683)
        #expect(SymbolBuilder.versionBits(40) == 0x28C69)
    }

    @Test func alignmentPatternCentres() {
        // Annex E, Table E.1.
        #expect(SymbolBuilder.alignmentCentres(version: 1) == [])
        #expect(SymbolBuilder.alignmentCentres(version: 2) == [6, 18])
        #expect(SymbolBuilder.alignmentCentres(version: 7) == [6, 22, 38])
        #expect(SymbolBuilder.alignmentCentres(version: 15) == [6, 26, 48, 70])
        #expect(SymbolBuilder.alignmentCentres(version: 32) == [6, 34, 60, 86, 112, 138])
        #expect(SymbolBuilder.alignmentCentres(version: 36) == [6, 24, 50, 76, 102, 128, 154])
        #expect(SymbolBuilder.alignmentCentres(version: 40) == [6, 30, 58, 86, 114, 142, 170])
    }

    @Test func byteModeCapacities() {
        // Table 7, byte-mode column.
        let table: [(Int, ECC, Int)] = [
            (1, .low, 17), (1, .medium, 14), (1, .quartile, 11), (1, .high, 7),
            (5, .medium, 84), (10, .medium, 213), (20, .medium, 666),
            (40, .low, 2953), (40, .medium, 2331), (40, .quartile, 1663), (40, .high, 1273),
        ]
        for (v, ecc, bytes) in table {
            #expect(Capacity.byteCapacity(version: v, ecc: ecc) == bytes, "\(v)-\(ecc)")
        }
        // Table 1: codewords per version.
        #expect(Capacity.totalCodewords(version: 1) == 26)
        #expect(Capacity.totalCodewords(version: 7) == 196)
        #expect(Capacity.totalCodewords(version: 40) == 3706)
    }

    @Test func versionIsTheSmallestThatFits() throws {
        #expect(try QRCode.matrix(String(repeating: "a", count: 14)).version == 1)
        #expect(try QRCode.matrix(String(repeating: "a", count: 15)).version == 2)
        #expect(try QRCode.matrix(String(repeating: "a", count: 17), ecc: .low).version == 1)
        #expect(try QRCode.matrix("", ecc: .high).size == 21)
    }

    @Test func textThatDoesNotFitIsAnError() {
        #expect(throws: QRError.tooLong(bytes: 2332, capacity: 2331)) {
            try QRCode.matrix(String(repeating: "x", count: 2332))
        }
        #expect(throws: QRError.tooLong(bytes: 1274, capacity: 1273)) {
            try QRCode.matrix(String(repeating: "x", count: 1274), ecc: .high)
        }
        #expect((try? QRCode.matrix(String(repeating: "x", count: 2953), ecc: .low))?.version == 40)
    }

    @Test func functionPatternsAreInPlace() throws {
        let m = try QRCode.matrix("pingtxt")
        // Finder corners dark, separators light, timing alternates, dark module.
        for (x, y) in [(0, 0), (6, 6), (m.size - 1, 0), (0, m.size - 1)] { #expect(m[x, y]) }
        #expect(!m[7, 7] && !m[m.size - 8, 7] && !m[7, m.size - 8])
        for i in 8..<(m.size - 8) {
            #expect(m[i, 6] == (i % 2 == 0))
            #expect(m[6, i] == (i % 2 == 0))
        }
        #expect(m[8, m.size - 8])
    }

    @Test func svgIsOnePathWithQuietZoneAndLabel() throws {
        let m = try QRCode.matrix("hello")
        let svg = try QRCode.svg("hello", moduleSize: 5)
        let side = m.size + 8
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\""))
        #expect(svg.contains("width=\"\(side * 5)\" height=\"\(side * 5)\""))
        #expect(svg.contains("role=\"img\"") && svg.contains("aria-label=\"QR code\""))
        #expect(svg.contains("shape-rendering=\"crispEdges\""))
        #expect(svg.components("<path").count == 1)
        var dark = 0
        for y in 0..<m.size { for x in 0..<m.size where m[x, y] { dark += 1 } }
        #expect(svg.components("h1v1h-1z").count == dark)
        // The top-left finder's corner sits after the 4-module quiet zone.
        #expect(svg.contains("d=\"M4 4h1v1h-1z"))
    }
}

extension String {
    /// Occurrences of `needle` (no Foundation here).
    func components(_ needle: String) -> [Int] {
        let h = Array(utf8), n = Array(needle.utf8)
        var hits: [Int] = []
        var i = 0
        while i + n.count <= h.count {
            if Array(h[i..<i + n.count]) == n { hits.append(i); i += n.count } else { i += 1 }
        }
        return hits
    }
}
