import Core
import Store

/// `push` rows: relay messages, sent in requests of at most 500 (SPEC §6).
/// Each claim is sent on its own short-lived thread so a slow relay never
/// holds up webhooks claimed beside it. A message past its `expires_at` is
/// not sent (it fails as expired). An alert to a phone whose user is in
/// quiet hours is made passive and silent first (`quietHours`).
/// Per-message results decide each row;
/// `invalid_token` removes the phone; a 401 registers again once and retries.
public struct PushTransport: DeliveryTransport {
    public let name = "push"
    let service: PushService
    static let batchSize = 500

    public init(service: PushService) { self.service = service }

    public func deliver(_ rows: [OutboxRecord], report: @escaping @Sendable (Int64, AttemptVerdict) -> Void) {
        let service = self.service
        startThread(name: "push-send") { Self.send(rows, service: service, report: report) }.detach()
    }

    static func send(_ rows: [OutboxRecord], service: PushService, report: @escaping @Sendable (Int64, AttemptVerdict) -> Void) {
        guard service.settings.enabled else {
            for r in rows { report(r.id, .permanent(error: "mobile push is turned off")) }
            return
        }
        var messages: [(row: OutboxRecord, id: String, json: JSON)] = []
        let now = Time.now()
        let quiet = quietHours(rows, service: service)
        for r in rows {
            guard var json = try? JSON.parse(r.payload), let id = json["id"]?.stringValue else {
                report(r.id, .permanent(error: "unreadable payload"))
                continue
            }
            // Past its `expires_at` the platform would drop it anyway; for a
            // sign-in approval (120 s) a late retry would show a dead request.
            if let expires = json["expires_at"]?.intValue, expires <= now {
                report(r.id, .permanent(error: "expired before it could be delivered"))
                continue
            }
            if let device = r.deviceID, let q = quiet[device], Self.quiets(json, q, at: now) { json = PushMessages.quieted(json) }
            messages.append((r, id, json))
        }
        var start = 0
        while start < messages.count {
            let batch = Array(messages[start..<min(start + batchSize, messages.count)])
            start += batchSize
            sendBatch(batch, service: service, report: report)
        }
    }

    /// Quiet hours are decided here, when a message leaves, not when it was
    /// queued: a push queued at 21:59 that waits for a retry until 22:01
    /// arrives quiet, and one queued at night and retried after the quiet
    /// hours ended arrives as loud as its priority says. The stored payload
    /// is never changed, so each attempt decides afresh. Unreadable quiet
    /// hours (a database error) leave the pushes as they are: loud rather
    /// than late.
    static func quietHours(_ rows: [OutboxRecord], service: PushService) -> [Int64: QuietHours] {
        guard rows.contains(where: { $0.deviceID != nil }) else { return [:] }
        do {
            return try service.quietHours.enabledByDevice()
        } catch {
            Log.shared.warn("quiet hours unreadable: pushes go out unchanged", ["error": "\(error)"])
            return [:]
        }
    }

    /// Only alerts carry a priority; sign-in approvals (the user is at the
    /// keyboard) and Live Activity updates are never quieted.
    static func quiets(_ message: JSON, _ q: QuietHours, at now: Int64) -> Bool {
        guard message["kind"]?.stringValue == "alert", let p = message["payload"]?["priority"]?.intValue else { return false }
        return q.quiets(priority: Int(p), at: now)
    }

    private static func sendBatch(_ batch: [(row: OutboxRecord, id: String, json: JSON)], service: PushService,
                                  report: @escaping @Sendable (Int64, AttemptVerdict) -> Void) {
        func all(_ v: AttemptVerdict) { for m in batch { report(m.row.id, v) } }
        var credentials: (key: String, settings: PushSettings)
        switch service.hubKey() {
        case .success(let k): credentials = k
        case .failure(let e): return all(.temporary(error: "not registered with the relay: \(e.message)", retryAfter: nil))
        }
        var outcome = service.relay.send(relayURL: credentials.settings.relayURL, hubKey: credentials.key,
                                         hubID: credentials.settings.hubID, messages: batch.map(\.json))
        if case .unauthorized = outcome {
            // The relay forgot us (or was reset): register again once, then retry.
            switch service.register(replacing: credentials.key) {
            case .success(let k): credentials = k
            case .failure(let e): return all(.temporary(error: "relay refused the hub key; registering again failed: \(e.message)",
                                                        retryAfter: nil))
            }
            outcome = service.relay.send(relayURL: credentials.settings.relayURL, hubKey: credentials.key,
                                         hubID: credentials.settings.hubID, messages: batch.map(\.json))
        }
        switch outcome {
        case .unauthorized:
            all(.temporary(error: "relay refused the hub key twice", retryAfter: nil))
        case .failed(let v):
            all(v)
        case .results(let results):
            for m in batch {
                guard let r = results[m.id] else {
                    report(m.row.id, .temporary(error: "relay gave no result for \(m.id)", retryAfter: nil))
                    continue
                }
                switch r.status {
                case "sent":
                    report(m.row.id, .sent)
                case "invalid_token":
                    if let d = m.row.deviceID { service.dropDevice(d) }
                    report(m.row.id, .permanent(error: "invalid_token: the phone was removed"))
                default:
                    report(m.row.id, .temporary(error: "relay: \(r.error ?? r.status)", retryAfter: nil))
                }
            }
        }
    }
}
