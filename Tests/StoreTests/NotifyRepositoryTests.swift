import Testing
import Core
import Store
import TestSupport

@Suite struct NotifyRepositoryTests {
    private func fresh(_ engine: TestEngine) throws -> (TempDir, Database) {
        let dir = TempDir()
        return (dir, try engine.open(in: dir.path))
    }

    @Test(arguments: TestEngine.all) func channelsCRUDAndDelivery(engine: TestEngine) throws {
        let (dir, db) = try fresh(engine)
        _ = dir
        let ch = try db.write { c in
            try Channels.insert(c, ChannelRecord(name: "Ops", type: "webhook", enabled: true, events: [.monitorDown],
                                                 monitorIDs: [], reminderMinutes: 30, config: JSONObject([("url", "http://x/")])), now: 10)
        }
        #expect(ch.id > 0 && ch.createdAt == 10 && ch.updatedAt == 10)
        var changed = ch
        changed.enabled = false
        let updated = try db.write { c in try Channels.update(c, changed, now: 20) }
        #expect(updated?.enabled == false && updated?.updatedAt == 20)
        try db.read { c throws in
            #expect(try Channels.all(c).map(\.id) == [ch.id])
            #expect(try Channels.delivery(c, channelID: ch.id) == ChannelDelivery())
        }
        let ids = try db.write { c throws in
            try (0..<3).map { _ throws in
                try Outbox.insert(c, OutboxRecord(channelID: ch.id, eventID: nil, kind: "test", payload: "{}", nextAttemptAt: 100),
                                  now: 100) { id in "{\"id\":\(id)}" }
            }
        }
        try db.write { c throws in
            let claimed = try Outbox.claim(c, now: 100, claimUntil: 160, limit: 10)
            #expect(claimed.map(\.id) == ids)
            #expect(claimed[0].payload == "{\"id\":\(ids[0])}")
            #expect(claimed.allSatisfy { $0.status == "sending" && $0.attempts == 1 && $0.claimedUntil == 160 })
            // A second claim finds nothing: compare-and-set.
            #expect(try Outbox.claim(c, now: 100, claimUntil: 160, limit: 10).isEmpty)
            #expect(try Outbox.markSent(c, id: ids[0], now: 101))
            #expect(try !Outbox.markSent(c, id: ids[0], now: 102))
            #expect(try Outbox.scheduleRetry(c, id: ids[1], at: 200, error: "HTTP 503"))
            #expect(try Outbox.markFailed(c, id: ids[2], error: "HTTP 404"))
            #expect(try Outbox.nextDue(c) == 200)
        }
        try db.read { c throws in
            let d = try Channels.delivery(c, channelID: ch.id)
            #expect(d.sent == 1 && d.failed == 1 && d.pending == 1 && d.lastSentAt == 101 && d.lastError == "HTTP 404")
        }
        // Not yet due; then due.
        try db.write { c throws in
            #expect(try Outbox.claim(c, now: 199, claimUntil: 260, limit: 10).isEmpty)
            #expect(try Outbox.claim(c, now: 200, claimUntil: 260, limit: 10).map(\.id) == [ids[1]])
            // A crash leaves it in `sending`: due again once the claim expires, same payload.
            #expect(try Outbox.claim(c, now: 259, claimUntil: 320, limit: 10).isEmpty)
            let again = try Outbox.claim(c, now: 260, claimUntil: 320, limit: 10)
            #expect(again.map(\.id) == [ids[1]] && again[0].attempts == 3 && again[0].payload == "{\"id\":\(ids[1])}")
        }
        #expect(try db.write { c in try Channels.delete(c, id: ch.id) })
        try db.read { c throws in #expect(try Outbox.find(c, id: ids[0]) == nil) }
    }
}
