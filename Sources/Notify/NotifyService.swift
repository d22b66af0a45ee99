import Core
import Mail
import Net
import Store
import Synchronization

/// The alerting runtime: the channel cache (the recorder's `EventSink`), the
/// delivery worker, the reminder job (which also prunes the outbox), the
/// escalation job, and the channel and policy operations the API needs.
/// Every channel write reloads the cache in its transaction, so routing,
/// reminders and escalation always see the stored channels.
public final class NotifyService: Sendable {
    public let database: Database
    public let notifier: Notifier
    let engine: ClientEngine
    let smtp: SMTPTransport
    let worker: DeliveryWorker
    /// Final delivery outcomes per channel type since start (`/metrics`).
    public let counters = DeliveryCounters()
    /// Phones: push relay settings, per-phone rows, the Live Activity.
    public let push: PushService
    /// `GET /api/events`: what the hub raised, for an app that missed it.
    public let events: EventFeed
    /// Users' quiet hours (the push sender reads the same rows).
    public var quietHours: QuietHoursService { push.quietHours }
    let quiet: @Sendable (_ monitorID: Int64, _ at: Int64) -> Bool
    let reminders: ReminderJob
    /// Escalation steps after the first, on every hub (claimed per step).
    let escalation: EscalationJob
    /// The hubs sharing the database (alone on SQLite).
    let cluster: HubCluster

    /// `publicURL` is what the relay is told to show for this hub, and
    /// where notifications link back to (`Notification.pageURL`). `smtp`:
    /// the `[smtp]` server email channels send through; nil = email is not
    /// configured (email rows then fail, saying so). `outboxRetentionDays`:
    /// settled (sent or failed) outbox rows older than this are deleted; the
    /// hub passes `[retention] raw_days`.
    /// `quiet`: whether a monitor is quiet (in maintenance or muted) at a
    /// time: no reminders then, and its outage stays off the Live Activity
    /// (the maintenance calendar lives in Monitoring; the wiring passes it).
    public init(database: Database, hubName: String = "pingtxt", publicURL: String = "", extraCAFile: String? = nil,
                smtp: SMTPSettings? = nil, outboxRetentionDays: Int64 = 7,
                quiet: @escaping @Sendable (_ monitorID: Int64, _ at: Int64) -> Bool = { _, _ in false },
                cluster: HubCluster = .standalone()) {
        self.database = database
        self.cluster = cluster
        // Built first, shared by reference: what reads the channels and what
        // wakes the delivery worker exist before the pieces that use them.
        let channels = ChannelCache()
        let wakeup = Semaphore()
        let wake: @Sendable () -> Void = { wakeup.post() }
        self.quiet = quiet
        engine = ClientEngine(loops: 1, maxConcurrent: 64, extraCAFile: extraCAFile)
        push = PushService(database: database, engine: engine, hubName: hubName, publicURL: publicURL,
                           channels: { channels.current }, quiet: quiet, wake: wake)
        let notifier = Notifier(hubName: hubName, publicURL: publicURL, channels: channels, mobilePush: push, onQueued: wake)
        self.notifier = notifier
        events = EventFeed(database: database, publicURL: publicURL)
        self.smtp = SMTPTransport(settings: smtp)
        worker = DeliveryWorker(database: database,
                                transports: [HTTPTransport(engine: engine), PushTransport(service: push), self.smtp],
                                node: cluster.isShared ? cluster.nodeID : "", counters: counters, wakeup: wakeup,
                                channelType: { id in
                                    guard let id else { return "none" }
                                    return channels.current.first { $0.id == id }?.type.rawValue ?? "unknown"
                                })
        reminders = ReminderJob(database: database, notifier: notifier, outboxRetentionDays: outboxRetentionDays,
                                wake: wake, quiet: quiet, leads: { cluster.isLeader })
        escalation = EscalationJob(database: database, notifier: notifier, wake: wake, quiet: quiet)
    }

    /// Loads the channels (call before monitoring starts) and starts delivering.
    public func start() throws {
        try database.read { c in try notifier.reload(c) }
        try push.start()
        // Alone: every claim left is from this hub's previous life. Shared:
        // only its own and those of hubs that are gone; a live hub's claims
        // are rows it is sending right now.
        let (node, since) = cluster.isShared ? (cluster.nodeID, cluster.liveSince) : ("", Int64.max)
        let released = try database.write { c in try Outbox.releaseClaims(c, now: Time.now(), node: node, liveSince: since) }
        if released > 0 { Log.shared.info("notifications interrupted by a restart are sent again", ["rows": "\(released)"]) }
        worker.start()
        reminders.start()
        escalation.start()
    }

    func isQuiet(_ monitorID: Int64, at: Int64) -> Bool { quiet(monitorID, at) }

    /// Whether `[smtp]` is configured: password recovery and invitations
    /// exist only then (SPEC §15).
    public var sendsMail: Bool { smtp.isConfigured }

    /// Sends an account mail through the `[smtp]` server (`SMTPTransport`).
    public func sendAccountMail(to address: String, subject: String, body: String) {
        smtp.sendAccountMail(to: address, subject: subject, body: body)
    }

    /// After each cluster beat (hubs sharing a database): channels changed
    /// through another hub are loaded, and the leader hands the rows a dead
    /// hub was sending to the living (same ids, so receivers see one alert).
    public func clusterTick(changed: Bool) {
        guard cluster.isShared else { return }
        do {
            try database.read { c in try notifier.reload(c) }
            if cluster.isLeader {
                let released = try database.write { c in
                    try Outbox.releaseClaims(c, now: Time.now(), node: "", liveSince: cluster.liveSince)
                }
                if released > 0 {
                    Log.shared.info("notifications a stopped hub was sending are sent again", ["rows": "\(released)"])
                    worker.wake()
                }
            }
        } catch {
            Log.shared.warn("cluster refresh of notifications failed", ["error": "\(error)"])
        }
    }

    public func stop() {
        escalation.stop()
        reminders.stop()
        push.stop()
        worker.stop()
        engine.shutdown()
        // After the worker: it waits for every send it handed out.
        smtp.shutdown()
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

    /// Refused (`409 channel_in_use`) while an escalation policy names the
    /// channel: a step must not silently lose whom it pages.
    public func delete(_ id: Int64) throws -> Bool {
        try database.write { c in
            let naming = try EscalationPolicies.naming(c, channelID: id)
            if !naming.isEmpty {
                throw NotifyError.conflict(code: "channel_in_use", message: "Channel \(id) is a step of escalation policy "
                                           + naming.map { "\"\($0.name)\"" }.joined(separator: ", ")
                                           + "; remove it from the policy first.")
            }
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
            var test = Notification.test(channelName: channel.name, at: now, outboxID: 0, hubName: notifier.hubName)
            test.publicURL = notifier.publicURL
            return try notifier.queue(c, channel: channel, notification: test, eventID: nil, now: now)
        }
        if !ids.isEmpty { worker.wake() }
        return ids
    }
}
