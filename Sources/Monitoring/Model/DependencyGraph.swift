import Core

/// The rules on `depends_on` (SPEC §12) that need the other monitors: every
/// parent exists, a monitor does not depend on itself, and no chain of
/// dependencies leads back to where it started (a cycle would let two
/// monitors hold each other's alerts forever). Pure over the edges; the
/// caller reads them in the transaction that writes the new ones.
public enum DependencyGraph {
    /// At most this many parents per monitor: each parent's result is read
    /// whenever a held alert is decided.
    public static let maxParents = 20

    /// `edges`: every stored (child, parent); `monitorID` nil for a monitor
    /// being created (nothing can depend on it yet, so no cycle).
    public static func check(monitorID: Int64?, parents: [Int64], existing: Set<Int64>,
                             edges: [(child: Int64, parent: Int64)]) throws(JSONFieldError) {
        for (i, p) in parents.enumerated() {
            if p == monitorID {
                throw JSONFieldError(field: "depends_on", message: "depends_on[\(i)]: a monitor cannot depend on itself.")
            }
            if !existing.contains(p) {
                throw JSONFieldError(field: "depends_on", message: "depends_on[\(i)]: no monitor with id \(p).")
            }
        }
        guard let monitorID else { return }
        // A cycle exists when the monitor is reachable from one of its new
        // parents through the stored edges (its own old edges left out).
        var graph: [Int64: [Int64]] = [:]
        for e in edges where e.child != monitorID { graph[e.child, default: []].append(e.parent) }
        var seen = Set<Int64>()
        var stack = parents
        while let next = stack.popLast() {
            if next == monitorID {
                throw JSONFieldError(field: "depends_on", message: "depends_on would make a cycle: monitor \(monitorID) depends on itself through its parents.")
            }
            if seen.insert(next).inserted { stack += graph[next] ?? [] }
        }
    }

    /// Parses the field: null or absent → nil (unchanged); else distinct
    /// positive ids, at most `maxParents`.
    public static func parse(_ value: JSON?) throws(JSONFieldError) -> [Int64]? {
        switch value {
        case nil, .null?:
            return nil
        case .array(let items)?:
            guard items.count <= maxParents else {
                throw JSONFieldError(field: "depends_on", message: "depends_on names at most \(maxParents) monitors.")
            }
            var ids: [Int64] = []
            for (i, item) in items.enumerated() {
                guard let n = item.intValue, n > 0 else {
                    throw JSONFieldError(field: "depends_on", message: "depends_on[\(i)] must be a monitor id.")
                }
                if !ids.contains(n) { ids.append(n) }
            }
            return ids
        default:
            throw JSONFieldError(field: "depends_on", message: "depends_on must be an array of monitor ids.")
        }
    }
}
