@testable import Agent
import Core
import Monitoring
import Net
import TestSupport

/// Shared pieces of the agent tests: a token, monitor objects as the hub
/// shows them, and settings turned down so tests run in a few seconds.
enum AgentFixtures {
    static let token = "pmg_TestAgentToken_0123456789abcdef"

    /// An http monitor object with the fields the hub's API adds around the configuration.
    static func httpMonitor(id: Int64, url: String, interval: Int64 = 10) -> JSON {
        ["id": .int(id), "name": .string("monitor \(id)"), "type": "http", "target": .string(url),
         "interval": .int(interval), "timeout": 5, "retries": 0, "paused": false, "locations": [],
         "confirm_locations": 1, "degraded_after_ms": nil, "cert_expiry_days": nil,
         "http": ["method": "GET", "headers": [:], "body": nil, "expected_status": "200-299", "keyword": nil,
                  "keyword_absent": false, "follow_redirects": true, "verify_tls": true],
         "status": "pending", "status_since": nil, "last_check": nil, "open_incident_id": nil,
         "in_maintenance": false, "created_at": "2026-11-29T10:00:00Z", "updated_at": "2026-11-29T10:00:00Z"]
    }

    static func settings(_ hub: FakeAgentHub, name: String? = nil) -> AgentSettings {
        var s = AgentSettings(hubURL: hub.baseURL, token: token)
        s.expectedName = name
        s.version = "test"
        s.flushIntervalMillis = 200
        s.backoffBaseMillis = 50
        s.backoffMaxMillis = 200
        s.finalUploadMillis = 3000
        s.requestTimeoutMillis = 3000
        s.maxConcurrent = 16
        return s
    }

    /// Results grouped as (monitor_id, at) pairs, to check nothing is lost or doubled.
    static func keys(_ results: [JSON]) -> [String] {
        results.map { "\($0["monitor_id"]?.intValue ?? -1)@\($0["at"]?.intValue ?? -1)" }
    }
}
