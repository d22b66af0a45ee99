import Core

/// `mobile`: `users` (emails; empty = every user). Stored; delivery through
/// the push relay is a later slice of issue 5.
public struct MobileChannel: ChannelSender {
    public static let secretKeys: [String] = []
    let users: [String]

    public init(config f: JSONFields) throws(JSONFieldError) {
        let list = try f.stringArray("users") ?? []
        for (i, a) in list.enumerated() where !EmailAddress.isPlausible(a) {
            throw JSONFieldError(field: "\(f.name("users"))[\(i)]", message: "\(f.name("users"))[\(i)] is not an email address.")
        }
        users = list
    }

    public func request(for n: Notification) -> OutboundRequest? { nil }
}
