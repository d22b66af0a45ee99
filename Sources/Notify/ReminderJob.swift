import Core
import Store
import Synchronization

/// Repeats the alert of every open, unacknowledged incident on each channel
/// that routes it and has `reminder_minutes` > 0 (SPEC §6), and once an hour
/// deletes settled outbox rows older than the raw-results retention.
///
/// Slots live in `channel_reminders`, so they survive a restart. A channel's
/// first slot is the incident's `opened_at` (when its alert went out) plus
/// `reminder_minutes`; after a reminder the next slot is *now* plus the
/// channel's current `reminder_minutes`: a changed interval applies from the
/// next slot, and slots missed while the hub was down collapse into one
/// reminder instead of a burst. While the monitor is quiet (maintenance or
/// muted) a due slot moves on without sending. Acknowledged and closed
/// incidents lose their rows, so nothing more goes out for them.
public final class ReminderJob: Sendable {
    let database: Database
    let notifier: Notifier
    /// Settled outbox rows older than this are deleted.
    let outboxRetentionDays: Int64
    /// Seconds between passes: reminder slots are minutes, so a pass every
    /// 15 s keeps a reminder at most 15 s late for a trivial cost.
    let intervalSeconds: Int64
    let clock: @Sendable () -> Int64
    /// Called after reminders were queued (the delivery worker wakes up).
    let wake: @Sendable () -> Void
    /// Whether a monitor is quiet at a time (maintenance, mute): no reminders then.
    let quiet: @Sendable (_ monitorID: Int64, _ at: Int64) -> Bool
    /// Whether this hub does the passes (the leader, when hubs share a database).
    let leads: @Sendable () -> Bool
    /// When the outbox is pruned next (0: at the first pass).
    let nextPruneAt = Atomic<Int64>(0)
    let wakeup = Semaphore()
    let stopped = Atomic<Bool>(false)
    let thread = Mutex<ThreadHandle?>(nil)

    static let pruneEverySeconds: Int64 = 3600
    static let pruneBatch = 10_000

    public init(database: Database, notifier: Notifier, outboxRetentionDays: Int64 = 7, intervalSeconds: Int64 = 15,
                clock: @escaping @Sendable () -> Int64 = { Time.now() }, wake: @escaping @Sendable () -> Void = {},
                quiet: @escaping @Sendable (_ monitorID: Int64, _ at: Int64) -> Bool = { _, _ in false },
                leads: @escaping @Sendable () -> Bool = { true }) {
        self.leads = leads
        self.database = database
        self.notifier = notifier
        self.outboxRetentionDays = outboxRetentionDays
        self.intervalSeconds = intervalSeconds
        self.clock = clock
        self.wake = wake
        self.quiet = quiet
    }

