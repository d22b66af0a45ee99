import Core

/// `email`: `to` (one address or a list). Validated and stored; sending over
/// SMTP is a later slice of issue 5, so no HTTP request is built.
public struct EmailChannel: ChannelSender {
    public static let secretKeys: [String] = []
    let to: [String]

    public init(config f: JSONFields) throws(JSONFieldError) {
        let list: [String]
        if case .string(let s)? = f.object["to"] { list = [s] } else { list = try f.stringArray("to") ?? [] }
        guard !list.isEmpty, list.count <= 50 else {
            throw JSONFieldError(field: f.name("to"), message: "\(f.name("to")) must name 1 to 50 email addresses.")
        }
        for (i, a) in list.enumerated() where !Validate.email(a) {
            throw JSONFieldError(field: "\(f.name("to"))[\(i)]", message: "\(f.name("to"))[\(i)] is not an email address.")
        }
        to = list
    }

    public func request(for n: Notification) -> OutboundRequest? { nil }
}
