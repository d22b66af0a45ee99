/// Reed–Solomon error correction over GF(256) as QR codes use it
/// (ISO/IEC 18004 §7.5.2): the field is built on the primitive polynomial
/// x⁸ + x⁴ + x³ + x² + 1 (0x11D) with α = 2, and the generator polynomial of
/// degree n is (x − α⁰)(x − α¹)…(x − αⁿ⁻¹).
enum ReedSolomon {
    /// exp[i] = αⁱ for i in 0..<510 (doubled so products need no modulo);
    /// log[x] = i with αⁱ = x (log[0] is unused).
    static let tables: (exp: [UInt8], log: [UInt8]) = {
        var exp = [UInt8](repeating: 0, count: 510)
        var log = [UInt8](repeating: 0, count: 256)
        var x = 1
        for i in 0..<255 {
            exp[i] = UInt8(x)
            log[x] = UInt8(i)
            x <<= 1
            if x & 0x100 != 0 { x ^= 0x11D }
        }
        for i in 255..<510 { exp[i] = exp[i - 255] }
        return (exp, log)
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return tables.exp[Int(tables.log[Int(a)]) + Int(tables.log[Int(b)])]
    }

    /// Coefficients of the monic generator polynomial of the given degree,
    /// highest power first, leading 1 left out (degree entries).
    static func generator(degree: Int) -> [UInt8] {
        // Start from the polynomial 1 and multiply by (x − αⁱ) each round;
        // in GF(2⁸) subtraction is XOR, so − αⁱ is αⁱ.
        var poly: [UInt8] = [1]
        for i in 0..<degree {
            let root = tables.exp[i]
            var next = [UInt8](repeating: 0, count: poly.count + 1)
            for (j, c) in poly.enumerated() {
                next[j] ^= c
                next[j + 1] ^= multiply(c, root)
            }
            poly = next
        }
        return Array(poly.dropFirst())
    }

    /// The remainder of data(x)·xⁿ divided by the generator: the n error
    /// correction codewords that follow `data` in its block.
    static func remainder(_ data: [UInt8], degree: Int) -> [UInt8] {
        let gen = generator(degree: degree)
        var rem = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ rem[0]
            rem.removeFirst()
            rem.append(0)
            for i in 0..<degree { rem[i] ^= multiply(gen[i], factor) }
        }
        return rem
    }
}
