/// Why an authentication or account operation was refused. The API layer
/// maps each case to its status (401, 403, 400, 404, 409).
public enum AuthError: Error, Sendable, Equatable {
    /// No usable credential (401).
    case unauthenticated(String)
    /// Authenticated but not allowed (403), with a snake_case code.
    case forbidden(code: String, message: String)
    /// A field is invalid (400).
    case invalid(field: String, message: String)
    /// A state conflict such as a duplicate email or the last admin (409).
    case conflict(code: String, message: String)
    /// The thing does not exist, or the caller may not know it does (404).
    case notFound(String)
}
