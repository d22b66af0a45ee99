import Core
import Net
import Store
import Synchronization

/// The alerting runtime: the channel cache (the recorder's `EventSink`), the
/// delivery worker, the reminder job (which also prunes the outbox), and the
/// channel operations the API needs. Every channel write reloads the cache
/// in its transaction, so routing and reminders always see the stored channels.
public final class NotifyService: Sendable {
    public let database: Database
    public let notifier: Notifier
    let engine: ClientEngine
    let worker: DeliveryWorker
    let reminders: ReminderJob

    /// `outboxRetentionDays`: settled (sent or failed) outbox rows older than
    /// this are deleted; the hub passes `[retention] raw_days`.
    public init(database: Database, hubName: String = "pingtxt", extraCAFile: String? = nil, outboxRetentionDays: Int64 = 7) {
        self.database = database
        notifier = Notifier(hubName: hubName)
        engine = ClientEngine(loops: 1, maxConcurrent: 64, extraCAFile: extraCAFile)
        worker = DeliveryWorker(database: database, transports: [HTTPTransport(engine: engine)])
        let worker = self.worker
        reminders = ReminderJob(database: database, notifier: notifier, outboxRetentionDays: outboxRetentionDays,
                                wake: { worker.wake() })
        notifier.setOnQueued { worker.wake() }
        reminders.setQuietCheck { [weak self] id, at in self?.isQuiet(id, at: at) ?? false }
    }

    /// Loads the channels (call before monitoring starts) and starts delivering.
    public func start() throws {
        try database.read { c in try notifier.reload(c) }
        let released = try database.write { c in try Outbox.releaseClaims(c, now: Time.now()) }
        if released > 0 { Log.shared.info("notifications interrupted by a restart are sent again", ["rows": "\(released)"]) }
        worker.start()
        reminders.start()
    }

    /// Whether a monitor is quiet (in maintenance or muted) at a time: no
    /// reminders then, and its outage stays off the Live Activity. Set by the
    /// wiring (the maintenance calendar lives in Monitoring).
    let quiet = Mutex<@Sendable (_ monitorID: Int64, _ at: Int64) -> Bool>({ _, _ in false })
    public func setQuietCheck(_ f: @escaping @Sendable (_ monitorID: Int64, _ at: Int64) -> Bool) { quiet.withLock { $0 = f } }
    func isQuiet(_ monitorID: Int64, at: Int64) -> Bool { quiet.withLock { $0 }(monitorID, at) }

    public func stop() {
        reminders.stop()
        worker.stop()
        engine.shutdown()
    }

    public func all() throws -> [ChannelRecord] { try database.read { try Channels.all($0) } }
    public func find(_ id: Int64) throws -> ChannelRecord? { try database.read { try Channels.find($0, id: id) } }
    public func delivery(_ id: Int64) throws -> ChannelDelivery { try database.read { try Channels.delivery($0, channelID: id) } }

    public func create(_ r: ChannelRecord) throws -> ChannelRecord {
        try database.write { c in
            let out = try Channels.insert(c, r, now: Time.now())
            try notifier.reload(c)
            return out
        }
    }

    public func update(_ r: ChannelRecord) throws -> ChannelRecord? {
        try database.write { c in
            let out = try Channels.update(c, r, now: Time.now())
            try notifier.reload(c)
            return out
        }
    }

    public func delete(_ id: Int64) throws -> Bool {
        try database.write { c in
            let gone = try Channels.delete(c, id: id)
            try notifier.reload(c)
            return gone
        }
    }

    /// Queues a test notification (no event, no filters): one row, or one per
    /// phone for `mobile` (none when no phone is enrolled).
    public func sendTest(_ channel: Channel) throws -> [Int64] {
        let now = Time.now()
        let ids = try database.write { c in
            try notifier.queue(c, channel: channel,
                               notification: .test(channelName: channel.name, at: now, outboxID: 0, hubName: notifier.hubName),
                               eventID: nil, now: now)
        }
        if !ids.isEmpty { worker.wake() }
        return ids
    }
}
