@testable import Agent
import Core
import Monitoring
import Testing

/// Settings validation, the result buffer and the wire form of a result.
@Suite struct AgentUnitTests {
    @Test func tokenShape() throws {
        try AgentSettings.validateToken("pmg_abcdefgh12345678")
        for bad in ["", "pma_abcdefgh12345678", "pmg_", "pmg_short", "pmg_has space in it", "abcdefghijkl"] {
            #expect(throws: AgentSettingsError.self, "\(bad)") { try AgentSettings.validateToken(bad) }
        }
    }

    @Test func hubURLRules() throws {
        #expect(try AgentSettings.normalizeHubURL("https://hub.example.com/") == "https://hub.example.com")
        #expect(try AgentSettings.normalizeHubURL("HTTPS://hub.example.com:8443/pingtxt") == "https://hub.example.com:8443/pingtxt")
        // Plain http only to loopback: the token would otherwise cross the network in clear.
        #expect(try AgentSettings.normalizeHubURL("http://127.0.0.1:8080") == "http://127.0.0.1:8080")
        #expect(try AgentSettings.normalizeHubURL("http://[::1]:8080") == "http://[::1]:8080")
        #expect(try AgentSettings.normalizeHubURL("http://localhost:8080") == "http://localhost:8080")
        for bad in ["", "hub.example.com", "ftp://hub", "http://hub.example.com", "http://10.0.0.1:8080",
                    "https://", "https://hub:99999", "https://u@hub", "https://hub/?x=1", "https://[::1"] {
            #expect(throws: AgentSettingsError.self, "\(bad)") { try AgentSettings.normalizeHubURL(bad) }
        }
    }

    static func result(_ n: Int64) -> UploadedResult {
        UploadedResult(check: CheckResult(at: 1, outcome: .up, latencyMs: 5), monitorID: n, atMs: 1_000 + n)
    }

    @Test func bufferDropsOldestAndCounts() {
        let buffer = ResultBuffer(limit: 5)
        for i in 1...8 { buffer.append(Self.result(Int64(i))) }
        #expect(buffer.count == 5)
        #expect(buffer.takeDropped() == 3 && buffer.takeDropped() == 0 && buffer.droppedTotal == 3)
        #expect(buffer.batch(max: 10).map(\.result.monitorID) == [4, 5, 6, 7, 8])
    }

    @Test func bufferRemovesOnlyWhatWasSent() {
        let buffer = ResultBuffer(limit: 4)
        for i in 1...3 { buffer.append(Self.result(Int64(i))) }
        let sent = buffer.batch(max: 2)
        // Meanwhile more arrive and the oldest is pushed out.
        buffer.append(Self.result(4))
        buffer.append(Self.result(5))
        buffer.remove(through: sent.last!.sequence)
        #expect(buffer.batch(max: 10).map(\.result.monitorID) == [3, 4, 5])
    }

    @Test func bufferIsDueOnFullBatchUrgentOrAge() {
        let buffer = ResultBuffer(limit: 100)
        #expect(buffer.due(batchLimit: 3, flushMillis: 60_000).waitMillis == nil)
        buffer.append(Self.result(1))
        #expect(buffer.due(batchLimit: 3, flushMillis: 60_000).now == false)
        #expect(buffer.due(batchLimit: 3, flushMillis: 0).now == true)
        buffer.append(Self.result(2), urgent: true)
        #expect(buffer.due(batchLimit: 3, flushMillis: 60_000).now == true)
        buffer.remove(through: buffer.batch(max: 2).last!.sequence)
        for i in 3...5 { buffer.append(Self.result(Int64(i))) }
        #expect(buffer.due(batchLimit: 3, flushMillis: 60_000).now == true)
    }

    @Test func resultWireForm() {
        var check = CheckResult(at: 1, outcome: .down, latencyMs: 84, statusCode: 503, error: "HTTP 503", certNotAfter: 1_767_000_000)
        let r = UploadedResult(check: check, monitorID: 12, atMs: 1_764_410_000_123, requestID: "c-81f2")
        #expect(r.json().text == #"{"monitor_id":12,"at":1764410000123,"status":"down","latency_ms":84,"status_code":503,"error":"HTTP 503","cert_not_after":1767000000,"request_id":"c-81f2"}"#)
        check = CheckResult(at: 1, outcome: .up)
        #expect(UploadedResult(check: check, monitorID: 1, atMs: 2).json().text
            == #"{"monitor_id":1,"at":2,"status":"up","latency_ms":null,"status_code":null,"error":null,"cert_not_after":null}"#)
    }

    @Test func assignmentSkipsWhatCannotRunHere() throws {
        let body: JSON = ["agent": ["id": 3, "name": "eu-west"], "poll_interval": 7, "monitors": [
            ["id": 1, "name": "a", "type": "tcp", "target": "127.0.0.1:9", "interval": 30, "status": "up", "last_check": nil],
            ["id": 2, "name": "hb", "type": "heartbeat", "heartbeat": ["period": 60, "grace": 60]],
            ["id": 3, "name": "bad", "type": "http", "target": "not a url"],
            ["name": "no id", "type": "tcp", "target": "127.0.0.1:9"],
        ]]
        let a = try AgentAssignment.parse(body.serialized())
        #expect(a.agentName == "eu-west" && a.agentID == 3 && a.pollInterval == 7)
        #expect(Array(a.monitors.keys) == [1])
        #expect(a.monitors[1]?.interval == 30)
        #expect(a.skipped.count == 2)
    }
}
