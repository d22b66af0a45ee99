/// A parsed path pattern such as `/api/users/{id}`.
struct RoutePattern: Sendable {
    enum Segment: Sendable {
        case literal(String)
        case parameter(String)
    }

    let text: String
    let segments: [Segment]
    /// The parameters' names in order (shared by every match).
    let names: [String]

    var hasParameters: Bool { !names.isEmpty }

    init(_ text: String) {
        self.text = text
        segments = RoutePattern.split(text).map { seg in
            if seg.hasPrefix("{") && seg.hasSuffix("}") {
                return .parameter(String(seg.dropFirst().dropLast()))
            }
            return .literal(String(seg))
        }
        names = segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// Splits a path on `/`; an empty path or `/` is no segments. Empty
    /// segments (`//`) are kept so `/a//b` does not alias `/a/b`.
    static func split(_ path: String) -> [Substring] {
        // On the UTF-8 bytes: `/` is one byte and never part of another
        // character, and splitting by Character was most of a match's cost.
        let utf8 = path.utf8
        var start = utf8.startIndex
        if start < utf8.endIndex, utf8[start] == UInt8(ascii: "/") { start = utf8.index(after: start) }
        if start == utf8.endIndex { return [] }
        var out: [Substring] = []
        out.reserveCapacity(6)  // one allocation for common paths, not a regrowth per segment
        var segment = start
        var i = start
        while i < utf8.endIndex {
            if utf8[i] == UInt8(ascii: "/") {
                out.append(path[segment..<i])
                segment = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        out.append(path[segment..<utf8.endIndex])
        return out
    }

    /// The parameters and a specificity score (literal matches count), or nil.
    func match(_ path: [Substring]) -> (PathParameters, Int)? {
        guard path.count == segments.count else { return nil }
        var values: [String] = []
        if !names.isEmpty { values.reserveCapacity(names.count) }
        var score = 0
        for (seg, part) in zip(segments, path) {
            switch seg {
            case .literal(let lit):
                guard lit == part else { return nil }
                score += 1
            case .parameter:
                guard !part.isEmpty else { return nil }
                values.append(FormCoding.percentDecode(part, plusAsSpace: false))
            }
        }
        return (PathParameters(names: names, values: values), score)
    }
}
