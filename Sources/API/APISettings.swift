/// What the API layer needs from the configuration; the executable fills it
/// so this module does not depend on how configuration is read.
public struct APISettings: Sendable {
    public var hubName: String = "pingtxt hub"
    public var publicURL: String = "http://127.0.0.1:8080"
    /// `/metrics` without a token.
    public var metricsPublic: Bool = false
    public var version: String = PingtxtVersion.current

    public init() {}
}

public enum PingtxtVersion {
    public static let current = "0.1.0"
}
