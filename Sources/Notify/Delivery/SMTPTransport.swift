import Core
import Mail
import Store
import Synchronization

/// `smtp` rows (email channels): each row becomes one message sent with our
/// own blocking `SMTPClient`. The sends run on a small pool of threads of
/// their own (at most `concurrency` at a time), so `deliver` returns at once
/// and the HTTP rows of the same claim start without waiting for the mails.
///
/// The Message-ID and `X-Pingtxt-Delivery` derive from the row alone (its id
/// and creation time, `<outbox-481.1764410520@domain-of-from>`), so every
/// retry of a row carries the same id and a duplicate after a crash is
/// recognisable; nothing random goes into them.
///
/// Verdicts: connection failures, timeouts and 4xx replies are temporary;
/// 5xx replies (a refused recipient, failed authentication), TLS
/// verification failures and a missing `[smtp]` are permanent.
public final class SMTPTransport: DeliveryTransport {
    public let name = "smtp"
    /// nil when `[smtp] host` is empty: every row fails with a clear message.
    let client: SMTPClient?
    let pool: WorkerPool

    public static let notConfigured = "email is not configured: set [smtp] host"

    public init(settings: SMTPSettings?, concurrency: Int = 4) {
        client = settings.map { SMTPClient(settings: $0) }
        pool = WorkerPool(threads: max(1, concurrency), name: "smtp")
    }

    /// Whether `[smtp]` is configured (account mails: recovery, invitations).
    public var isConfigured: Bool { client != nil }

    /// One account mail (password recovery, invitation), sent on the pool
    /// in the background: the page that asked for it answers at once and the
    /// same whether or not a mail goes out. Not in the outbox: the link
    /// expires long before a 24 h retry would help, and the person can ask
    /// again. A failure is logged (without the link).
    public func sendAccountMail(to address: String, subject: String, body: String) {
        guard let client else { return }
        pool.submit {
            do {
                let m = try SMTPMessage(from: client.settings.from, to: [address], subject: subject, body: body)
                try client.send(m, to: [address])
                Log.shared.info("account mail sent", ["subject": subject])
            } catch {
                Log.shared.warn("account mail failed", ["subject": subject, "error": "\(error)"])
            }
        }
    }

    /// Waits for sends in progress, then stops the threads.
    public func shutdown() { pool.shutdown() }

    public func deliver(_ rows: [OutboxRecord], report: @escaping @Sendable (Int64, AttemptVerdict) -> Void) {
        guard let client else {
            for row in rows { report(row.id, .permanent(error: Self.notConfigured)) }
            return
        }
        // Every row goes to the same server: once one cannot reach it, the
        // rest of this batch is rescheduled untried instead of each waiting
        // out its own timeout (the worker waits for the whole batch).
        let batch = BatchState()
        for row in rows {
            pool.submit {
                if let down = batch.unreachable.withLock({ $0 }) {
                    report(row.id, .temporary(error: down, retryAfter: nil))
                    return
                }
                let (verdict, serverDown) = Self.send(row, with: client)
                if serverDown, case .temporary(let error, _) = verdict {
                    batch.unreachable.withLock { if $0 == nil { $0 = error } }
                }
                report(row.id, verdict)
            }
        }
    }

    /// The first connection-level failure of one `deliver` call.
    final class BatchState: Sendable {
        let unreachable = Mutex<String?>(nil)
    }

    /// One row, start to finish, on the calling thread; `serverDown` when
    /// the server could not be reached or stopped answering (network error
    /// or timeout), as opposed to a reply about this message.
    static func send(_ row: OutboxRecord, with client: SMTPClient,
                     now: Int64 = Time.now()) -> (verdict: AttemptVerdict, serverDown: Bool) {
        guard let email = StoredEmail(row.payload) else { return (.permanent(error: "unreadable payload"), false) }
        let from = client.settings.from
        do {
            let message = try SMTPMessage(from: from, to: email.to, subject: email.subject, body: email.text, date: now,
                                          messageID: messageID(row: row, from: from), extraHeaders: [
                                              SMTPHeader("X-Pingtxt-Delivery", "outbox-\(row.id)"),
                                              // RFC 3834: keeps vacation responders from answering alerts.
                                              SMTPHeader("Auto-Submitted", "auto-generated"),
                                          ])
            try client.send(message, to: email.to)
            return (.sent, false)
        } catch {
            let verdict: AttemptVerdict = error.isTemporary ? .temporary(error: error.message, retryAfter: nil)
                : .permanent(error: error.message)
            return (verdict, error.kind == .network || error.kind == .timeout)
        }
    }

    /// `outbox-<id>.<created_at>@<domain of from>`: the creation time keeps
    /// ids apart when a hub starts over with a fresh database (row ids
    /// restart at 1).
    public static func messageID(row: OutboxRecord, from: String) -> String {
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        return "outbox-\(row.id).\(row.createdAt)@\(domain)"
    }
}

/// The `smtp` payload `EmailChannel` writes: `{"id", "to", "subject", "text"}`.
struct StoredEmail {
    let to: [String]
    let subject: String
    let text: String

    init?(_ payload: String) {
        guard let j = try? JSON.parse(payload), let list = j["to"]?.arrayValue, let subject = j["subject"]?.stringValue,
              let text = j["text"]?.stringValue else { return nil }
        let to = list.compactMap(\.stringValue)
        guard !to.isEmpty, to.count == list.count else { return nil }
        self.to = to
        self.subject = subject
        self.text = text
    }
}
