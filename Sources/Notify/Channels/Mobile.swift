import Core

/// `mobile`: `users` (emails; empty = every user), optional `alarm`
/// (SPEC §15: its pushes carry `"alarm": true` and are at least
/// time-sensitive). Delivery goes through the push relay (`PushService`).
public struct MobileChannel: ChannelSender {
    public static let secretKeys: [String] = []
    let users: [String]
    let alarm: Bool

    public init(config f: JSONFields) throws(JSONFieldError) {
        let list = try f.stringArray("users") ?? []
        for (i, a) in list.enumerated() where !EmailAddress.isPlausible(a) {
            throw JSONFieldError(field: "\(f.name("users"))[\(i)]", message: "\(f.name("users"))[\(i)] is not an email address.")
        }
        users = list
        alarm = try f.bool("alarm") ?? false
    }

    public func request(for n: Notification) -> OutboundRequest? { nil }
}
