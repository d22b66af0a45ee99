import Core
import Store

/// Stable keys of monitors, channels, maintenance windows, escalation
/// policies and status pages (SPEC §13): the one service the API's handlers
/// and `PUT …/by-key/{key}` use to read, check and set them.
public struct ObjectKeyService: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    public func key(_ kind: KeyedKind, id: Int64) throws -> String? {
        try database.read { c in try ObjectKeys.key(c, kind, id: id) }
    }

    public func keys(_ kind: KeyedKind) throws -> [Int64: String] {
        try database.read { c in try ObjectKeys.keys(c, kind) }
    }

    public func id(_ kind: KeyedKind, key: String) throws -> Int64? {
        try database.read { c in try ObjectKeys.id(c, kind, key: key) }
    }

    /// Refuses, before anything is written, a key another object of the kind
    /// already holds (`409 key_taken` naming the field).
    public func checkFree(_ kind: KeyedKind, _ change: KeyChange, for id: Int64?) throws {
        guard case .set(let key) = change, let holder = try self.id(kind, key: key), holder != id else { return }
        throw Self.taken(kind, key)
    }

    /// Applies the body's key change to a stored object. The unique index is
    /// the final word when two requests race for one key.
    public func apply(_ kind: KeyedKind, id: Int64, _ change: KeyChange) throws {
        let key: String?
        switch change {
        case .absent: return
        case .clear: key = nil
        case .set(let k): key = k
        }
        do {
            try database.write { c in _ = try ObjectKeys.set(c, kind, id: id, key: key) }
        } catch let e as StoreError where e.isUniqueViolation || e.isConstraint {
            throw Self.taken(kind, key ?? "")
        }
    }

    static func taken(_ kind: KeyedKind, _ key: String) -> MonitoringError {
        .fieldConflict(field: "key", code: "key_taken",
                       message: "Another \(kind.rawValue.replacingUnderscores) already has the key \"\(key)\".")
    }

    /// Gives every object without a key one made from its name, unique per
    /// kind (`pingtxt export` first, so the hub and the file agree). One
    /// transaction: a concurrent create of the same key makes it fail as a
    /// whole rather than half-assign. Returns how many were assigned per kind.
    public func assignMissing() throws -> [KeyedKind: Int] {
        try database.write { c in
            var counts: [KeyedKind: Int] = [:]
            for kind in KeyedKind.allCases {
                var taken = Set(try ObjectKeys.keys(c, kind).values)
                let fallback = kind.rawValue.replacingUnderscores.replacingSpaces
                for (id, name) in try ObjectKeys.unkeyed(c, kind) {
                    let key = KeyRules.unique(KeyRules.slug(name, fallback: fallback), taken: taken)
                    taken.insert(key)
                    try ObjectKeys.set(c, kind, id: id, key: key)
                    counts[kind, default: 0] += 1
                }
            }
            return counts
        }
    }
}

extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
    var replacingSpaces: String { String(map { $0 == " " ? "-" : $0 }) }
}
