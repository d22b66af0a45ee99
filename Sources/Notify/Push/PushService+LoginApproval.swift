import Core
import Store

/// Sign-in approval requests to phones (SPEC §11): one `push` outbox row per
/// phone of the user, written in the transaction that creates the approval,
/// so the request is as durable as an alert and sent once. The row's kind is
/// `alert` (what the relay is asked to show); it has no channel, like a Live
/// Activity row. The message's `expires_at` is the approval's end, and the
/// push transport drops a message past its `expires_at` instead of sending
/// it: an approval request after the approval ended only confuses.
extension PushService {
    /// Queues the request for every phone of the user on a live sign-in;
    /// nothing with push off. Returns how many rows it wrote. Call inside a
    /// write transaction, then `deliverSoon()` after it committed.
    @discardableResult
    public func queueLoginApproval(_ c: Connection, userID: Int64, approvalID: String, client: String, expiresAt: Int64,
                                   now: Int64) throws(StoreError) -> Int {
        let s = settings
        guard s.enabled else { return 0 }
        let hubName = self.hubName
        var queued = 0
        for d in try MobileDevices.active(c, userIDs: [userID]) {
            let device = PushMessages.Device(platform: d.platform, token: d.token)
            _ = try Outbox.insert(c, OutboxRecord(channelID: nil, eventID: nil, kind: "alert", transport: "push", deviceID: d.id,
                                                  payload: "{}", nextAttemptAt: now), now: now) { id in
                PushMessages.loginApproval(approvalID: approvalID, client: client, to: device, id: "outbox-\(id)",
                                           hubID: s.hubID, hubName: hubName, expiresAt: expiresAt).text
            }
            queued += 1
        }
        return queued
    }

    /// Wakes the delivery worker for rows just committed.
    public func deliverSoon() { wake() }
}
