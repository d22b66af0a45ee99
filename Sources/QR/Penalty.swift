/// The mask evaluation of ISO/IEC 18004 §7.8.3 (Table 11): lower is better.
enum Penalty {
    static func score(_ m: QRMatrix) -> Int {
        let n = m.size
        var total = 0
        // N1 (runs of five or more) and N3 (finder-like 1:1:3:1:1 with four
        // light modules on one side), along rows and then columns.
        for horizontal in [true, false] {
            for a in 0..<n {
                var line = [Bool](repeating: false, count: n)
                for b in 0..<n { line[b] = horizontal ? m[b, a] : m[a, b] }
                total += runs(line) + finderLike(line)
            }
        }
        // N2: every 2×2 block of one colour.
        for y in 0..<(n - 1) {
            for x in 0..<(n - 1) {
                let c = m[x, y]
                if c == m[x + 1, y] && c == m[x, y + 1] && c == m[x + 1, y + 1] { total += 3 }
            }
        }
        // N4: 10 points for each full 5 % the dark share is away from 50 %.
        var dark = 0
        for v in m.modules where v { dark += 1 }
        let cells = n * n
        // |dark/cells − 1/2| in steps of 5 % is |20·dark − 10·cells| / cells.
        total += (abs(dark * 20 - cells * 10) / cells) * 10
        return total
    }

    /// 3 points for a run of five, plus one for each module beyond five.
    static func runs(_ line: [Bool]) -> Int {
        var score = 0
        var length = 1
        for i in 1...line.count {
            if i < line.count && line[i] == line[i - 1] {
                length += 1
            } else {
                if length >= 5 { score += 3 + (length - 5) }
                length = 1
            }
        }
        return score
    }

    /// 40 points for each dark-light-dark³-light-dark with four light
    /// modules before or after it; the quiet zone counts as light.
    static func finderLike(_ line: [Bool]) -> Int {
        let core: [Bool] = [true, false, true, true, true, false, true]
        func light(_ i: Int) -> Bool { i < 0 || i >= line.count || !line[i] }
        var score = 0
        for start in 0...(line.count - 7) {
            var match = true
            for k in 0..<7 where line[start + k] != core[k] { match = false; break }
            guard match else { continue }
            let before = (1...4).allSatisfy { light(start - $0) }
            let after = (0..<4).allSatisfy { light(start + 7 + $0) }
            if before || after { score += 40 }
        }
        return score
    }
}
