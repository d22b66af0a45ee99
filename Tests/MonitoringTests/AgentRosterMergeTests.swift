import Monitoring
import Store
import Testing

/// `AgentRoster.merge`: hubs sharing a database converge on one view of the
/// agents (SPEC §14) — what another hub stored wins when it is newer, what
/// only this hub knows is kept.
@Suite struct AgentRosterMergeTests {
    func record(_ id: Int64, _ name: String, status: String, since: Int64, seen: Int64?) -> AgentRecord {
        AgentRecord(id: id, name: name, tokenHash: [UInt8(id)], createdAt: 1, lastSeenAt: seen, status: status, statusSince: since)
    }

    @Test func newerContactsAndStatusesWinOlderOnesDoNot() {
        let roster = AgentRoster()
        roster.load([record(1, "eu", status: "online", since: 100, seen: 100), record(2, "us", status: "online", since: 100, seen: 100)])
        // This hub answered a poll of "eu" at 150 s that is not stored yet.
        _ = roster.contact(id: 1, nowMs: 150_000, version: nil, address: nil, persistEveryMs: 10_000_000)
        // The stored view: "eu" seen at 120 (older than this hub's 150), "us"
        // marked offline by the leader at 140, "ap" created through another
        // hub, nothing else.
        roster.merge([record(1, "eu", status: "online", since: 100, seen: 120),
                      record(2, "us", status: "offline", since: 140, seen: 110),
                      record(3, "ap", status: "pending", since: 130, seen: nil)])
        #expect(roster.agent(id: 1)?.lastSeenMs == 150_000)
        #expect(roster.agent(id: 2)?.status == .offline && roster.agent(id: 2)?.statusSince == 140)
        #expect(roster.agent(id: 2)?.lastSeenMs == 110_000)
        #expect(roster.agent(tokenHash: [3])?.name == "ap")
        #expect(roster.onlineNames() == ["eu"])
        // An older stored status does not undo a newer one seen here.
        _ = roster.contact(id: 2, nowMs: 160_000, version: nil, address: nil, persistEveryMs: 10_000_000)
        roster.merge([record(1, "eu", status: "online", since: 100, seen: 120),
                      record(2, "us", status: "offline", since: 140, seen: 110)])
        #expect(roster.agent(id: 2)?.status == .online && roster.agent(id: 2)?.lastSeenMs == 160_000)
        // Deleted through another hub: gone, its token no longer works.
        #expect(roster.agent(id: 3) == nil && roster.agent(tokenHash: [3]) == nil)
        // A later contact stored by another hub is taken.
        roster.merge([record(1, "eu", status: "online", since: 100, seen: 170), record(2, "us", status: "online", since: 160, seen: 160)])
        #expect(roster.agent(id: 1)?.lastSeenMs == 170_000)
    }

    /// Created through this hub and online through another within the same
    /// second (the wake-up channel lets the other hub know it at once): the
    /// stored `online` wins over the `pending` of the same second, which
    /// can only be older.
    @Test func onlineOfTheSecondItWasCreatedIsAdopted() {
        let roster = AgentRoster()
        roster.load([record(1, "eu", status: "pending", since: 100, seen: nil)])
        roster.merge([record(1, "eu", status: "online", since: 100, seen: 100)])
        #expect(roster.agent(id: 1)?.status == .online && roster.onlineNames() == ["eu"])
        // Between online and offline a tie keeps what this hub saw.
        roster.merge([record(1, "eu", status: "offline", since: 100, seen: 100)])
        #expect(roster.agent(id: 1)?.status == .online)
    }
}
