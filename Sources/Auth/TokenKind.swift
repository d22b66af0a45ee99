/// The kinds of bearer token, told apart by prefix so a token is
/// recognisable in logs, secret scanners and support requests, and so an
/// endpoint can refuse the wrong kind before any database lookup.
public enum TokenKind: String, Sendable, CaseIterable {
    case apiToken = "pmk_"
    case oauthAccess = "pma_"
    case oauthRefresh = "pmr_"
    case agent = "pmg_"

    /// The prefix, e.g. "pmk_".
    public var prefix: String { rawValue }

    /// The kind named by the token's prefix, or nil. Says nothing about
    /// whether the rest of the token is well formed.
    public static func of(_ token: String) -> TokenKind? {
        let utf8 = token.utf8
        guard utf8.count >= 4 else { return nil }
        for kind in allCases where utf8.starts(with: kind.rawValue.utf8) {
            return kind
        }
        return nil
    }
}
