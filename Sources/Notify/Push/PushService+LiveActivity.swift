import Core
import Store

/// The outage Live Activity (SPEC §6). The shown content is kept in `meta`
/// so a change is noticed once, even across restarts; each phone then gets
/// its next step (`LiveActivityStep.plan`) as a `push` outbox row of kind
/// `liveactivity`, with an `aps.timestamp` above the last one it got.
extension PushService {
    static let contentKey = "live_activity.content"

    public func incidentsChanged(_ c: Connection, now: Int64) throws(StoreError) -> Int {
        try reconcile(c, now: now)
    }

    /// Monitors down now, leaving out quiet ones (maintenance, muted).
    func currentContent(_ c: Connection, now: Int64) throws(StoreError) -> OutageContent {
        let rows = try Incidents.openOutages(c, kind: "down").filter { !quiet($0.incident.monitorID, now) }
        return OutageContent(down: rows.map {
            OutageContent.Down(monitorID: $0.incident.monitorID, name: $0.monitorName, cause: $0.incident.cause,
                               since: $0.incident.openedAt)
        })
    }

    /// Sends the new content to every phone when it changed. Returns how many
    /// rows it queued. Call inside a write transaction.
    @discardableResult
    func reconcile(_ c: Connection, now: Int64) throws(StoreError) -> Int {
        let s = settings
        guard s.enabled else { return 0 }
        let content = try currentContent(c, now: now)
        let before = try Meta.get(c, Self.contentKey) ?? ""
        if content.fingerprint == before { return 0 }
        try Meta.set(c, Self.contentKey, content.fingerprint)
        // Only the ids matter for "did something new go down".
        let previous = OutageContent(down: before.split(separator: "\n").compactMap { line in
            line.split(separator: ":", maxSplits: 1).first.flatMap { Int64($0) }
                .map { OutageContent.Down(monitorID: $0, name: "", cause: "", since: 0) }
        })
        var queued = 0
        for d in try liveActivityDevices(c) where try send(c, to: d, content: content, previous: previous, settings: s, now: now) {
            queued += 1
        }
        return queued
    }

    /// A phone reported its running activity (after a start) or its
    /// push-to-start token: it gets its next step for the current content at
    /// once (an update, an end when nothing is down any more, or a start
    /// during an outage), without an alert for what it already showed.
    public func liveActivityReported(deviceID: Int64) throws {
        let s = settings
        guard s.enabled else { return }
        let now = Time.now()
        let sent = try database.write { c throws(StoreError) -> Bool in
            guard let d = try MobileDevices.find(c, id: deviceID) else { return false }
            let content = try currentContent(c, now: now)
            return try send(c, to: d, content: content, previous: content, settings: s, now: now)
        }
        if sent { wake() }
    }

    /// Re-reads the content (maintenance windows begin and end on their own).
    func tick() {
        do {
            let n = try database.write { c in try reconcile(c, now: Time.now()) }
            if n > 0 { wake() }
        } catch {
            Log.shared.error("live activity update failed", ["error": "\(error)"])
        }
    }

    /// Phones of users that an enabled `mobile` channel pages for `monitor_down`.
    func liveActivityDevices(_ c: Connection) throws(StoreError) -> [MobileDeviceRecord] {
        let mobile = channels().filter { $0.type == .mobile && $0.enabled && $0.events.contains(.monitorDown) }
        if mobile.isEmpty { return [] }
        let lists = mobile.map { ($0.sender as? MobileChannel)?.users ?? [] }
        if lists.contains(where: \.isEmpty) { return try MobileDevices.active(c, userIDs: nil) }
        return try devices(c, emails: Array(Set(lists.joined())).sorted())
    }

    private func send(_ c: Connection, to d: MobileDeviceRecord, content: OutageContent, previous: OutageContent,
                      settings s: PushSettings, now: Int64) throws(StoreError) -> Bool {
        let step = LiveActivityStep.plan(content: content, device: d)
        if step == .nothing { return false }
        let timestamp = max(now, d.liveActivityTimestamp + 1)
        let (platform, hubName) = (d.platform, self.hubName)
        _ = try Outbox.insert(c, OutboxRecord(channelID: nil, eventID: nil, kind: "liveactivity", transport: "push", deviceID: d.id,
                                          payload: "{}", nextAttemptAt: now), now: now) { id in
            PushMessages.liveActivity(step, content: content, previous: previous, id: "outbox-\(id)", platform: platform,
                                      hubID: s.hubID, hubName: hubName, timestamp: timestamp)?.text ?? "{}"
        }
        var starting = false, ended = false
        if case .start = step { starting = true }
        if case .end = step { ended = true }
        try MobileDevices.recordLiveActivity(c, id: d.id, starting: starting, ended: ended, timestamp: timestamp)
        return true
    }
}
