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

    /// What the service said, for services without a documented error
    /// format of their own (webhooks, Teams, Mattermost, ntfy): a JSON
    /// body's `description`, `message`, `error.message` or `error` string,
    /// else a plain-text body (Slack's `channel_not_found`). HTML pages
    /// (a proxy's error page) say nothing an admin can use: nil.
    public var reason: String? {
        if let j = json, case .object = j {
            for value in [j["description"], j["message"], j["error"]?["message"], j["error"], j["error_description"]] {
                if let s = value?.stringValue, !s.isEmpty { return s }
            }
            return nil
        }
        let text = bodyText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if text.isEmpty || text.hasPrefix("<") { return nil }
        return text
    }

    /// A wait in seconds given as a JSON number (Discord's `retry_after`
    /// is a float such as `0.42`), rounded up so the retry is never early.
    public static func seconds(_ value: JSON?) -> Int64? {
        switch value {
        case .int(let i)? where i >= 0: return i
        case .double(let d)? where d.isFinite && d >= 0 && d < 1e9: return Int64(d.rounded(.up))
        default: return nil
        }
    }

    /// `HTTP 400` followed by the service's reason when there is one, the
    /// reason made one line and cut to 200 characters and the ellipsis (it
    /// is shown on the notify page and logged).
    public static func describe(status: Int, reason: String?) -> String {
        guard let reason, !reason.isEmpty else { return "HTTP \(status)" }
        var line = ""
        for scalar in reason.unicodeScalars {
            line.unicodeScalars.append(JSONText.isControl(scalar) ? " " : scalar)
        }
        let trimmed = line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return "HTTP \(status): " + TextLimit.cut(trimmed, to: 201, in: .characters)
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
