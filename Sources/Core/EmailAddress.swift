/// The one plausibility rule for email addresses the hub stores: users'
/// emails, and the addresses channels name (a `mobile` channel names users,
/// so it must accept every address a user can have). `local@domain`, both
/// parts non-empty, the domain not starting or ending with a dot, at most
/// 254 bytes, no spaces, controls or `<`, `>`, `,` (they would break lists
/// and headers). Deliverability is the mail server's business.
public enum EmailAddress {
    public static func isPlausible(_ s: String) -> Bool {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        let badChar = s.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || $0 == "<" || $0 == ">" || $0 == "," }
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && !badChar && s.utf8.count <= 254
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
    }
}
