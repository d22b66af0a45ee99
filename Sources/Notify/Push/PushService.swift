import Core
import Net
import Store
import Synchronization

/// Phones through the push relay (SPEC §6): the settings and registration,
/// one `push` outbox row per phone for `mobile` channels, and the outage
/// Live Activity. The settings are cached; every change goes through
/// `update`, which registers with the relay when push is turned on or the
/// relay URL changes.
public final class PushService: MobilePush, Sendable {
    let database: Database
    let relay: RelayClient
    /// Read by the sender: quiet hours apply when a push leaves.
    let quietHours: QuietHoursService
    let hubName: String
    let publicURL: String
    let cached = Mutex<PushSettings?>(nil)
    /// One registration at a time (a PATCH and the sender may both want one).
    let registration = Mutex<Void>(())
    let channels: @Sendable () -> [Channel]
    let quiet: @Sendable (Int64, Int64) -> Bool
    let wake: @Sendable () -> Void
    let tickerStop = Semaphore()
    let ticker = Mutex<ThreadHandle?>(nil)
    /// Maintenance windows begin and end without an incident changing: the
    /// Live Activity content is re-read this often.
    static let tickSeconds: UInt64 = 20

    init(database: Database, engine: ClientEngine, hubName: String, publicURL: String,
         channels: @escaping @Sendable () -> [Channel], quiet: @escaping @Sendable (Int64, Int64) -> Bool,
         wake: @escaping @Sendable () -> Void) {
        self.database = database
        relay = RelayClient(engine: engine)
        quietHours = QuietHoursService(database: database)
        self.hubName = hubName
        self.publicURL = publicURL
        self.channels = channels
        self.quiet = quiet
        self.wake = wake
    }

    /// Loads the settings, creating the permanent `hub_id` on first start.
    func start() throws {
        let s = try database.write { c in try PushSettings.load(c) }
        cached.withLock { $0 = s }
        let handle = startThread(name: "push-ticker") { [self] in
            while !tickerStop.wait(timeoutNanos: Self.tickSeconds * 1_000_000_000) { tick() }
        }
        ticker.withLock { $0 = handle }
    }

    func stop() {
        guard let h = ticker.withLock({ t -> ThreadHandle? in defer { t = nil }; return t }) else { return }
        tickerStop.post()
        h.join()
    }

    public var settings: PushSettings {
        if let s = cached.withLock({ $0 }) { return s }
        let s = (try? database.write { c in try PushSettings.load(c) }) ?? PushSettings(hubID: "")
        cached.withLock { $0 = s }
        return s
    }

    private func save(_ s: PushSettings) throws {
        try database.write { c in try s.save(c) }
        cached.withLock { $0 = s }
    }

    /// Applies a settings change; registers when push is (still) on and it was
    /// just turned on, the relay URL changed, or it is not registered yet. A
    /// failed registration is not an error of the call: it is in `lastError`.
    public func update(enabled: Bool?, relayURL: String?) throws -> PushSettings {
        try registration.withLock { _ in
            let old = settings
            var s = old
            if let enabled { s.enabled = enabled }
            if let relayURL, relayURL != old.relayURL {
                s.relayURL = relayURL
                s.relayEpoch += 1
                s.hubKey = nil
                s.registeredURL = nil
            }
            let turnedOn = s.enabled && !old.enabled
            if !s.enabled { s.lastError = nil }
            try save(s)
            if s.enabled && (turnedOn || s.relayURL != old.relayURL || !s.registered) {
                s = try registerLocked(s)
            }
            return s
        }
    }

    private func registerLocked(_ current: PushSettings) throws -> PushSettings {
        var s = current
        switch relay.register(relayURL: s.relayURL, hubID: s.hubID, publicURL: publicURL, name: hubName) {
        case .success(let key):
            s.hubKey = key
            s.registeredURL = s.relayURL
            s.lastError = nil
            Log.shared.info("registered with the push relay", ["relay": s.relayURL])
        case .failure(let e):
            s.lastError = e.message
            Log.shared.warn("push relay registration failed", ["relay": s.relayURL, "error": e.message])
        }
        try save(s)
        return s
    }

    /// The hub key for sending, registering first when there is none.
    func hubKey() -> Result<(key: String, settings: PushSettings), RelayError> {
        let s = settings
        if s.registered, let key = s.hubKey { return .success((key, s)) }
        return register(replacing: nil)
    }

    /// Registers again (the relay answered 401 to `rejected`). When another
    /// thread already replaced that key, its new key is used as is.
    func register(replacing rejected: String?) -> Result<(key: String, settings: PushSettings), RelayError> {
        registration.withLock { _ in
            let current = settings
            if current.registered, let key = current.hubKey, key != rejected { return .success((key, current)) }
            guard current.enabled else { return .failure(RelayError("mobile push is turned off")) }
            guard let s = try? registerLocked(current) else { return .failure(RelayError("could not store the hub key")) }
            guard s.registered, let key = s.hubKey else { return .failure(RelayError(s.lastError ?? "not registered")) }
            return .success((key, s))
        }
    }

    // MARK: - Alerts to phones

    /// One `push` row per phone of the channel's users (empty list: everyone).
    public func queue(_ c: Connection, channel ch: Channel, notification: Notification, eventID: Int64?,
                      now: Int64) throws(StoreError) -> [Int64] {
        let s = settings
        guard s.enabled else { return [] }
        let mobile = ch.sender as? MobileChannel
        let emails = mobile?.users ?? []
        let alarm = mobile?.alarm ?? false
        var ids: [Int64] = []
        for d in try devices(c, emails: emails) {
            let device = PushMessages.Device(platform: d.platform, token: d.token)
            let id = try Outbox.insert(c, OutboxRecord(channelID: ch.id, eventID: eventID, kind: notification.kind.rawValue,
                                                       transport: "push", deviceID: d.id, payload: "{}", nextAttemptAt: now),
                                       now: now) { id in
                var n = notification
                n.outboxID = id
                return PushMessages.alert(n, to: device, hubID: s.hubID, alarm: alarm).text
            }
            ids.append(id)
        }
        return ids
    }

    /// Phones of live sign-ins of these users (empty: every user).
    func devices(_ c: Connection, emails: [String]) throws(StoreError) -> [MobileDeviceRecord] {
        if emails.isEmpty { return try MobileDevices.active(c, userIDs: nil) }
        var ids: [Int64] = []
        for e in emails { if let u = try Users.find(c, email: e) { ids.append(u.id) } }
        return try MobileDevices.active(c, userIDs: ids)
    }

    /// A relay said the token is dead: the phone is removed.
    func dropDevice(_ id: Int64) {
        do {
            try database.write { c in _ = try MobileDevices.delete(c, id: id, reason: "invalid_token") }
            Log.shared.info("phone removed: the platform refused its push token", ["device": "\(id)"])
        } catch {
            Log.shared.error("could not remove a phone", ["device": "\(id)", "error": "\(error)"])
        }
    }
}
