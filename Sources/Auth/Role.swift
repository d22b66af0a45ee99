/// A user's role. `readonly` users can never act with write scope, whatever
/// token they hold (see `Scope.effective`).
public enum Role: String, Sendable, Codable, CaseIterable {
    case admin
    case readonly
}
