/// A parsed path pattern such as `/api/users/{id}`.
struct RoutePattern: Sendable {
    enum Segment: Sendable {
        case literal(String)
        case parameter(String)
    }

    let text: String
    let segments: [Segment]

    var hasParameters: Bool {
        segments.contains { if case .parameter = $0 { return true } else { return false } }
    }

    init(_ text: String) {
        self.text = text
        segments = RoutePattern.split(text).map { seg in
            if seg.hasPrefix("{") && seg.hasSuffix("}") {
                return .parameter(String(seg.dropFirst().dropLast()))
            }
            return .literal(String(seg))
        }
    }

    /// Splits a path on `/`; an empty path or `/` is no segments. Empty
    /// segments (`//`) are kept so `/a//b` does not alias `/a/b`.
    static func split(_ path: String) -> [Substring] {
        var s = Substring(path)
        if s.hasPrefix("/") { s = s.dropFirst() }
        if s.isEmpty { return [] }
        return s.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// The parameters and a specificity score (literal matches count), or nil.
    func match(_ path: [Substring]) -> ([String: String], Int)? {
        guard path.count == segments.count else { return nil }
        var params: [String: String] = [:]
        var score = 0
        for (seg, part) in zip(segments, path) {
            switch seg {
            case .literal(let lit):
                guard lit == part else { return nil }
                score += 1
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                params[name] = FormCoding.percentDecode(part, plusAsSpace: false)
            }
        }
        return (params, score)
    }
}
