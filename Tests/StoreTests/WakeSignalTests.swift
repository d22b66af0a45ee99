import Testing
import Store

/// The wake-up channel's payloads and channel names (pure parts).
@Suite struct WakeSignalTests {
    @Test func payloadsRoundTrip() {
        let signals: [WakeSignal] = [.monitors, .agents, .check(agentID: 1), .check(agentID: 987_654_321),
                                     .answered(requestID: "c-0123456789ab"), .answered(requestID: String(repeating: "a", count: 64))]
        for s in signals { #expect(WakeSignal(payload: s.payload) == s, "\(s.payload)") }
        #expect(WakeSignal.check(agentID: 42).payload == "check:42")
        #expect(WakeSignal.answered(requestID: "c-1f").payload == "answered:c-1f")
    }

    /// Anyone who can reach the database can NOTIFY on the channel: only
    /// what this binary sends is understood, everything else is ignored.
    @Test(arguments: ["", "monitor", "Monitors", "monitors ", "agents:1", "check", "check:", "check:0", "check:-1",
                      "check:+1", "check:01", "check:1x", "check: 1", "check:1234567890123456789", "check:99999999999999999999",
                      "answered:", "answered:C-ABC", "answered:c_1", "answered:c-1 ", "answered:c-1;drop",
                      "answered:" + String(repeating: "a", count: 65), "check:1\u{0}", "ünicode"])
    func unknownOrMalformedPayloadsAreRefused(payload: String) {
        #expect(WakeSignal(payload: payload) == nil)
    }

    @Test func requestIDsAreWhatTheHubMakes() {
        #expect(WakeSignal.isRequestID("c-81f2a0b1c2d3"))
        #expect(!WakeSignal.isRequestID(""))
        #expect(!WakeSignal.isRequestID("c-81F2"))
        #expect(!WakeSignal.isRequestID(String(repeating: "1", count: 65)))
    }

    @Test func channelNamesAreShortStableAndPerSchema() {
        #expect(WakeChannel.channelName(schema: "public") == "pingtxt_wake")
        let a = WakeChannel.channelName(schema: "tenant_a")
        let b = WakeChannel.channelName(schema: "tenant_b")
        #expect(a != b && a.hasPrefix("pingtxt_wake_") && a.utf8.count == 29)
        #expect(a == WakeChannel.channelName(schema: "tenant_a"), "every hub of one schema computes the same name")
        // Within PostgreSQL's 63-byte identifiers whatever the schema's name.
        #expect(WakeChannel.channelName(schema: String(repeating: "ß", count: 63)).utf8.count == 29)
        // FNV-1a 64 of "a" is af63dc4c8601ec8c (the published test vector).
        #expect(WakeChannel.channelName(schema: "a") == "pingtxt_wake_af63dc4c8601ec8c")
    }

    @Test func sqliteHasNoChannel() throws {
        let dir = TempDir()
        let db = try Database(path: dir.file("hub.db"), readers: 1)
        defer { db.close() }
        let wake = try WakeChannel(database: db)
        #expect(!wake.isActive && wake.name == "")
        // A no-op inside a write, so callers need not ask which engine it is.
        try db.write { c in try wake.send(c, .monitors) }
    }
}
