/// A refused alerting operation: the API maps these to 404 / 409.
public enum NotifyError: Error, Equatable {
    case notFound(String)
    case conflict(code: String, message: String)
}
