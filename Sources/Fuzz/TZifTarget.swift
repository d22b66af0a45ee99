import Core

/// Target `tzif`: the TZif reader (zone files, which a container image or a
/// mounted volume may hold anything in). A zone that parses gives an offset
/// inside RFC 8536's range (-25 h, 26 h), and local parts that are a real date, at every instant
/// tried, the extremes included.
enum TZifTarget {
    private static let instants: [Int64] = [Int64(Int32.min) - 1, -1, 0, 1_774_699_200, Int64(Int32.max) + 1, 1 << 40]

    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        guard let zone = try? TimeZoneInfo.parse(tzif: Array(input), name: "Fuzz/Zone") else { return }
        for t in instants {
            let offset = zone.offset(at: t)
            precondition((-89_999...93_599).contains(offset), "offset \(offset) out of range (RFC 8536 §3.2)")
            let p = zone.localParts(t)
            precondition((1...12).contains(p.month) && (1...31).contains(p.day) && (0...23).contains(p.hour),
                         "local parts are not a date")
        }
    }
}