    public func start() {
        stopped.store(false, ordering: .sequentiallyConsistent)
        let handle = startThread(name: "notify-reminders") { [self] in
            // Wait first: at start-up the maintenance calendar (the quiet
            // check) is loaded after this starts, and no slot needs a pass
            // sooner than one interval after a restart.
            while !stopped.load(ordering: .sequentiallyConsistent) {
                _ = wakeup.wait(timeoutNanos: UInt64(intervalSeconds) * 1_000_000_000)
                if stopped.load(ordering: .sequentiallyConsistent) { break }
                // Hubs sharing a database: only the leader reminds, so each
                // reminder is queued once (the slot update would also refuse
                // a second, but two hubs need not race for it).
                guard leads() else { continue }
                do { try runOnce() } catch {
                    Log.shared.error("reminder job failed", ["error": "\(error)"])
                }
            }
        }
        thread.withLock { $0 = handle }
    }

    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wakeup.post()
        let h = thread.withLock { t -> ThreadHandle? in defer { t = nil }; return t }
        h?.join()
    }

    /// One pass at the clock's time: due reminders, then the hourly prune.
    /// Returns how many outbox rows were queued.
    @discardableResult
    public func runOnce() throws -> Int {
        let now = clock()
        let queued = try remind(now: now)
        if now >= nextPruneAt.load(ordering: .relaxed) {
            try pruneOutbox(now: now)
            nextPruneAt.store(now + Self.pruneEverySeconds, ordering: .relaxed)
        }
        return queued
    }

    /// Queues the reminders due at `now`; returns the rows queued.
    @discardableResult
    public func remind(now: Int64) throws -> Int {
        let open = try database.write { c in
            try Reminders.deleteSettled(c)
            return try Incidents.openUnacknowledged(c)
        }
        var queued = 0
        // One write transaction per incident keeps the writer (and so the
        // check results waiting behind it) free between incidents. Inside
        // it the incident is read again: an acknowledgement that committed
        // since the list was taken stops its reminders here.
        for listed in open {
            queued += try database.write { c throws(StoreError) -> Int in
                guard let incident = try Incidents.find(c, id: listed.id), incident.status == "open",
                      incident.acknowledgedAt == nil,
                      // Held or suppressed by a parent (SPEC §12): no alert went out to repeat.
                      incident.heldUntil == nil, incident.suppressedBy == nil else { return 0 }
                return try remind(incident, now: now, on: c)
            }
        }
        if queued > 0 { wake() }
        return queued
    }

    func remind(_ incident: IncidentRecord, now: Int64, on c: Connection) throws(StoreError) -> Int {
        guard let kind = Self.eventKind(incident.kind) else { return 0 }
        var slots: [Int64: Int64] = [:]
        for r in try Reminders.forIncident(c, incidentID: incident.id) { slots[r.channelID] = r.nextAt }
        var queued = 0
        var quietNow: Bool?
        var template: Notification?
        // The monitor's priority decides which channels are reminded at all
        // (a channel's min_priority holds for reminders too, SPEC §10).
        let monitor = try Monitors.find(c, id: incident.monitorID)
        let priority = AlertPriority.resolve(kind, monitorPriority: monitor?.priority)
        for ch in notifier.current {
            let slot = slots.removeValue(forKey: ch.id)
            guard ch.reminderMinutes > 0, Routing.matches(ch, kind: kind, monitorID: incident.monitorID),
                  Int64(priority) >= ch.minPriority else {
                if slot != nil { try Reminders.delete(c, channelID: ch.id, incidentID: incident.id) }
                continue
            }
            let period = ch.reminderMinutes * 60
            let due = slot ?? incident.openedAt + period
            if due > now {
                if slot == nil { try Reminders.schedule(c, channelID: ch.id, incidentID: incident.id, nextAt: due) }
                continue
            }
            let isQuiet = quietNow ?? quiet(incident.monitorID, now)
            quietNow = isQuiet
            if isQuiet {
                // The slot passes unsent: no reminders during maintenance.
                try Reminders.schedule(c, channelID: ch.id, incidentID: incident.id, nextAt: now + period)
                continue
            }
            if template == nil {
                var n = Notification(kind: .reminder, event: kind, monitorID: incident.monitorID,
                                     monitorName: monitor?.name ?? "monitor \(incident.monitorID)", incidentID: incident.id,
                                     cause: incident.cause, locations: incident.locations, at: now, since: incident.openedAt,
                                     outboxID: 0, hubName: notifier.hubName)
                n.publicURL = notifier.publicURL
                n.priority = priority
                // The event it repeats: an app that sees the reminder first
                // still finds the alert in the events feed.
                n.eventID = try Events.latest(c, incidentID: incident.id, kind: kind.rawValue)?.id
                template = n
            }
            guard let n = template else { continue }
            // The row itself names no event: it is a reminder, not the alert
            // (`Outbox.announced` reads alert rows by their event).
            queued += try notifier.queue(c, channel: ch, notification: n, eventID: nil, now: now).count
            try Reminders.schedule(c, channelID: ch.id, incidentID: incident.id, nextAt: now + period, countSent: true)
        }
        // Rows of channels no longer in the cache: deleted channels cascade
        // in the database; a channel whose stored config stopped validating
        // is skipped by the cache and stops reminding too.
        for channelID in slots.keys { try Reminders.delete(c, channelID: channelID, incidentID: incident.id) }
        return queued
    }

    /// The event an incident kind alerted with.
    static func eventKind(_ incidentKind: String) -> EventKind? {
        switch incidentKind {
        case "down": .monitorDown
        case "degraded": .monitorDegraded
        case "expiry": .expiry
        default: nil
        }
    }

    /// Deletes `sent` and `failed` outbox rows created more than
    /// `outboxRetentionDays` ago, in batches so the writer is never held long.
    /// Returns how many went.
    @discardableResult
    public func pruneOutbox(now: Int64) throws -> Int {
        let before = now - outboxRetentionDays * 86_400
        var total = 0
        while true {
            let n = try database.write { c in try Outbox.prune(c, before: before, limit: Self.pruneBatch) }
            total += n
            if n < Self.pruneBatch || stopped.load(ordering: .relaxed) { break }
        }
        if total > 0 { Log.shared.info("outbox pruned", ["rows": "\(total)", "days": "\(outboxRetentionDays)"]) }
        return total
    }
}
