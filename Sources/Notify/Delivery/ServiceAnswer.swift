import Core

/// A service's HTTP answer to one delivery attempt, as the channel type
/// that built the request reads it (`ChannelSender.verdict(for:)`): each
/// service puts its rate limit and its reason for a refusal somewhere of
/// its own (Discord's `retry_after`, Telegram's `parameters.retry_after`
/// and `description`, Slack's plain-text `channel_not_found`).
public struct ServiceAnswer: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    /// The body as received (the transport keeps at most 64 KiB).
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body as JSON, when it is JSON.
    public var json: JSON? { try? JSON.parse(bodyText) }

    /// `HTTP 400` followed by the service's reason when there is one, the
    /// reason cut to 200 characters and made one line (it is shown on the
    /// notify page and logged).
    public static func describe(status: Int, reason: String?) -> String {
        guard let reason, !reason.isEmpty else { return "HTTP \(status)" }
        var line = ""
        for scalar in reason.unicodeScalars {
            line.unicodeScalars.append(JSONText.isControl(scalar) ? " " : scalar)
        }
        let trimmed = line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return "HTTP \(status): " + (trimmed.count > 200 ? String(trimmed.prefix(200)) + "…" : trimmed)
    }

    /// The verdict for services with no answer format of their own: 2xx
    /// sent; 408, 425, 429 and 5xx retried (honouring `Retry-After`);
    /// other statuses permanent. `reason` is what the service said, if anything.
    public func genericVerdict(reason: String? = nil, retryAfter: Int64? = nil) -> AttemptVerdict {
        switch Backoff.classify(status: status) {
        case .sent: return .sent
        case .permanent: return .permanent(error: Self.describe(status: status, reason: reason))
        case .retry:
            return .temporary(error: Self.describe(status: status, reason: reason),
                              retryAfter: retryAfter ?? Backoff.parseRetryAfter(header("Retry-After")))
        }
    }
}
