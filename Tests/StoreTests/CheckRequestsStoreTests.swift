import Testing
import Store
import TestSupport

/// `check_requests` (migration 0015): check-now requests shared by hubs.
@Suite struct CheckRequestsStoreTests {
    @Test(arguments: TestEngine.all) func claimOnceAnswerOnceWithdraw(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        defer { db.close() }
        try db.write { c in
            try CheckRequests.insert(c, ids: [("c-1", 7), ("c-2", 8)], monitorID: 12, askedBy: "a:1", now: 1_000, expiresAt: 16_000)
            try CheckRequests.insert(c, ids: [("c-3", 7)], monitorID: 13, askedBy: "a:1", now: 1_000, expiresAt: 16_000)
        }
        #expect(try db.read { try CheckRequests.openAgents($0, now: 2_000) } == [7, 8])

        // The hub holding agent 7's poll takes both of its requests; nobody gets them again.
        let claimed = try db.write { c in try CheckRequests.claim(c, agentID: 7, node: "b:1", now: 2_000) }
        #expect(claimed == [ClaimedCheckRequest(id: "c-1", monitorID: 12, agentID: 7),
                            ClaimedCheckRequest(id: "c-3", monitorID: 13, agentID: 7)])
        #expect(try db.write { c in try CheckRequests.claim(c, agentID: 7, node: "a:1", now: 2_000) } == [])
        #expect(try db.read { try CheckRequests.openAgents($0, now: 2_000) } == [8])
        // Expired requests are never handed out (the check-now stopped waiting).
        #expect(try db.write { c in try CheckRequests.claim(c, agentID: 8, node: "b:1", now: 16_000) } == [])
        #expect(try db.read { try CheckRequests.openAgents($0, now: 16_000) } == [])

        let answer = CheckRequestAnswer(atMs: 2_500, status: "down", latencyMs: 31, statusCode: 503, error: "HTTP 503", certNotAfter: nil)
        try db.write { c throws in
            // Only for the agent and monitor it was handed to; only once.
            #expect(try CheckRequests.answer(c, id: "c-1", agentID: 8, monitorID: 12, answer) == nil)
            #expect(try CheckRequests.answer(c, id: "c-1", agentID: 7, monitorID: 13, answer) == nil)
            #expect(try CheckRequests.answer(c, id: "c-2", agentID: 8, monitorID: 12, answer) == nil, "never handed out")
            #expect(try CheckRequests.answer(c, id: "c-1", agentID: 7, monitorID: 12, answer) == "a:1")
            var later = answer
            later.status = "up"
            #expect(try CheckRequests.answer(c, id: "c-1", agentID: 7, monitorID: 12, later) == nil)
        }
        try db.read { c throws in
            let found = try CheckRequests.answerOf(c, id: "c-1")
            #expect(found?.agentID == 7 && found?.answer == answer)
            #expect(try CheckRequests.answerOf(c, id: "c-3") == nil, "not answered yet")
        }
        try db.write { c in try CheckRequests.delete(c, ids: ["c-1", "c-3"]) }
        #expect(try db.read { try CheckRequests.answerOf($0, id: "c-1") } == nil)
        // The next check-now clears rows that ended a minute ago (an asking hub that died).
        try db.write { c in try CheckRequests.insert(c, ids: [("c-4", 9)], monitorID: 12, askedBy: "b:1", now: 80_000, expiresAt: 95_000) }
        #expect(try db.read { try $0.scalar("SELECT count(*) FROM check_requests") } == .integer(1))
    }
}
