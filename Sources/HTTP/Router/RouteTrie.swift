/// The parameterised routes as a tree of path segments, so a request walks
/// its own segments instead of trying every pattern: with some 200 routes a
/// linear scan (copying each route and percent-decoding parameters of
/// patterns that failed later) was a third of the hub's CPU under a flood
/// of heartbeat pings (`/ping/{key}`).
///
/// The answer is the one the linear scan gives: among the routes whose
/// pattern matches, the highest score (literal segments matched), the first
/// registered on a tie. A path can match through a literal and through a
/// parameter edge at the same depth, so the walk follows both.
struct RouteTrie: Sendable {
    private struct Node: Sendable {
        /// Keyed by Substring so a request's segment is looked up as it is,
        /// without a String made for it (a ping key is past the 15 bytes a
        /// String holds inline, so that was an allocation per ping).
        var literals: [Substring: Int] = [:]
        var parameter: Int?
        /// Indices of the routes whose pattern ends here, in registration order.
        var routes: [Int] = []
    }

    private var nodes = [Node()]

    /// Adds route number `index` with its pattern's segments.
    mutating func insert(_ pattern: RoutePattern, index: Int) {
        var at = 0
        for segment in pattern.segments {
            switch segment {
            case .literal(let text):
                if let next = nodes[at].literals[Substring(text)] {
                    at = next
                } else {
                    nodes.append(Node())
                    nodes[at].literals[Substring(text)] = nodes.count - 1
                    at = nodes.count - 1
                }
            case .parameter:
                if let next = nodes[at].parameter {
                    at = next
                } else {
                    nodes.append(Node())
                    nodes[at].parameter = nodes.count - 1
                    at = nodes.count - 1
                }
            }
        }
        nodes[at].routes.append(index)
    }

    /// The route a linear scan would pick among those that match
    /// `segments` and that `accepts`: the highest score, then the first
    /// registered. Kept during the walk, so a hit allocates nothing.
    func best(_ segments: [Substring], accepts: (Int) -> Bool) -> (route: Int, score: Int)? {
        var best: (route: Int, score: Int)?
        walk(0, segments, 0, 0) { route, score in
            guard accepts(route) else { return }
            if let b = best, b.score > score || (b.score == score && b.route < route) { return }
            best = (route, score)
        }
        return best
    }

    /// Every route whose pattern matches `segments`, in no particular order
    /// (for `405`'s `Allow`).
    func matches(_ segments: [Substring]) -> [Int] {
        var out: [Int] = []
        walk(0, segments, 0, 0) { route, _ in out.append(route) }
        return out
    }

    private func walk(_ at: Int, _ segments: [Substring], _ depth: Int, _ score: Int,
                      _ found: (Int, Int) -> Void) {
        // Fields read in place: a copy of the node would retain and release
        // its dictionary and arrays at every step.
        guard depth < segments.count else {
            for r in nodes[at].routes { found(r, score) }
            return
        }
        let part = segments[depth]
        if !nodes[at].literals.isEmpty, let next = nodes[at].literals[part] {
            walk(next, segments, depth + 1, score + 1, found)
        }
        // A parameter takes any segment but an empty one (`/a//b`).
        if let next = nodes[at].parameter, !part.isEmpty { walk(next, segments, depth + 1, score, found) }
    }
}
