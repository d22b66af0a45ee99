@testable import Agent
import Core
import Monitoring
import Net
import Synchronization
import TestSupport
import Testing

/// The agent in process against a fake hub (docs/agents.md) and real
/// loopback targets; the scheduler runs on a manual clock so 10 s intervals
/// pass at once.
@Suite(.serialized) struct AgentRunnerTests {
    typealias F = AgentFixtures

    @Test func fetchesChecksAndUploadsThenUsesNotModified() throws {
        let target = try SwitchableHTTPTarget()
        defer { target.stop() }
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west", monitors: [F.httpMonitor(id: 12, url: target.healthURL)])
        defer { hub.stop() }
        let clock = ManualSchedulerClock()
        let runner = AgentRunner(settings: F.settings(hub, name: "eu-west"), clock: clock)
        #expect(try runner.start())
        defer { runner.stop() }
        #expect(runner.agentName == "eu-west" && runner.monitorCount == 1)

        clock.advance(by: 10_000)  // one full interval: the monitor's slot comes once
        #expect(hub.wait { $0.results.count == 1 })
        let r = try #require(hub.results.first)
        #expect(r["monitor_id"]?.intValue == 12 && r["status"]?.stringValue == "up" && r["status_code"]?.intValue == 200)
        #expect(r["request_id"] == nil)
        let at = try #require(r["at"]?.intValue)
        #expect(at > 1_800_000_000_000 && at <= 1_800_000_010_000)  // the clock's milliseconds when it started
        #expect(hub.uploads.first?.userAgent == "pingtxt-agent/test")

        target.setStatus(503)
        clock.advance(by: 10_000)
        #expect(hub.wait { $0.results.count == 2 })
        #expect(hub.results.last?["status"]?.stringValue == "down" && hub.results.last?["error"]?.stringValue == "HTTP 503")
        #expect(hub.results.last?["at"]?.intValue == at + 10_000)  // on its grid: no drift

        // poll_interval is 1 s: the assignment is asked for again, answered 304.
        #expect(hub.wait { $0.monitorAnswers[304, default: 0] >= 2 })
        #expect(hub.monitorAnswers[200] == 1)
    }

    @Test func uploadsInBatches() throws {
        let target = try SwitchableHTTPTarget()
        defer { target.stop() }
        let monitors = (1...12).map { F.httpMonitor(id: Int64($0), url: target.healthURL) }
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west", monitors: monitors)
        defer { hub.stop() }
        let clock = ManualSchedulerClock()
        var settings = F.settings(hub)
        settings.batchLimit = 5
        settings.flushIntervalMillis = 60_000  // only full batches go: shows the batching
        let runner = AgentRunner(settings: settings, clock: clock)
        #expect(try runner.start())
        clock.advance(by: 10_000)
        #expect(hub.wait { $0.results.count >= 10 })
        #expect(hub.wait { _ in runner.buffer.count == 2 })  // every check done, two short of a batch
        #expect(hub.uploads.map(\.results.count) == [5, 5])
        runner.stop()  // the last two go in the final upload
        #expect(hub.uploads.map(\.results.count) == [5, 5, 2])
        #expect(Set(hub.results.compactMap { $0["monitor_id"]?.intValue }) == Set(1...12))
    }

    @Test func hubDownBuffersAndDeliversEverythingAfter() throws {
        let target = try SwitchableHTTPTarget()
        defer { target.stop() }
        let monitors = (1...3).map { F.httpMonitor(id: Int64($0), url: target.healthURL) }
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west", monitors: monitors)
        defer { hub.stop() }
        let clock = ManualSchedulerClock()
        let runner = AgentRunner(settings: F.settings(hub), clock: clock)
        #expect(try runner.start())
        defer { runner.stop() }

        hub.setUnavailable(true)
        for round in 1...5 {
            clock.advance(by: 10_000)
            #expect(hub.wait { _ in runner.buffer.count == round * 3 }, "round \(round): \(runner.buffer.count) buffered")
        }
        #expect(hub.wait { $0.refusedUploads >= 3 })  // it kept trying, with backoff
        #expect(hub.results.isEmpty && runner.buffer.count == 15)

        hub.setUnavailable(false)
        #expect(hub.wait { $0.results.count == 15 })
        #expect(Set(F.keys(hub.results)).count == 15)  // none lost, none twice
        // The hub records the upload a moment before the agent reads its 200.
        #expect(hub.wait { _ in runner.buffer.count == 0 })
        #expect(runner.buffer.droppedTotal == 0)
    }

    @Test func bufferBoundKeepsTheNewestWhileDown() throws {
        let target = try SwitchableHTTPTarget()
        defer { target.stop() }
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west", monitors: [F.httpMonitor(id: 7, url: target.healthURL)])
        defer { hub.stop() }
        let clock = ManualSchedulerClock()
        var settings = F.settings(hub)
        settings.bufferLimit = 3
        let runner = AgentRunner(settings: settings, clock: clock)
        #expect(try runner.start())
        defer { runner.stop() }
        hub.setUnavailable(true)
        var starts: [Int64] = []
        for _ in 1...5 {
            // Counted before the clock moves: the check may finish at once.
            let before = runner.buffer.droppedTotal + runner.buffer.count
            clock.advance(by: 10_000)
            #expect(hub.wait { _ in runner.buffer.droppedTotal + runner.buffer.count == before + 1 })
            starts.append(runner.buffer.batch(max: 10).last!.result.atMs)
        }
        #expect(runner.buffer.count == 3 && runner.buffer.droppedTotal == 2)
        #expect(hub.wait { $0.refusedUploads >= 1 })
        hub.setUnavailable(false)
        #expect(hub.wait { $0.results.count == 3 })
        #expect(hub.results.compactMap { $0["at"]?.intValue } == Array(starts.suffix(3)))
    }

