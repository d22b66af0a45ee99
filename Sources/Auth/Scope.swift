/// What a token may do. Ordered so that `write` implies `read`: checks are a
/// single comparison and a new, wider scope would slot in above.
public enum Scope: String, Sendable, Codable, Comparable, CaseIterable {
    case read
    case write

    private var rank: Int {
        switch self {
        case .read: 0
        case .write: 1
        }
    }

    public static func < (a: Scope, b: Scope) -> Bool { a.rank < b.rank }

    /// Whether a token of this scope may do something that needs `needed`.
    public func allows(_ needed: Scope) -> Bool { self >= needed }

    /// The effective scope for a user of a role: readonly users are always read.
    /// Applied at use time as well as at issue time, so demoting a user takes
    /// effect on tokens issued before the demotion.
    public static func effective(_ requested: Scope, role: Role) -> Scope {
        switch role {
        case .admin: requested
        case .readonly: .read
        }
    }

    /// OAuth form (RFC 6749 §3.3, space-separated): "read" or "read write".
    /// `write` lists `read` too, so clients that check for "read" in the
    /// granted scope string see it.
    public var oauthString: String {
        switch self {
        case .read: "read"
        case .write: "read write"
        }
    }

    /// Parses an OAuth scope string: space-separated scope tokens, in any
    /// order, duplicates allowed; the result is the widest one named.
    /// Any unknown token, or no token at all, gives nil: an unknown scope is
    /// an `invalid_scope` error, not something to ignore silently.
    public init?(oauth string: String) {
        var widest: Scope?
        for part in string.split(separator: " ", omittingEmptySubsequences: true) {
            guard let scope = Scope(rawValue: String(part)) else { return nil }
            widest = max(widest ?? scope, scope)
        }
        guard let widest else { return nil }
        self = widest
    }

    /// Same as `init?(oauth:)`.
    public static func parseOAuth(_ string: String) -> Scope? { Scope(oauth: string) }
}
