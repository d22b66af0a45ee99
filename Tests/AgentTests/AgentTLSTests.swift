@testable import Agent
import Core
import Monitoring
import Synchronization
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The hub over HTTPS with a throwaway CA: trusted through `extraCAFile`
/// (`[checks] ca_file`), refused without it.
@Suite(.serialized) struct AgentTLSTests {
    typealias F = AgentFixtures

    @Test func verifiesTheHubCertificate() throws {
        let fixture = try #require(TLSFixture())
        defer { fixture.remove() }
        let target = try SwitchableHTTPTarget()
        defer { target.stop() }
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west", monitors: [F.httpMonitor(id: 4, url: target.healthURL)])
        defer { hub.stop() }
        let proxy = try #require(TLSTerminatingProxy(cert: fixture.cert("valid"), key: fixture.key("valid"), upstreamPort: hub.port))
        defer { proxy.stop() }

        // Without the CA the certificate does not verify: the hub is never reached.
        var untrusted = F.settings(hub)
        untrusted.hubURL = "https://127.0.0.1:\(proxy.port)"
        let refused = AgentRunner(settings: untrusted)
        let outcome = Mutex<Bool?>(nil)
        let thread = startThread(name: "tls-start") { outcome.withLock { $0 = try? refused.start() } }
        usleep(500_000)
        #expect(hub.monitorAnswers.isEmpty)
        refused.requestStop()
        thread.join()
        #expect(outcome.withLock { $0 } == false)
        refused.stop()

        var trusted = untrusted
        trusted.extraCAFile = fixture.caFile
        let runner = AgentRunner(settings: trusted, clock: ManualSchedulerClock())
        #expect(try runner.start())
        defer { runner.stop() }
        hub.requestCheck(requestID: "tls-1", monitorID: 4)
        #expect(hub.wait { $0.results.contains { $0["request_id"]?.stringValue == "tls-1" } })
    }
}