    @Test func checkRequestRunsAtOnceWithItsRequestID() throws {
        let target = try SwitchableHTTPTarget()
        defer { target.stop() }
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west", monitors: [F.httpMonitor(id: 12, url: target.healthURL)])
        defer { hub.stop() }
        var settings = F.settings(hub)
        settings.flushIntervalMillis = 60_000  // the answer must not wait for the flush interval
        let runner = AgentRunner(settings: settings, clock: ManualSchedulerClock())
        #expect(try runner.start())
        defer { runner.stop() }
        let started = Time.monotonicNanos()
        hub.requestCheck(requestID: "c-81f2", monitorID: 12)
        #expect(hub.wait(timeoutMillis: 5000) { $0.results.count == 1 })
        #expect(Time.monotonicNanos() - started < 3_000_000_000)
        #expect(hub.results.first?["request_id"]?.stringValue == "c-81f2")
        #expect(hub.results.first?["status"]?.stringValue == "up")

        // A monitor assigned after the last fetch: the agent fetches, then runs it.
        hub.setMonitors([F.httpMonitor(id: 12, url: target.healthURL), F.httpMonitor(id: 13, url: target.baseURL + "/status/500")])
        hub.requestCheck(requestID: "c-2", monitorID: 13)
        #expect(hub.wait(timeoutMillis: 5000) { $0.results.contains { $0["request_id"]?.stringValue == "c-2" } })
        let answer = hub.results.first { $0["request_id"]?.stringValue == "c-2" }
        #expect(answer?["monitor_id"]?.intValue == 13 && answer?["status_code"]?.intValue == 500)
        #expect(runner.monitorCount == 2)
    }

    @Test func newlyAssignedMonitorsRunAtOnceButNotAtStart() throws {
        let target = try SwitchableHTTPTarget()
        defer { target.stop() }
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west", monitors: [F.httpMonitor(id: 1, url: target.healthURL)])
        defer { hub.stop() }
        let clock = ManualSchedulerClock()
        let runner = AgentRunner(settings: F.settings(hub), clock: clock)
        #expect(try runner.start())
        defer { runner.stop() }
        // The clock stands still: nothing is due yet for the first assignment.
        #expect(!hub.wait(timeoutMillis: 600) { $0.results.count > 0 })
        hub.setMonitors([F.httpMonitor(id: 1, url: target.healthURL), F.httpMonitor(id: 2, url: target.healthURL)])
        #expect(hub.wait { $0.results.count == 1 })  // noticed through the poll's monitors_etag
        #expect(hub.results.first?["monitor_id"]?.intValue == 2 && hub.results.first?["request_id"] == nil)
    }

    @Test func nameMismatchAndRefusedTokenStopStart() throws {
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west")
        defer { hub.stop() }
        let runner = AgentRunner(settings: F.settings(hub, name: "us-east"))
        #expect { _ = try runner.start() } throws: { ($0 as? AgentSettingsError)?.description.contains("'eu-west', not 'us-east'") == true }
        runner.stop()
        var wrong = F.settings(hub)
        wrong.token = "pmg_SomeOtherToken_000000000000"
        let refused = AgentRunner(settings: wrong)
        #expect { _ = try refused.start() } throws: { ($0 as? AgentSettingsError)?.description.contains("401") == true }
        refused.stop()
    }

    @Test func startWaitsForTheHubAndStopsOnRequest() throws {
        let hub = try FakeAgentHub(token: F.token, agentName: "eu-west")
        defer { hub.stop() }
        hub.setUnavailable(true)
        let runner = AgentRunner(settings: F.settings(hub))
        let outcome = Mutex<Bool?>(nil)
        let thread = startThread(name: "test-start") { outcome.withLock { $0 = try? runner.start() } }
        #expect(hub.wait { $0.refused >= 2 })
        hub.setUnavailable(false)
        #expect(hub.wait { _ in outcome.withLock { $0 } == true })
        thread.join()
        runner.stop()

        // Stop requested while the hub is still unreachable: start gives up at once.
        hub.setUnavailable(true)
        let second = AgentRunner(settings: F.settings(hub))
        let t2 = startThread(name: "test-start-2") { outcome.withLock { $0 = try? second.start() } }
        #expect(hub.wait { $0.refused >= 4 })
        second.requestStop()
        t2.join()
        #expect(outcome.withLock { $0 } == false)
        second.stop()
    }

    /// Two agents on one machine with different source addresses see one
    /// target differently (it answers by client address).
    @Test func sourceAddressGivesAgentsTheirOwnView() throws {
        let target = try ClientAddressTarget(healthyFor: ["127.0.0.2"])
        defer { target.stop() }
        var outcomes: [String: JSON] = [:]
        for (name, source) in [("north", "127.0.0.2"), ("south", "127.0.0.3")] {
            let hub = try FakeAgentHub(token: F.token, agentName: name, monitors: [F.httpMonitor(id: 5, url: target.url)])
            defer { hub.stop() }
            var settings = F.settings(hub)
            settings.sourceAddress = IPAddress(literal: source)
            let runner = AgentRunner(settings: settings, clock: ManualSchedulerClock())
            #expect(try runner.start())
            hub.requestCheck(requestID: "r-\(name)", monitorID: 5)
            #expect(hub.wait { $0.results.count == 1 })
            runner.stop()
            outcomes[name] = hub.results.first
        }
        #expect(outcomes["north"]?["status"]?.stringValue == "up")
        #expect(outcomes["south"]?["status"]?.stringValue == "down" && outcomes["south"]?["status_code"]?.intValue == 503)
        #expect(Set(target.clients) == ["127.0.0.2", "127.0.0.3"])
    }
}
